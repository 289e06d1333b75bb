import './helpers/no-egress.ts';
import { readFileSync } from 'node:fs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createProxy } from '../../src/proxy/server.ts';
import { createSearxBackend } from '../../src/proxy/searx-client.ts';
import type { SearchBackend } from '../../src/proxy/search-backend.ts';
import { FIXTURE_PORT, startSearxFixture, type FixtureServer } from './searx/fixture-server.ts';
import { useSearx, type SearxInstance } from './searx/searx-instance.ts';
import { article, page, startTestWeb, type TestWeb } from './helpers/test-web.ts';
import { TIMEOUTS } from '../timeouts.ts';

/**
 * The SearXNG client against a real server: Debian's searx 1.1.0 on 127.0.0.1, configured by
 * tests/proxy/searx/settings.yml with json_engine entries that read a fixture server on a fixed
 * loopback port — real search results with no network.
 */
let searx: SearxInstance;
let fixture: FixtureServer;
let backend: SearchBackend;

beforeAll(async () => {
  fixture = await startSearxFixture();
  searx = await useSearx();
  backend = createSearxBackend({ baseUrl: searx.url });
}, TIMEOUTS.install);

afterAll(async () => {
  await fixture?.close();
  await searx?.stop();
}, TIMEOUTS.processStart);

describe('searx client against a real searx', () => {
  it('the settings file points the engines at the fixture port', () => {
    const settings = readFileSync(new URL('./searx/settings.yml', import.meta.url), 'utf8');
    expect(settings).toContain(`http://127.0.0.1:${FIXTURE_PORT}/search?q={query}`);
    expect(settings).toContain('ban_time_on_fail: 0');
  });

  it('returns the engines’ results, merged by searx', async () => {
    const result = await backend.search('rust jobs');
    expect(result.unresponsive).toEqual([]);
    const urls = result.hits.map((h) => h.url).sort();
    expect(urls).toEqual(['https://other.example/fx/rust-jobs', 'https://site.example/fx/rust-jobs', 'https://www.site.example/flaky/rust-jobs']);
    const site = result.hits.find((h) => h.url === 'https://site.example/fx/rust-jobs');
    expect(site).toEqual({
      title: 'rust jobs on site',
      url: 'https://site.example/fx/rust-jobs',
      snippet: 'Site snippet about rust jobs',
      engine: 'fixture',
      date: null,
    });
    expect(result.numberOfResults).toBe(0);
    expect(fixture.queries.some((q) => q.path === '/search' && q.q === 'rust jobs')).toBe(true);
  });

  it('names the engine that did not answer, every time (no silent suspension)', async () => {
    for (let i = 0; i < 2; i++) {
      const result = await backend.search(`outage ${i}`);
      expect(result.unresponsive).toEqual([{ engine: 'fixture-flaky', reason: expect.stringMatching(/error/i) }]);
      expect(result.hits.map((h) => h.engine)).toContain('fixture');
    }
  });

  it('reports no results from a working search as no results', async () => {
    const result = await backend.search('nothing-here');
    expect(result).toMatchObject({ hits: [], unresponsive: [] });
  });

  it('passes time_range on: searx then leaves out the engine without time-range support', async () => {
    const result = await backend.search('recent news', { timeRange: 'week' });
    expect(result.hits.map((h) => h.engine)).toEqual(['fixture', 'fixture']);
  });
});

