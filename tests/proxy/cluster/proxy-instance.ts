/**
 * One companion-proxy instance in its own process, for the cluster tests and the load bench: the
 * real `createProxy`, its answers in Redis when `REDIS_URL` is set (else in memory), reading the
 * loopback test web of the parent process. Test seams only, passed by environment:
 * `TEST_WEB_PORT` and `TEST_WEB_CA` (a CA file) map the test web's public-looking names to the
 * loopback server; searches answer from a fixed list of that web's pages. Prints `LISTENING <port>`.
 *
 * Environment: `PORT` (default 0: any), `REDIS_URL`, `SEARCH_BUDGET`, `PAGE_BUDGET`, `RATE_MAX`
 * (requests a minute, default off).
 */
import { readFileSync } from 'node:fs';
import { RedisSessionStore } from '../../../src/proxy/redis-session-store.ts';
import type { SearchBackend } from '../../../src/proxy/search-backend.ts';
import { createProxy } from '../../../src/proxy/server.ts';
import { DEFAULT_DNS, PUBLIC } from '../helpers/test-web.ts';

const env = process.env;
const webPort = Number(env.TEST_WEB_PORT);
if (!webPort) throw new Error('TEST_WEB_PORT is required');

/** Every query finds the same pages of the test web (numbered by the answer's ledger). */
const backend: SearchBackend = {
  name: 'searxng',
  async search(query) {
    return {
      hits: ['doc', 'post', 'guide'].map((path) => ({
        url: `https://${path === 'post' ? 'other.example' : 'site.example'}/${path}`,
        title: `${path} for ${query}`,
        snippet: `The ${path}`,
        date: '',
        engine: 'fixture',
      })),
      answers: [],
      unresponsive: [],
    };
  },
};

const store = env.REDIS_URL
  ? await RedisSessionStore.connect(env.REDIS_URL, {
      onConnectionChange: (state) => console.error(`redis ${state}`),
    })
  : undefined;
const app = createProxy({
  ...(store ? { store } : {}),
  backend,
  resolve: async (host) => {
    const addresses = DEFAULT_DNS[host];
    if (!addresses) throw Object.assign(new Error(`getaddrinfo ENOTFOUND ${host}`), { code: 'ENOTFOUND' });
    return addresses.map((address) => ({ address, family: address.includes(':') ? 6 : 4 }));
  },
  connectTo: (address) => {
    if (address !== PUBLIC.site && address !== PUBLIC.other) throw new Error(`test connector: ${address} is not a test address`);
    return { host: '127.0.0.1', port: webPort };
  },
  ca: readFileSync(env.TEST_WEB_CA ?? '', 'utf8'),
  budgets: { searches: Number(env.SEARCH_BUDGET ?? 16), pages: Number(env.PAGE_BUDGET ?? 12) },
  rateLimit: env.RATE_MAX ? { max: Number(env.RATE_MAX), timeWindowMs: 60_000 } : false,
  log: false,
});
const address = await app.listen({ host: '127.0.0.1', port: Number(env.PORT ?? 0) });
console.log(`LISTENING ${new URL(address).port}`);
for (const signal of ['SIGINT', 'SIGTERM'] as const) process.once(signal, () => void app.close().then(() => process.exit(0)));
