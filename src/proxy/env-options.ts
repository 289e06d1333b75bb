import { RedisSessionStore } from './redis-session-store.ts';
import type { ProxyOptions } from './server.ts';
import type { SessionStore } from './session-store.ts';

/**
 * Reads the proxy's configuration from the environment:
 * `SEARXNG_URL` (http(s) base address of a SearXNG/searx instance; without it, Wikipedia search),
 * `PROXY_TOKEN` (shared token required on every request), `PROXY_ORIGINS` (comma-separated extra
 * allowed origins), `PROXY_SEARCH_BUDGET` / `PROXY_PAGE_BUDGET` (per-answer budgets, default 16/12),
 * `PROXY_WIKIPEDIA_LANG` (default `en`), `PROXY_LOG_LEVEL` (default `info`), `PROXY_TRUST_PROXY`
 * (behind a balancer: how many proxy hops, or which addresses, to believe about the client's address,
 * so the rate limit counts per client). `REDIS_URL` is read by {@link sessionStoreFromEnv}.
 *
 * @param env - the environment (default `process.env`).
 * @throws Error naming the variable when a value is malformed, so a bad deployment fails at start.
 */
export function proxyOptionsFromEnv(env: Record<string, string | undefined> = process.env): ProxyOptions {
  const options: ProxyOptions = {};
  const searx = env.SEARXNG_URL?.trim();
  if (searx) {
    let url: URL;
    try {
      url = new URL(searx);
    } catch {
      throw new Error('SEARXNG_URL is not a valid address');
    }
    if (url.protocol !== 'http:' && url.protocol !== 'https:') throw new Error('SEARXNG_URL must be an http(s) address');
    options.searxngUrl = url.href;
  }
  const token = env.PROXY_TOKEN?.trim();
  if (token) {
    if (token.length < 16) throw new Error('PROXY_TOKEN must be at least 16 characters');
    options.token = token;
  }
  const origins = (env.PROXY_ORIGINS ?? '')
    .split(',')
    .map((o) => o.trim())
    .filter(Boolean);
  for (const origin of origins) {
    try {
      new URL(origin);
    } catch {
      throw new Error(`PROXY_ORIGINS has an invalid origin: ${origin}`);
    }
  }
  if (origins.length > 0) options.origins = origins;
  const searches = budget(env.PROXY_SEARCH_BUDGET, 'PROXY_SEARCH_BUDGET');
  const pages = budget(env.PROXY_PAGE_BUDGET, 'PROXY_PAGE_BUDGET');
  if (searches !== undefined || pages !== undefined) {
    options.budgets = { ...(searches !== undefined ? { searches } : {}), ...(pages !== undefined ? { pages } : {}) };
  }
  if (env.PROXY_WIKIPEDIA_LANG) options.wikipediaLang = env.PROXY_WIKIPEDIA_LANG;
  if (env.PROXY_LOG_LEVEL) options.logLevel = env.PROXY_LOG_LEVEL;
  const trust = env.PROXY_TRUST_PROXY?.trim();
  if (trust) options.trustProxy = trustProxyOf(trust);
  return options;
}

/**
 * `PROXY_TRUST_PROXY`: a hop count, or comma-separated addresses / CIDR ranges of the balancers. Not
 * `true`: trusting every hop lets any client name its own address in `X-Forwarded-For`, and so pick the
 * key its rate limit is counted under (issue 41).
 */
function trustProxyOf(value: string): NonNullable<ProxyOptions['trustProxy']> {
  if (value === 'false') return false;
  if (value === 'true') {
    throw new Error(
      'PROXY_TRUST_PROXY=true would let any client choose the address its rate limit counts: give the number of balancers in front (1) or their addresses / CIDR ranges (10.0.0.0/8)',
    );
  }
  if (/^\d+$/.test(value)) return Number(value);
  const ranges = value
    .split(',')
    .map((part) => part.trim())
    .filter(Boolean);
  for (const range of ranges) {
    if (!/^[0-9a-fA-F:.]+(\/\d{1,3})?$/.test(range) && !['loopback', 'linklocal', 'uniquelocal'].includes(range)) {
      throw new Error(
        `PROXY_TRUST_PROXY has an invalid entry: ${range} (give a hop count such as 1, or addresses / CIDR ranges such as 10.0.0.0/8, or loopback)`,
      );
    }
  }
  return ranges;
}

/**
 * The store for answers in progress that the environment asks for: Redis at `REDIS_URL` (shared by
 * every instance pointed at it; `REDIS_PREFIX` namespaces its keys, default `nexus:`), or undefined
 * for this process's memory.
 * @param env - the environment (default `process.env`).
 * @param log - told when the Redis connection is lost and back.
 * @throws Error naming `REDIS_URL` when it is malformed or Redis cannot be reached.
 */
export async function sessionStoreFromEnv(
  env: Record<string, string | undefined> = process.env,
  log: (line: string) => void = (line) => console.error(line),
): Promise<SessionStore | undefined> {
  const url = env.REDIS_URL?.trim();
  if (!url) return undefined;
  return RedisSessionStore.connect(url, {
    ...(env.REDIS_PREFIX ? { prefix: env.REDIS_PREFIX } : {}),
    onConnectionChange: (state, detail) =>
      log(state === 'lost' ? `Redis connection lost (${detail}): web tools answer 503 until it is back` : 'Redis connection back: web tools work again'),
  });
}

function budget(value: string | undefined, name: string): number | undefined {
  if (value === undefined || value.trim() === '') return undefined;
  const n = Number(value);
  if (!Number.isInteger(n) || n < 0 || n > 1000) throw new Error(`${name} must be a whole number from 0 to 1000`);
  return n;
}
