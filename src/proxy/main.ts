/**
 * `npm run proxy`: the companion proxy alone, on 127.0.0.1:PORT (default 8787).
 * Environment: `PORT`, `PROXY_HOST` (default 127.0.0.1), `SEARXNG_URL`, `PROXY_TOKEN`,
 * `PROXY_ORIGINS`, `PROXY_SEARCH_BUDGET`, `PROXY_PAGE_BUDGET`, `PROXY_WIKIPEDIA_LANG`, `PROXY_LOG_LEVEL`,
 * `PROXY_TRUST_PROXY`, `REDIS_URL` (answers shared by instances behind a balancer), `REDIS_PREFIX`.
 * Listening on anything but loopback requires `PROXY_TOKEN`.
 */
import { proxyOptionsFromEnv, sessionStoreFromEnv } from './env-options.ts';
import { assertSafeBind } from './bind-guard.ts';
import { createProxy } from './server.ts';

const host = process.env.PROXY_HOST ?? '127.0.0.1';
const port = Number(process.env.PORT ?? 8787);
let options: ReturnType<typeof proxyOptionsFromEnv>;
try {
  options = proxyOptionsFromEnv(process.env);
} catch (error) {
  console.error(`Proxy configuration error: ${(error as Error).message}`);
  process.exit(1);
}
try {
  assertSafeBind(host, options.token);
} catch (error) {
  console.error((error as Error).message);
  process.exit(1);
}
try {
  const store = await sessionStoreFromEnv(process.env);
  if (store) options.store = store;
} catch (error) {
  console.error(`Proxy configuration error: ${(error as Error).message}`);
  process.exit(1);
}
const app = createProxy(options);
try {
  const address = await app.listen({ host, port });
  console.error(
    `Nexus companion proxy on ${address}/api/ (search: ${options.searxngUrl ? 'SearXNG' : 'Wikipedia, no SEARXNG_URL set'}; answers in ${options.store ? 'Redis' : 'memory'})`,
  );
} catch (error) {
  console.error(`Could not start the proxy: ${(error as Error).message}`);
  process.exit(1);
}
for (const signal of ['SIGINT', 'SIGTERM'] as const) {
  process.once(signal, () => void app.close().then(() => process.exit(0)));
}
