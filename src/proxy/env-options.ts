import type { ProxyOptions } from './server.ts';

/**
 * Reads the proxy's configuration from the environment:
 * `SEARXNG_URL` (http(s) base address of a SearXNG/searx instance; without it, Wikipedia search),
 * `PROXY_TOKEN` (shared token required on every request), `PROXY_ORIGINS` (comma-separated extra
 * allowed origins), `PROXY_SEARCH_BUDGET` / `PROXY_PAGE_BUDGET` (per-answer budgets, default 16/12),
 * `PROXY_WIKIPEDIA_LANG` (default `en`), `PROXY_LOG_LEVEL` (default `info`).
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
  return options;
}

function budget(value: string | undefined, name: string): number | undefined {
  if (value === undefined || value.trim() === '') return undefined;
  const n = Number(value);
  if (!Number.isInteger(n) || n < 0 || n > 1000) throw new Error(`${name} must be a whole number from 0 to 1000`);
  return n;
}
