import type { IncomingMessage, ServerResponse } from 'node:http';
import { basename } from 'node:path';

/** What a dev server refuses: a status and one line saying why. */
interface Refusal {
  status: number;
  message: string;
}

/** Files of the server's own configuration, which the folder the dev server serves may hold beside the page. */
function isServerConfig(path: string, configFiles: readonly string[]): boolean {
  const name = basename(path).toLowerCase();
  return name.startsWith('.env') || configFiles.some((file) => basename(file).toLowerCase() === name);
}

/**
 * Whether a request comes from a page of another origin: its browser says so (`Sec-Fetch-Site` of
 * `same-site` or `cross-site`: another port on 127.0.0.1 is the same *site*), or its `Origin` is not
 * the address it asked.
 */
function fromAnotherOrigin(request: IncomingMessage): boolean {
  const site = request.headers['sec-fetch-site'];
  if (site === 'cross-site' || site === 'same-site') return true;
  const origin = request.headers.origin;
  if (origin === undefined) return false;
  try {
    return new URL(origin).host !== request.headers.host;
  } catch {
    // `null` (a sandboxed or file page) and anything unreadable are not this origin.
    return true;
  }
}

/**
 * Why `npm run dev` or `vite preview` refuses a request, or undefined to serve it. Vite serves every
 * file of the project folder, and answers other local origins' reads: without this, any page on
 * another 127.0.0.1 port could read `mcp-servers.json` (its `headers` hold the relayed servers'
 * tokens) and the operator's `tools.js`.
 *
 * @param request - the request as the dev server received it.
 * @param configFiles - the server's configuration files (`mcp-servers.json`, `MCP_SERVERS_FILE`).
 *
 * @remarks Security: issue 41. Threat: a page on another local port (or a site reaching the dev server
 * through DNS rebinding) reading the server's credentials or tool code.
 */
function devRequestRefusal(request: IncomingMessage, configFiles: readonly string[]): Refusal | undefined {
  let path: string;
  try {
    path = decodeURIComponent(new URL(request.url ?? '/', 'http://dev.invalid').pathname);
  } catch {
    return { status: 400, message: 'The address is not valid.' };
  }
  if (isServerConfig(path, configFiles)) return { status: 404, message: 'Not found: the server’s configuration is not served.' };
  if (basename(path) === 'tools.js' && fromAnotherOrigin(request)) {
    return { status: 403, message: 'tools.js is served to this page’s own origin only.' };
  }
  return undefined;
}

/**
 * Connect middleware applying {@link devRequestRefusal}, first in a dev or preview server.
 * @param configFiles - the server's configuration files.
 */
export function devFileGuard(configFiles: readonly string[]): (request: IncomingMessage, response: ServerResponse, next: () => void) => void {
  return (request, response, next) => {
    const refusal = devRequestRefusal(request, configFiles);
    if (!refusal) return next();
    response.writeHead(refusal.status, { 'Content-Type': 'text/plain; charset=utf-8', 'Cache-Control': 'no-store' });
    response.end(refusal.message);
  };
}
