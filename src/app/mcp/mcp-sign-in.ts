import type { McpSignInDeps } from './mcp-page-client.ts';

/** The channel the sign-in callback page (`public/mcp-oauth-callback.js`) answers on. */
const CHANNEL = 'nexus-mcp-oauth';

/**
 * Sign-ins to MCP servers from this page: the authorization server redirects a sign-in window to the
 * callback page beside the app, which hands the code back over a `BroadcastChannel` of this origin,
 * matched by `state`; registrations and tokens are kept in IndexedDB (idb-keyval, loaded when first
 * used, as the page's other stores do), so a reload stays signed in.
 * @param redirectUrl - the callback page's address, as registered with the authorization server.
 * @param clientMetadataUrl - the page's client metadata document, where it is served (https): the page's
 *   client id where an authorization server accepts one, with no registration.
 */
export function browserSignIn(redirectUrl: string, clientMetadataUrl?: string): McpSignInDeps {
  let opened: Promise<{ idb: typeof import('idb-keyval'); store: ReturnType<typeof import('idb-keyval')['createStore']> }> | undefined;
  const open = () => (opened ??= import('idb-keyval').then((idb) => ({ idb, store: idb.createStore('nexus-mcp-oauth', 'sign-ins') })));
  return {
    redirectUrl,
    ...(clientMetadataUrl ? { clientMetadataUrl } : {}),
    waitForCode: (state) =>
      new Promise<{ code: string; iss?: string }>((resolve, reject) => {
        const channel = new BroadcastChannel(CHANNEL);
        channel.onmessage = (event: MessageEvent<{ state?: string; code?: string; iss?: string; error?: string; description?: string }>) => {
          if (event.data?.state !== state) return;
          channel.close();
          if (event.data.code) resolve({ code: event.data.code, ...(typeof event.data.iss === 'string' ? { iss: event.data.iss } : {}) });
          else reject(new Error(`the authorization server said ${event.data.error ?? 'no'}${event.data.description ? `: ${event.data.description}` : ''}`));
        };
      }),
    store: {
      get: async (key) => open().then(({ idb, store }) => idb.get(key, store)),
      set: async (key, value) => open().then(({ idb, store }) => idb.set(key, value, store)),
      delete: async (key) => open().then(({ idb, store }) => idb.del(key, store)),
    },
  };
}