describe('the proxy with a real searx behind it', () => {
  let web: TestWeb;

  beforeAll(async () => {
    web = await startTestWeb();
    web.route('site.example', '/fx/kotlin-jobs', page(article('Kotlin jobs', ['Kotlin job listing text, long enough to be read as a page. '.repeat(4)])));
  });

  afterAll(async () => {
    await web.close();
  });

  it('searches, numbers, names unresponsive engines, then reads a result page', async () => {
    const app = createProxy({ searxngUrl: searx.url, resolve: web.resolve, ca: web.pki.ca, connectTo: web.connectTo, log: false });
    const created = await app.inject({ method: 'POST', url: '/api/answers', payload: { message: 'kotlin jobs?' }, headers: { host: '127.0.0.1' } });
    const { answer } = created.json() as { answer: string };
    const search = await app.inject({
      method: 'POST',
      url: '/api/search',
      payload: { answer, query: 'kotlin jobs', queries: ['kotlin outage'] },
      headers: { host: '127.0.0.1' },
    });
    const body = search.json() as { ok: boolean; results: Array<{ n: number; url: string }>; unresponsive: unknown[]; text: string };
    expect(body.ok).toBe(true);
    expect(body.results.map((r) => r.n)).toEqual(body.results.map((_, i) => i + 1));
    expect(body.results.map((r) => r.url)).toContain('https://site.example/fx/kotlin-jobs');
    expect(body.unresponsive).toEqual([{ engine: 'fixture-flaky', reason: expect.any(String) }]);
    expect(body.text).toContain('Search engines that did not answer: fixture-flaky');
    const read = await app.inject({
      method: 'POST',
      url: '/api/read',
      payload: { answer, url: 'https://site.example/fx/kotlin-jobs' },
      headers: { host: '127.0.0.1' },
    });
    expect(read.json()).toMatchObject({ ok: true, pages: [{ title: 'Kotlin jobs' }] });
    await app.close();
  });

  it('when every engine fails, says so instead of "no results"', async () => {
    const app = createProxy({ searxngUrl: searx.url, resolve: web.resolve, log: false });
    const created = await app.inject({ method: 'POST', url: '/api/answers', payload: { message: 'x' }, headers: { host: '127.0.0.1' } });
    const { answer } = created.json() as { answer: string };
    const search = await app.inject({ method: 'POST', url: '/api/search', payload: { answer, query: 'blackout' }, headers: { host: '127.0.0.1' } });
    const body = search.json() as { ok: boolean; results: unknown[]; unresponsive: Array<{ engine: string }>; text: string };
    expect(body).toMatchObject({ ok: true, results: [] });
    expect(body.unresponsive.map((u) => u.engine).sort()).toEqual(['fixture', 'fixture-flaky']);
    expect(body.text).toContain('No results — but these search engines did not answer');
    await app.close();
  });

  it('rule 1 on exact addresses: research questions still read every result as searx returned it, and a link on it; a changed one is refused', async () => {
    const questions = [
      'kotlin jobs',
      'rust release notes',
      'c++ compiler flags',
      'weather in São Paulo',
      'python 3.14 changes',
      'linux kernel 7.0',
      'best tea in Darjeeling',
      'node 24 fetch api',
    ];
    const app = createProxy({ searxngUrl: searx.url, resolve: web.resolve, ca: web.pki.ca, connectTo: web.connectTo, log: false, rateLimit: false });
    let needed = 0;
    let read = 0;
    for (const question of questions) {
      const created = await app.inject({ method: 'POST', url: '/api/answers', payload: { message: `${question}?` }, headers: { host: '127.0.0.1' } });
      const { answer } = created.json() as { answer: string };
      const search = await app.inject({ method: 'POST', url: '/api/search', payload: { answer, query: question }, headers: { host: '127.0.0.1' } });
      const results = (search.json() as { results: Array<{ url: string }> }).results;
      expect(results.length, question).toBeGreaterThan(0);
      for (const { url } of results) {
        // The test web serves each result's page as searx wrote its address, with a link to a second page.
        const parsed = new URL(url);
        web.route(
          parsed.hostname,
          parsed.pathname + parsed.search,
          page(article(question, [`About ${question}, in words long enough to read. `.repeat(4)], '<p><a href="more">More</a></p>')),
        );
        web.route(
          parsed.hostname,
          new URL('more', url).pathname,
          page(article(`${question}, more`, [`More about ${question}, in words long enough to read. `.repeat(4)])),
        );
        for (const target of [url, new URL('more', url).href]) {
          needed++;
          const response = await app.inject({ method: 'POST', url: '/api/read', payload: { answer, url: target }, headers: { host: '127.0.0.1' } });
          if ((response.json() as { ok: boolean }).ok) read++;
        }
        const changed = await app.inject({
          method: 'POST',
          url: '/api/read',
          payload: { answer, url: `${url}?q=${encodeURIComponent(question)}` },
          headers: { host: '127.0.0.1' },
        });
        expect(changed.json(), url).toMatchObject({ ok: false, code: 'refused' });
      }
    }
    console.log(`rule 1 on exact addresses through searx: ${read} of ${needed} needed pages read (${questions.length} questions)`);
    expect(read).toBe(needed);
    await app.close();
  });
});
