import '../../tests/proxy/helpers/no-egress.ts';
import { describe, expect, it, vi } from 'vitest';
import { SearchFailedError } from './errors.ts';
import { PROXY_USER_AGENT } from './safe-fetch.ts';
import { WIKIPEDIA_ENGINE, articleUrl, createWikipediaBackend, parseWikipediaResponse } from './wikipedia-search.ts';

const ANSWER = {
  batchcomplete: true,
  query: {
    searchinfo: { totalhits: 2 },
    search: [
      {
        ns: 0,
        title: 'Rust (programming language)',
        pageid: 1,
        snippet: '<span class="searchmatch">Rust</span> is a &quot;systems&quot; language',
        timestamp: '2026-09-30T12:00:00Z',
      },
      { ns: 0, title: 'AC/DC', pageid: 2, snippet: 'band', timestamp: 'bad' },
    ],
  },
};

describe('Wikipedia search (the embedded default)', () => {
  it('queries the keyless search API with the project user agent, through the injected fetch only', async () => {
    const fetch = vi.fn(async (_input: string, _init?: RequestInit) => Response.json(ANSWER));
    const backend = createWikipediaBackend({ fetch, lang: 'de' });
    const result = await backend.search('rust language', { timeRange: 'week' });
    expect(fetch).toHaveBeenCalledTimes(1);
    const url = new URL(fetch.mock.calls[0]?.[0] ?? '');
    expect(url.origin + url.pathname).toBe('https://de.wikipedia.org/w/api.php');
    expect(url.searchParams.get('list')).toBe('search');
    expect(url.searchParams.get('srsearch')).toBe('rust language');
    expect(((fetch.mock.calls[0]?.[1]?.headers ?? {}) as Record<string, string>)['user-agent']).toBe(PROXY_USER_AGENT);
    expect(result.hits[0]).toEqual({
      title: 'Rust (programming language)',
      url: 'https://de.wikipedia.org/wiki/Rust_(programming_language)',
      snippet: 'Rust is a "systems" language',
      engine: WIKIPEDIA_ENGINE,
      date: '2026-09-30',
    });
    expect(result.hits[1]).toMatchObject({ url: 'https://de.wikipedia.org/wiki/AC/DC', date: null });
  });

  it('every result and the backend note say it is the Wikipedia default', () => {
    const backend = createWikipediaBackend({ fetch: async () => Response.json(ANSWER) });
    expect(backend.name).toBe('wikipedia');
    expect(backend.note).toContain('No SearXNG is configured');
    expect(parseWikipediaResponse(ANSWER, 'en').hits.every((h) => h.engine.includes('embedded default'))).toBe(true);
  });

  it('reports API errors and HTTP errors as SearchFailedError', async () => {
    expect(() => parseWikipediaResponse({ error: { code: 'x', info: 'bad request' } }, 'en')).toThrow(/bad request/);
    const backend = createWikipediaBackend({ fetch: async () => new Response('x', { status: 503 }) });
    await expect(backend.search('x')).rejects.toThrow(SearchFailedError);
  });

  it('ignores an unsafe language value', async () => {
    const fetch = vi.fn(async (_input: string) => Response.json(ANSWER));
    await createWikipediaBackend({ fetch, lang: 'evil.example/x?' }).search('x');
    expect(new URL(fetch.mock.calls[0]?.[0] ?? '').host).toBe('en.wikipedia.org');
    expect(articleUrl('en', 'A b:c,d?')).toBe('https://en.wikipedia.org/wiki/A_b:c,d%3F');
  });
});
