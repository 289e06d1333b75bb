import { describe, expect, it } from 'vitest';
import { proxyOptionsFromEnv, sessionStoreFromEnv } from './env-options.ts';

describe('proxyOptionsFromEnv', () => {
  it('reads the documented variables', () => {
    expect(
      proxyOptionsFromEnv({
        SEARXNG_URL: 'http://127.0.0.1:8888',
        PROXY_TOKEN: 'a-long-shared-token-123',
        PROXY_ORIGINS: 'https://chat.example.org, http://10.0.0.2:4173',
        PROXY_SEARCH_BUDGET: '20',
        PROXY_PAGE_BUDGET: '4',
      }),
    ).toEqual({
      searxngUrl: 'http://127.0.0.1:8888/',
      token: 'a-long-shared-token-123',
      origins: ['https://chat.example.org', 'http://10.0.0.2:4173'],
      budgets: { searches: 20, pages: 4 },
    });
    expect(proxyOptionsFromEnv({})).toEqual({});
  });

  it('fails at start on malformed values', () => {
    expect(() => proxyOptionsFromEnv({ SEARXNG_URL: 'file:///x' })).toThrow(/SEARXNG_URL/);
    expect(() => proxyOptionsFromEnv({ PROXY_TOKEN: 'short' })).toThrow(/PROXY_TOKEN/);
    expect(() => proxyOptionsFromEnv({ PROXY_ORIGINS: 'not an origin' })).toThrow(/PROXY_ORIGINS/);
    expect(() => proxyOptionsFromEnv({ PROXY_PAGE_BUDGET: '-1' })).toThrow(/PROXY_PAGE_BUDGET/);
    expect(() => proxyOptionsFromEnv({ PROXY_TRUST_PROXY: 'the balancer' })).toThrow(/PROXY_TRUST_PROXY has an invalid entry: the balancer \(give a hop count/);
  });

  it('reads PROXY_TRUST_PROXY as a hop count or addresses and ranges, and refuses true (any client would pick its rate-limit address; issue 41)', () => {
    expect(proxyOptionsFromEnv({ PROXY_TRUST_PROXY: '1' }).trustProxy).toBe(1);
    expect(() => proxyOptionsFromEnv({ PROXY_TRUST_PROXY: 'true' })).toThrow(
      /PROXY_TRUST_PROXY=true would let any client choose the address its rate limit counts/,
    );
    expect(proxyOptionsFromEnv({ PROXY_TRUST_PROXY: '10.0.0.0/8, 127.0.0.1, loopback' }).trustProxy).toEqual(['10.0.0.0/8', '127.0.0.1', 'loopback']);
  });
});

describe('sessionStoreFromEnv', () => {
  it('keeps answers in memory without REDIS_URL, and refuses a REDIS_URL that is not a redis address, naming it', async () => {
    expect(await sessionStoreFromEnv({})).toBeUndefined();
    await expect(sessionStoreFromEnv({ REDIS_URL: 'localhost:6379' })).rejects.toThrow(/REDIS_URL must be a redis:\/\/ or rediss:\/\/ address/);
    await expect(sessionStoreFromEnv({ REDIS_URL: 'not a url' })).rejects.toThrow(/REDIS_URL is not a valid address/);
  });
});
