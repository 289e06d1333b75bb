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
