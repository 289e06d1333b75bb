import { describe, expect, it } from 'vitest';
import { proxyOptionsFromEnv } from './env-options.ts';

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
  });
});
