import { describe, expect, it, vi } from 'vitest';
import { AnswerSessions } from './answer-sessions.ts';
import { BudgetSpentError, SearchFailedError } from './errors.ts';
import type { BackendResult, SearchBackend } from './search-backend.ts';
import { runSearch } from './web-search.ts';

function fakeBackend(
  answers: Record<string, BackendResult | Error>,
  name: SearchBackend['name'] = 'searxng',
): SearchBackend & { calls: Array<[string, unknown]> } {
  const calls: Array<[string, unknown]> = [];
  return {
    name,
    calls,
    search: vi.fn(async (query: string, options?: unknown) => {
      calls.push([query, options]);
      const answer = answers[query] ?? { hits: [], answers: [], unresponsive: [] };
      if (answer instanceof Error) throw answer;
      return answer;
    }),
  };
}

const hit = (url: string, title = url, extra: Partial<BackendResult['hits'][number]> = {}) => ({
  url,
  title,
  snippet: `about ${title}`,
  engine: 'duckduckgo',
  date: null,
  ...extra,
});

describe('runSearch', () => {
  it('numbers results through the ledger, deduplicates by address, and marks result addresses as seen (rule 1)', async () => {
    const session = await new AnswerSessions().create('');
    const backend = fakeBackend({
      'rust jobs': { hits: [hit('https://a.example/1', 'One', { date: '2026-10-01' }), hit('https://b.example/2#x', 'Two')], answers: [], unresponsive: [] },
      remote: {
        hits: [hit('https://b.example/2', 'Two again'), hit('https://c.example/3', 'Three')],
        answers: ['an answer'],
        unresponsive: [{ engine: 'brave', reason: 'too many requests' }],
      },
    });
    const response = await runSearch(session, { query: 'rust jobs', queries: ['remote'] }, backend);
    expect(response.results.map((r) => [r.n, r.url])).toEqual([
      [1, 'https://a.example/1'],
      [2, 'https://b.example/2'],
      [3, 'https://c.example/3'],
    ]);
    expect(response.queries).toEqual([
      { query: 'rust jobs', results: 2 },
      { query: 'remote', results: 1 },
    ]);
    for (const url of ['https://a.example/1', 'https://b.example/2', 'https://c.example/3']) expect(session.hasSeen(url), url).toBe(true);
    expect(session.hasSeen('https://a.example/')).toBe(false);
    expect(response.unresponsive).toEqual([{ engine: 'brave', reason: 'too many requests' }]);
    expect(response.answers).toEqual(['an answer']);
    expect(response.budget.searches).toEqual({ used: 2, limit: 16 });
    expect(response.text).toContain('[1] One — https://a.example/1 (2026-10-01, duckduckgo)');
    expect(response.text).toContain('brave (too many requests)');
    expect(response.text.endsWith('Searches used 2 of 16; pages read 0 of 12')).toBe(true);

    const again = await runSearch(
      session,
      { query: 'c again' },
      fakeBackend({ 'c again': { hits: [hit('https://c.example/3')], answers: [], unresponsive: [] } }),
    );
    expect(again.results[0]?.n).toBe(3);
  });

  it('passes the normalised time range and searches the user words first, then sub-questions, then angles', async () => {
    const session = await new AnswerSessions().create('');
    const backend = fakeBackend({});
    const response = await runSearch(session, { query: 'acme rust', queries: ['remote', 'Acme Rust'], time_range: '7d', kind: 'jobs' }, backend);
    expect(backend.calls.map(([q]) => q)).toEqual(['acme rust', 'remote', 'acme rust job posting', 'acme rust careers', 'acme rust linkedin jobs']);
    expect(backend.calls.every(([, o]) => (o as { timeRange?: string }).timeRange === 'week')).toBe(true);
    expect(response.timeRange).toBe('week');
    const none = await runSearch(session, { query: 'x', time_range: 'fortnight' }, fakeBackend({}));
    expect(none.timeRange).toBeNull();
  });

  it('stops at the search budget: runs what fits, then answers "The search budget is spent"', async () => {
    const session = await new AnswerSessions({ budgets: { searches: 3 } }).create('');
    const backend = fakeBackend({});
    const first = await runSearch(session, { query: 'a', queries: ['b', 'c', 'd'] }, backend);
    expect(first.skipped).toEqual(['d']);
    expect(first.text).toContain('Not searched (the search budget ran out): "d"');
    await expect(runSearch(session, { query: 'e' }, backend)).rejects.toThrow(BudgetSpentError);
    await expect(runSearch(session, { query: 'e' }, backend)).rejects.toThrow(/The search budget is spent/);
    expect(backend.calls).toHaveLength(3);
  });

  it('says that no results from engines that did not answer is not proof of absence', async () => {
    const session = await new AnswerSessions().create('');
    const response = await runSearch(
      session,
      { query: 'x' },
      fakeBackend({ x: { hits: [], answers: [], unresponsive: [{ engine: 'google', reason: 'timeout' }] } }),
    );
    expect(response.text).toContain('No results — but these search engines did not answer');
    const plain = await runSearch(session, { query: 'y' }, fakeBackend({}));
    expect(plain.text).toContain('No results.');
  });

  it('caps snippets and reports a failed query; fails only when every query failed', async () => {
    const session = await new AnswerSessions().create('');
    const long = 'word '.repeat(200);
    const partial = await runSearch(
      session,
      { query: 'ok', queries: ['broken'] },
      fakeBackend({
        ok: { hits: [hit('https://a.example/', 'A', { snippet: long })], answers: [], unresponsive: [] },
        broken: new SearchFailedError('the search engine answered HTTP 500'),
      }),
    );
    expect(partial.results[0]?.snippet.length).toBeLessThanOrEqual(300);
    expect(partial.results[0]?.snippet.endsWith('…')).toBe(true);
    expect(partial.queries[1]).toEqual({ query: 'broken', results: 0, error: 'the search engine answered HTTP 500' });
    await expect(runSearch(session, { query: 'broken' }, fakeBackend({ broken: new SearchFailedError('down') }))).rejects.toThrow(SearchFailedError);
  });

  it('carries the Wikipedia note', async () => {
    const session = await new AnswerSessions().create('');
    const backend = { ...fakeBackend({}, 'wikipedia'), note: 'No SearXNG is configured, so this searched Wikipedia only.' };
    const response = await runSearch(session, { query: 'x' }, backend);
    expect(response.backend).toBe('wikipedia');
    expect(response.text).toContain('No SearXNG is configured');
  });
});
