import { describe, expect, it } from 'vitest';
import { wasmThreads } from './serve-model-worker.ts';

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
