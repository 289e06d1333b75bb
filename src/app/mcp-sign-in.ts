import { createStore, del, get, set } from 'idb-keyval';
import type { McpSignInDeps } from './mcp-page-client.ts';

/** The channel the sign-in callback page (`public/mcp-oauth-callback.js`) answers on. */
const CHANNEL = 'nexus-mcp-oauth';

/**
 * Sign-ins to MCP servers from this page: the authorization server redirects a sign-in window to the
 * callback page beside the app, which hands the code back over a `BroadcastChannel` of this origin,
 * matched by `state`; registrations and tokens are kept in IndexedDB, so a reload stays signed in.
 * @param redirectUrl - the callback page's address, as registered with the authorization server.
 */
export function browserSignIn(redirectUrl: string): McpSignInDeps {
  const store = createStore('nexus-mcp-oauth', 'sign-ins');
  return {
    redirectUrl,
    waitForCode: (state) =>
      new Promise<string>((resolve, reject) => {
        const channel = new BroadcastChannel(CHANNEL);
        channel.onmessage = (event: MessageEvent<{ state?: string; code?: string; error?: string; description?: string }>) => {
          if (event.data?.state !== state) return;
          channel.close();
          if (event.data.code) resolve(event.data.code);
          else reject(new Error(`the authorization server said ${event.data.error ?? 'no'}${event.data.description ? `: ${event.data.description}` : ''}`));
        };
      }),
    store: {
      get: (key) => get(key, store),
      set: (key, value) => set(key, value, store),
      delete: (key) => del(key, store),
    },
  };
}
