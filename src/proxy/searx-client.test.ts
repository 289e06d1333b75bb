import '../../tests/proxy/helpers/no-egress.ts';
import { describe, expect, it, vi } from 'vitest';
import { SearchFailedError } from './errors.ts';
import { createSearxBackend, parseSearxResponse, resultDate } from './searx-client.ts';

/** searx 1.1.0 (Debian bookworm) shape. */
const SEARX_OLD = {
  query: 'rust jobs',
  number_of_results: 0,
  results: [
    {
      url: 'https://jobs.example/rust',
      title: 'Rust engineer',
      content: 'We are hiring',
      engine: 'duckduckgo',
      engines: ['duckduckgo', 'brave'],
      publishedDate: 'Jan 5, 2023',
      pubdate: '2023-01-05 00:00:00+0000',
    },
    { url: 'https://news.example/x', title: 'News', content: '', engine: 'bing', publishedDate: '3 hour(s), 2 minute(s) ago' },
    { url: 'ftp://files.example/x', title: 'not web', content: '', engine: 'x' },
    { url: 'javascript:alert(1)', title: 'bad', content: '', engine: 'x' },
    'junk',
  ],
  answers: ['42'],
  corrections: [],
  infoboxes: [],
  suggestions: [],
  unresponsive_engines: [
    ['brave', 'too many requests'],
    ['google', 'HTTP error'],
  ],
};

/** SearXNG (2026) shape: ISO dates or null, answers as objects, no number_of_results. */
const SEARXNG_NEW = {
  query: 'rust jobs',
  results: [
    {
      url: 'https://jobs.example/rust',
      title: 'Rust engineer',
      content: 'Apply now',
      engine: 'google',
      engines: ['google'],
      publishedDate: '2026-10-01T09:30:00',
      pubdate: '2026-10-01 09:30:00+0000',
    },
    { url: 'https://blog.example/post', title: 'Post', content: 'c', engines: ['startpage'], publishedDate: null },
  ],
  answers: [{ answer: 'An answer object', url: 'https://a.example/' }],
  corrections: [],
  infoboxes: [],
  suggestions: [],
  unresponsive_engines: [['brave', 'Suspended: too many requests']],
};

describe('parseSearxResponse', () => {
  it('reads the old searx shape', () => {
    const parsed = parseSearxResponse(SEARX_OLD);
    expect(parsed.hits).toEqual([
      { title: 'Rust engineer', url: 'https://jobs.example/rust', snippet: 'We are hiring', engine: 'duckduckgo', date: '2023-01-05' },
      { title: 'News', url: 'https://news.example/x', snippet: '', engine: 'bing', date: '3 hour(s), 2 minute(s) ago' },
    ]);
    expect(parsed.answers).toEqual(['42']);
    expect(parsed.unresponsive).toEqual([
      { engine: 'brave', reason: 'too many requests' },
      { engine: 'google', reason: 'HTTP error' },
    ]);
    expect(parsed.numberOfResults).toBe(0);
  });

  it('reads the SearXNG shape', () => {
    const parsed = parseSearxResponse(SEARXNG_NEW);
    expect(parsed.hits.map((h) => [h.engine, h.date])).toEqual([
      ['google', '2026-10-01'],
      ['startpage', null],
    ]);
    expect(parsed.answers).toEqual(['An answer object']);
    expect(parsed.unresponsive).toEqual([{ engine: 'brave', reason: 'Suspended: too many requests' }]);
    expect(parsed.numberOfResults).toBeUndefined();
  });

  it('tolerates garbage and caps the results', () => {
    expect(parseSearxResponse(null)).toEqual({ hits: [], answers: [], unresponsive: [] });
    expect(parseSearxResponse({ results: 'x', unresponsive_engines: [[1, 2], 'x', { engine: 'e', error: 'timeout' }] })).toEqual({
      hits: [],
      answers: [],
      unresponsive: [{ engine: 'e', reason: 'timeout' }],
    });
    const many = { results: Array.from({ length: 30 }, (_, i) => ({ url: `https://a.example/${i}`, title: `t${i}` })) };
    expect(parseSearxResponse(many, 5).hits).toHaveLength(5);
  });

  it('resultDate prefers ISO, then pubdate, then the display string', () => {
    expect(resultDate('2024-02-03T00:00:00Z', undefined)).toBe('2024-02-03');
    expect(resultDate('Feb 3, 2024', '2024-02-03 10:00:00+0100')).toBe('2024-02-03');
    expect(resultDate('yesterday', undefined)).toBe('yesterday');
    expect(resultDate(null, null)).toBeNull();
    expect(resultDate('2024-13-40', undefined)).toBe('2024-13-40');
  });
});

describe('createSearxBackend', () => {
  function backendWith(respond: (url: URL) => Response) {
    const fetch = vi.fn(async (input: string) => respond(new URL(input)));
    return { fetch, backend: createSearxBackend({ baseUrl: 'http://127.0.0.1:1/searx/', fetch }) };
  }

  it('sends q, format=json, pageno and the time range', async () => {
    const { fetch, backend } = backendWith(() => Response.json(SEARXNG_NEW));
    await backend.search('rust jobs', { timeRange: 'week' });
    const url = new URL(fetch.mock.calls[0]?.[0] ?? '');
    expect(url.pathname).toBe('/searx/search');
    expect(Object.fromEntries(url.searchParams)).toEqual({ q: 'rust jobs', format: 'json', pageno: '1', time_range: 'week' });
    await backend.search('x');
    expect(new URL(fetch.mock.calls[1]?.[0] ?? '').searchParams.has('time_range')).toBe(false);
  });

  it('turns HTTP and format errors into SearchFailedError with a reason', async () => {
    await expect(backendWith(() => new Response('no', { status: 403 })).backend.search('x')).rejects.toThrow(/JSON output/);
    await expect(backendWith(() => new Response('x', { status: 500 })).backend.search('x')).rejects.toThrow(SearchFailedError);
    await expect(backendWith(() => new Response('<html>')).backend.search('x')).rejects.toThrow(/did not answer JSON/);
    const unreachable = createSearxBackend({
      baseUrl: 'http://127.0.0.1:1',
      fetch: async () => {
        throw new TypeError('fetch failed');
      },
    });
    await expect(unreachable.search('x')).rejects.toThrow(/could not be reached/);
  });
});
