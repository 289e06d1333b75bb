import type { RuntimeCaching } from 'workbox-build';

/**
 * How the installed page's service worker answers what its precache does not: the routes Workbox is
 * built with (vite.config.ts). Both put the server first, so what the operator serves now is what runs:
 *
 * - a navigation goes to the network whenever the server answers, so the page arrives with the
 *   server's current policy; only offline is the precached page served (issue 41, item 7);
 * - `tools.js`, the operator's to edit without a rebuild, comes from the network, and from the cache
 *   only when the network fails. No time limit: a slow server must not make the page run an old copy
 *   (a tool the operator removed) — the page waits for the current one instead (issue 41).
 */
export const OFFLINE_ROUTES: RuntimeCaching[] = [
  {
    urlPattern: ({ request, url, sameOrigin }) => sameOrigin && request.mode === 'navigate' && !/^\/(?:api|mcp-relay|models)\//.test(url.pathname),
    handler: 'NetworkOnly',
    options: { precacheFallback: { fallbackURL: 'index.html' } },
  },
  {
    urlPattern: ({ url, sameOrigin }) => sameOrigin && url.pathname.endsWith('/tools.js'),
    handler: 'NetworkFirst',
    options: { cacheName: 'nexus-tools' },
  },
];
