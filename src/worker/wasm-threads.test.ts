import { describe, expect, it, vi } from 'vitest';
import { NOT_ISOLATED_WARNING, serveModelWorker, wasmThreads } from './serve-model-worker.ts';

describe('wasmThreads', () => {
  it('uses every core when the page is cross-origin isolated, and one thread when it is not', () => {
    expect(wasmThreads({ crossOriginIsolated: true, navigator: { hardwareConcurrency: 8 } })).toBe(8);
    expect(wasmThreads({ crossOriginIsolated: false, navigator: { hardwareConcurrency: 8 } })).toBe(1);
    expect(wasmThreads({ navigator: { hardwareConcurrency: 8 } })).toBe(1);
  });

  it('takes the count the consumer asks for, where threads can run at all', () => {
    expect(wasmThreads({ crossOriginIsolated: true, navigator: { hardwareConcurrency: 8 } }, 3)).toBe(3);
    expect(wasmThreads({ crossOriginIsolated: false, navigator: { hardwareConcurrency: 8 } }, 3)).toBe(1);
    expect(wasmThreads({ crossOriginIsolated: true, navigator: {} })).toBe(1);
  });
});

describe('a page that is not cross-origin isolated (issue 42)', () => {
  it('is told by its model worker, in the console, what it costs and which headers fix it; an isolated page is told nothing', () => {
    const warn = vi.spyOn(console, 'warn').mockImplementation(() => undefined);
    const scope = (crossOriginIsolated: boolean) => ({
      location: { href: 'https://app.example/assets/worker.js' },
      navigator: { hardwareConcurrency: 4 },
      crossOriginIsolated,
      postMessage: () => undefined,
      addEventListener: () => undefined,
    });
    try {
      serveModelWorker(scope(true));
      expect(warn).not.toHaveBeenCalled();
      serveModelWorker(scope(false));
      expect(warn.mock.calls.map((call) => call[0])).toEqual([NOT_ISOLATED_WARNING]);
      expect(NOT_ISOLATED_WARNING).toContain('Cross-Origin-Opener-Policy: same-origin');
    } finally {
      warn.mockRestore();
    }
  });
});
