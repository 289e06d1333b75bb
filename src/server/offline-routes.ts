import type { RuntimeCaching } from 'workbox-build';

/**
 * The build's large files a visit may never need, as precache globs: ONNX Runtime's CPU and WebGPU builds'
 * WebAssembly (14 and 27 MB; a device runs one) and pdf.js (only for an attached PDF). Each is kept in
 * {@link ON_DEMAND_CACHE} once fetched: the model worker puts the build it loaded there itself
 * (`src/app/worker-entry.ts`), since a first visit's worker may start before the service worker controls it.
 */
export const ON_DEMAND_ASSETS = ['**/ort-wasm*.wasm', '**/pdf.worker*', '**/pdf-text-*'];

/** The cache those files are kept in, and read from offline. */
export const ON_DEMAND_CACHE = 'nexus-on-demand';

/**
 * How the installed page's service worker answers what its precache does not: the routes Workbox is
 * built with (vite.config.ts). The page and tools.js put the server first, so what the operator serves now is what runs:
 *
 * - a navigation goes to the network whenever the server answers, so the page arrives with the
 *   server's current policy; only offline is the precached page served (issue 41, item 7);
 * - `tools.js`, the operator's to edit without a rebuild, comes from the network, and from the cache
 *   only when the network fails. No time limit: a slow server must not make the page run an old copy
 *   (a tool the operator removed) — the page waits for the current one instead (issue 41);
 * - {@link ON_DEMAND_ASSETS}, left out of the precache, from the cache once fetched (a hashed file never changes).
 *
 * Each `urlPattern` is copied into the service worker as its source text: it may use nothing from this module.
 */
export const OFFLINE_ROUTES: RuntimeCaching[] = [
  {
    urlPattern: ({ request, url, sameOrigin }) => sameOrigin && request.mode === 'navigate' && !/^\/(?:api|mcp-relay|models)\//.test(url.pathname),
    handler: 'NetworkOnly',
    options: { precacheFallback: { fallbackURL: 'index.html' } },
  },
  {
    // ON_DEMAND_ASSETS, as the path of a hashed build file.
    urlPattern: ({ url, sameOrigin }) => sameOrigin && /\/assets\/(?:ort-wasm[^/]*\.wasm|pdf\.worker[^/]*|pdf-text-[^/]*)$/.test(url.pathname),
    handler: 'CacheFirst',
    options: { cacheName: ON_DEMAND_CACHE, expiration: { maxEntries: 16 } },
  },
  {
    urlPattern: ({ url, sameOrigin }) => sameOrigin && url.pathname.endsWith('/tools.js'),
    handler: 'NetworkFirst',
    options: { cacheName: 'nexus-tools' },
  },
];
