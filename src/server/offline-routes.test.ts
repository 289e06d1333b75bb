import { describe, expect, it } from 'vitest';
import { OFFLINE_ROUTES } from './offline-routes.ts';

/** The route Workbox would pick for a request, as its router matches them: the first whose pattern says yes. */
function routeFor(path: string, mode: RequestMode = 'cors') {
  const url = new URL(path, 'https://app.example/');
  const request = { mode } as Request;
  return OFFLINE_ROUTES.find((route) => typeof route.urlPattern === 'function' && route.urlPattern({ url, request, sameOrigin: true } as never));
}

describe('the installed page puts the server first', () => {
  it('fetches tools.js from the network, with no time limit: the cached copy only when the network fails (issue 41)', () => {
    const route = routeFor('/tools.js');
    expect(route?.handler).toBe('NetworkFirst');
    // A network timeout would answer a slow server with an old tools.js, a removed tool included.
    expect(route?.options).not.toHaveProperty('networkTimeoutSeconds');
  });

  it('sends navigations to the network and falls back to the precached page only offline (issue 41, item 7)', () => {
    const route = routeFor('/', 'navigate');
    expect(route).toMatchObject({ handler: 'NetworkOnly', options: { precacheFallback: { fallbackURL: 'index.html' } } });
    expect(routeFor('/api/search', 'navigate')).toBeUndefined();
    expect(routeFor('/mcp-relay/notes', 'navigate')).toBeUndefined();
  });
});

describe('files a visit may never need (issue 54)', () => {
  it('are read from their own cache once fetched, the precache leaving them out', async () => {
    const { ON_DEMAND_ASSETS, ON_DEMAND_CACHE } = await import('./offline-routes.ts');
    for (const path of [
      '/assets/ort-wasm-simd-threaded-4byDm7i3.wasm',
      '/assets/ort-wasm-simd-threaded.asyncify-CxOG5pUO.wasm',
      '/assets/pdf.worker.min-CIqJB0yW.mjs',
      '/assets/pdf-text-CQX8bctj.js',
    ]) {
      expect(routeFor(path)).toMatchObject({ handler: 'CacheFirst', options: { cacheName: ON_DEMAND_CACHE } });
    }
    // ONNX Runtime's small loader scripts stay precached (a worker imports them, which its fetch does not see).
    expect(routeFor('/assets/ort-wasm-simd-threaded-BQJNh0bu.mjs')).toBeUndefined();
    expect(routeFor('/assets/index-B-hN_GLi.js')).toBeUndefined();
    expect(ON_DEMAND_ASSETS).toEqual(['**/ort-wasm*.wasm', '**/pdf.worker*', '**/pdf-text-*']);
  });
});

it("names the cache the model worker keeps ONNX Runtime's build in", async () => {
  const { ON_DEMAND_CACHE } = await import('./offline-routes.ts');
  const source = await (await import('node:fs/promises')).readFile(new URL('../app/worker-entry.ts', import.meta.url), 'utf8');
  expect(source).toContain(`export const ON_DEMAND_CACHE = '${ON_DEMAND_CACHE}';`);
});
