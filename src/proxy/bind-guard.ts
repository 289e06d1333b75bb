import { isLoopbackHost } from './request-guard.ts';

/**
 * Refuses to serve the proxy on an address other machines can reach unless a shared token is set.
 * `npm start`, `npm run dev` and `npm run proxy` all call it before they listen.
 *
 * @param host - the address to bind: a name or IP, `true` (Vite's "all addresses"), or undefined
 * (the loopback default).
 * @param token - `PROXY_TOKEN`, if set.
 * @throws Error saying what was refused and how to set the token.
 *
 * @remarks Security: the proxy's front door. Threat: `HOST=0.0.0.0 npm start` turning the machine
 * into an open search-and-fetch proxy for the LAN — the Host and Origin checks stop browsers, but a
 * non-browser client sets those headers at will; only the token stops it.
 */
export function assertSafeBind(host: string | boolean | undefined, token: string | undefined): void {
  if (host === undefined || host === false || host === '') return;
  if (typeof host === 'string' && isLoopbackHost(host)) return;
  if (token && token.trim() !== '') return;
  const shown = host === true ? 'all addresses' : host;
  throw new Error(
    `Refusing to listen on ${shown} without PROXY_TOKEN: anyone who can reach it could use it to search and fetch. ` +
      'Set a shared token of at least 16 characters, e.g. PROXY_TOKEN=$(openssl rand -hex 16), and send it as ' +
      '"Authorization: Bearer <token>"; or listen on 127.0.0.1 only.',
  );
}
