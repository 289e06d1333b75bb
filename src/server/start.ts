/**
 * `npm start`: serves the built page and the companion proxy (`/api/*`) on one local port.
 * Environment: `PORT` (default 4173), `HOST` (default 127.0.0.1), `MODELS_DIR` (a folder of model
 * folders served at `/models/`, e.g. `MODELS_DIR=tests/fixtures/models` then `?model=/models/tiny-random-qwen3`),
 * `CONNECT_ORIGINS` (more origins the page may fetch from, for its Content-Security-Policy),
 * `MCP_SERVERS` / `mcp-servers.json` (MCP servers the app server relays to; see `mcp-relay.ts`).
 */
import { existsSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { assertSafeBind, createProxy, mountProxy, proxyOptionsFromEnv, sessionStoreFromEnv, type ProxyOptions } from '../proxy/index.ts';
import { startAppServer } from './app-server.ts';
import { connectOriginsFromEnv, pageSecurityHeaders } from './page-policy.ts';
import { createMcpRelay, mcpRelayServersFromEnv, type McpRelayServer } from './mcp-relay.ts';

const host = process.env.HOST ?? '127.0.0.1';
let proxyOptions: ProxyOptions;
let pageHeaders: Record<string, string>;
let relayed: McpRelayServer[];
let relay: ReturnType<typeof createMcpRelay>;
try {
  relayed = mcpRelayServersFromEnv();
  pageHeaders = pageSecurityHeaders({ connectOrigins: connectOriginsFromEnv() });
  proxyOptions = proxyOptionsFromEnv();
  // Listening beyond this machine without a token would make it an open search-and-fetch proxy.
  assertSafeBind(host, proxyOptions.token);
  // MCP servers the page may not reach itself (CORS), relayed to the listed addresses only.
  relay = createMcpRelay({
    servers: relayed,
    guard: { ...(proxyOptions.token ? { token: proxyOptions.token } : {}), ...(proxyOptions.origins ? { origins: proxyOptions.origins } : {}) },
  });
  const store = await sessionStoreFromEnv();
  if (store) proxyOptions.store = store;
} catch (error) {
  console.error((error as Error).message);
  process.exit(1);
}

const root = fileURLToPath(new URL('../../dist/app/', import.meta.url));
if (!existsSync(`${root}index.html`)) {
  console.error(`No built page in ${root}. Run "npm run build" first (npm start does it for you).`);
  process.exit(1);
}
const port = Number(process.env.PORT ?? 4173);
const modelsDir = process.env.MODELS_DIR;
// The companion proxy answers /api/* on the same origin, so the page never fetches third-party pages itself.
const proxy = createProxy(proxyOptions);
const proxyRoutes = mountProxy(proxy);
const app = await startAppServer({
  before: async (req, res) => (await relay(req, res)) || proxyRoutes(req, res),
  root,
  pageHeaders,
  host,
  port,
  // The page answers the same hosts as the proxy: this machine's names, and PROXY_ORIGINS.
  ...(proxyOptions.origins ? { allowedHosts: proxyOptions.origins } : {}),
  // A folder of model folders, served at /models/ so the page can load one without the hub.
  ...(modelsDir ? { mounts: { '/models/': modelsDir } } : {}),
});
const search = process.env.SEARXNG_URL ? `SearXNG at ${process.env.SEARXNG_URL}` : 'Wikipedia (set SEARXNG_URL to use SearXNG)';
const mcp = relayed.length ? `; MCP servers relayed: ${relayed.map((server) => server.name).join(', ')}` : '';
console.log(`Nexus Chat is running at ${app.url}  (web search: ${search}${mcp}; Ctrl+C to stop)`);
for (const signal of ['SIGINT', 'SIGTERM'] as const) {
  process.once(signal, () => void Promise.all([app.close(), proxy.close()]).then(() => process.exit(0)));
}
