import '../../tests/proxy/helpers/no-egress.ts';
import { EventEmitter } from 'node:events';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { FastifyInstance } from 'fastify';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { newAnswer, post } from '../../tests/proxy/helpers/inject.ts';
import { article, page, startTestWeb, type TestWeb } from '../../tests/proxy/helpers/test-web.ts';
import { startAppServer } from '../server/app-server.ts';
import { mountProxy } from './index.ts';
import { proxyVitePlugin } from './vite-plugin.ts';
import type { FetchLike } from './search-backend.ts';
import { createProxy, type ProxyOptions } from './server.ts';

let web: TestWeb;
let logLines: string[];

/** A fake SearXNG answering every query with results on site.example and other.example. */
const searxFetch: FetchLike = async (input) => {
  const q = new URL(input).searchParams.get('q') ?? '';
  return Response.json({
    query: q,
    results: [
      { url: 'https://site.example/doc', title: `Doc for ${q}`, content: 'A document', engine: 'fixture' },
      { url: 'https://other.example/post', title: 'Post', content: 'A post', engine: 'fixture', publishedDate: '2026-10-01T00:00:00' },
    ],
    answers: [],
    unresponsive_engines: [['brave', 'too many requests']],
  });
};

function proxy(extra: Partial<ProxyOptions> = {}): FastifyInstance {
  return createProxy({
    resolve: web.resolve,
    ca: web.pki.ca,
    connectTo: web.connectTo,
    searxngUrl: 'http://127.0.0.1:9/',
    searchFetch: searxFetch,
    log: { write: (line: string) => logLines.push(line) },
    ...extra,
  });
}

beforeAll(async () => {
  web = await startTestWeb();
  web.route('site.example', '/doc', page(article('The document', ['Document text that is long enough to read as a page. '.repeat(5)])));
  web.route('other.example', '/post', page(article('The post', ['Post text that is long enough to read as a page. '.repeat(5)])));
});

afterAll(async () => {
  await web.close();
});

describe('createProxy', () => {
  it('starts an answer, searches, and reads a result page end to end', async () => {
    logLines = [];
    const app = proxy();
    const answer = await newAnswer(app, 'Find me Rust jobs');
    const search = await post(app, '/api/search', { answer, query: 'rust jobs', time_range: 'week' });
    expect(search.status).toBe(200);
    expect(search.body).toMatchObject({ ok: true, backend: 'searxng', timeRange: 'week', unresponsive: [{ engine: 'brave', reason: 'too many requests' }] });
    expect((search.body.results as Array<{ n: number; url: string }>).map((r) => [r.n, r.url])).toEqual([
      [1, 'https://site.example/doc'],
      [2, 'https://other.example/post'],
    ]);
    const read = await post(app, '/api/read', { answer, url: 'https://other.example/post' });
    expect(read.body).toMatchObject({ ok: true, url: 'https://other.example/post', budgetLine: 'Searches used 1 of 16; pages read 1 of 12' });
    const pages = read.body.pages as Array<{ n: number; title: string; fenced: string }>;
    expect(pages[0]).toMatchObject({ n: 2, title: 'The post' });
    expect(read.body.text).toContain('Untrusted text from https://other.example/post');
    const sources = await app.inject({ method: 'GET', url: `/api/answers/${answer}`, headers: { host: '127.0.0.1' } });
    expect(sources.json()).toMatchObject({
      ok: true,
      sources: [
        { n: 1, url: 'https://site.example/doc' },
        { n: 2, url: 'https://other.example/post' },
      ],
    });
    await app.close();
  });

  it('sizes a read to what the model will read of it (maxChars): fewer pages, each whole and fenced, the whole result within the limit', async () => {
    const links = Array.from({ length: 5 }, (_, i) => `<a href="/long/${i}">part ${i}</a>`).join(' ');
    web.route('site.example', '/long', page(article('Long', ['A long page of ordinary words that goes on and on. '.repeat(400)], links)));
    for (let i = 0; i < 5; i++) web.route('site.example', `/long/${i}`, page(article(`Part ${i}`, ['More ordinary words on a linked page. '.repeat(300)])));
    const app = proxy();
    // A fresh answer for each read: an answer reads an address once (issue 41).
    const fresh = () => newAnswer(app, 'read https://site.example/long');
    const answer = await fresh();
    const full = await post(app, '/api/read', { answer, url: 'https://site.example/long' });
    expect((full.body.text as string).length).toBeGreaterThan(12_000);
    for (const maxChars of [1500, 4000, 9000]) {
      const sized = await post(app, '/api/read', { answer: await fresh(), url: 'https://site.example/long', maxChars });
      const text = sized.body.text as string;
      expect(sized.body.ok).toBe(true);
      expect(text.length, `maxChars ${maxChars}`).toBeLessThanOrEqual(maxChars);
      const opened = [...text.matchAll(/<<<PAGE-([0-9a-f]+)\n/g)].map((m) => m[1]);
      expect(opened.length).toBeGreaterThan(0);
      for (const tag of opened) expect(text).toContain(`PAGE-${tag}>>>`);
    }
    const small = await post(app, '/api/read', { answer: await fresh(), url: 'https://site.example/long', maxChars: 4000 });
    expect(small.body.pages as unknown[]).toHaveLength(1);
    const bad = await post(app, '/api/read', { answer, url: 'https://site.example/long', maxChars: 10 });
    expect(bad.status).toBe(400);
    await app.close();
  });

  it('rule 1: a read of a host not in this answer is refused with a reason, and costs no page', async () => {
    const app = proxy();
    const answer = await newAnswer(app);
    const read = await post(app, '/api/read', { answer, url: 'https://site.example/doc' });
    expect(read.status).toBe(200);
    expect(read.body).toMatchObject({ ok: false, code: 'refused', reason: "site.example is not in this answer's search results" });
    expect(read.body.text).toContain('YOU DID NOT READ THAT PAGE');
    expect(read.body.budgetLine).toBe('Searches used 0 of 16; pages read 0 of 12');
    const other = await newAnswer(app, 'look at https://site.example/doc please');
    expect((await post(app, '/api/read', { answer: other, url: 'https://site.example/doc' })).body.ok).toBe(true);
    await app.close();
  });

  it('rule 1: hosts seen in one answer are not seen in another', async () => {
    const app = proxy();
    const a = await newAnswer(app);
    const b = await newAnswer(app);
    await post(app, '/api/search', { answer: a, query: 'x' });
    expect((await post(app, '/api/read', { answer: b, url: 'https://site.example/doc' })).body.code).toBe('refused');
    await app.close();
  });

  it('budgets: "The search budget is spent" and "The page budget is spent" as tool results', async () => {
    const app = proxy({ budgets: { searches: 2, pages: 1 } });
    const answer = await newAnswer(app);
    const first = await post(app, '/api/search', { answer, query: 'a', queries: ['b', 'c'] });
    expect(first.body).toMatchObject({ ok: true, skipped: ['c'] });
    const spent = await post(app, '/api/search', { answer, query: 'd' });
    expect(spent.status).toBe(200);
    expect(spent.body).toMatchObject({ ok: false, code: 'budget_spent', reason: expect.stringContaining('The search budget is spent') });
    expect((await post(app, '/api/read', { answer, url: 'https://site.example/doc' })).body.ok).toBe(true);
    const pageSpent = await post(app, '/api/read', { answer, url: 'https://site.example/doc' });
    expect(pageSpent.body).toMatchObject({ ok: false, code: 'budget_spent', reason: expect.stringContaining('The page budget is spent') });
    await app.close();
  });

  it('an unknown or expired answer id is a clear 404', async () => {
    let now = 0;
    const app = proxy({ now: () => now });
    const answer = await newAnswer(app);
    const unknown = await post(app, '/api/search', { answer: 'AAAAAAAAAAAAAAAAAAAAAA', query: 'x' });
    expect(unknown).toEqual({ status: 404, body: { ok: false, code: 'unknown_answer', reason: expect.stringContaining('unknown or has expired') } });
    now = 2 * 60 * 60 * 1000;
    expect((await post(app, '/api/read', { answer, url: 'https://site.example/doc' })).status).toBe(404);
    await app.close();
  });

  it('validates request bodies with JSON errors that give the reason', async () => {
    const app = proxy();
    const answer = await newAnswer(app);
    const cases: Array<[string, unknown]> = [
      ['/api/search', { answer, query: '' }],
      ['/api/search', { answer }],
      ['/api/search', { answer, query: 'x', queries: ['a', 'b', 'c', 'd'] }],
      ['/api/search', { answer: 'bad id!', query: 'x' }],
      ['/api/read', { answer, url: 'x'.repeat(3000) }],
      ['/api/answers', { message: 'x'.repeat(20_001) }],
      ['/api/answers', {}],
    ];
    for (const [url, payload] of cases) {
      const response = await post(app, url, payload);
      expect(response.status).toBe(400);
      expect(response.body).toMatchObject({ ok: false, code: 'invalid_request', reason: expect.any(String) });
    }
    const notJson = await app.inject({
      method: 'POST',
      url: '/api/answers',
      payload: 'message=hi',
      headers: { host: '127.0.0.1', 'content-type': 'text/plain' },
    });
    expect(notJson.statusCode).toBe(415);
    const broken = await app.inject({
      method: 'POST',
      url: '/api/answers',
      payload: '{"message":',
      headers: { host: '127.0.0.1', 'content-type': 'application/json' },
    });
    expect(broken.statusCode).toBe(400);
    expect((await app.inject({ method: 'GET', url: '/api/nothing', headers: { host: '127.0.0.1' } })).json()).toMatchObject({ ok: false, code: 'not_found' });
    await app.close();
  });

  it('limits request body size', async () => {
    const app = proxy({ bodyLimit: 1024 });
    const response = await post(app, '/api/answers', { message: 'x'.repeat(2000) });
    expect(response.status).toBe(413);
    expect(response.body).toMatchObject({ ok: false, code: 'body_too_large' });
    await app.close();
  });

  it('refuses foreign hosts and origins, and requires the token when configured', async () => {
    const app = proxy({ token: 'a-long-shared-token-123', origins: ['https://chat.example.org'] });
    expect((await post(app, '/api/answers', { message: 'x' })).status).toBe(401);
    const auth = { authorization: 'Bearer a-long-shared-token-123' };
    expect((await post(app, '/api/answers', { message: 'x' }, auth)).status).toBe(201);
    expect((await post(app, '/api/answers', { message: 'x' }, { ...auth, host: 'evil.example' })).body.code).toBe('forbidden_origin');
    expect((await post(app, '/api/answers', { message: 'x' }, { ...auth, origin: 'https://evil.example' })).status).toBe(403);
    expect((await post(app, '/api/answers', { message: 'x' }, { ...auth, host: 'chat.example.org', origin: 'https://chat.example.org' })).status).toBe(201);
    await app.close();
  });

  it('rate-limits per client with a JSON 429', async () => {
    const app = proxy({ rateLimit: { max: 3, timeWindowMs: 60_000 } });
    const statuses: number[] = [];
    for (let i = 0; i < 5; i++) statuses.push((await post(app, '/api/answers', { message: 'x' })).status);
    expect(statuses).toEqual([201, 201, 201, 429, 429]);
    const limited = await post(app, '/api/answers', { message: 'x' });
    expect(limited.body).toMatchObject({ ok: false, code: 'rate_limited', reason: expect.stringContaining('too many requests') });
    await app.close();
  });

  it('rule 7: nothing from the browser request is forwarded to the site', async () => {
    const app = proxy();
    const answer = await newAnswer(app, 'read https://raw.example/capture');
    web.rawRequests.length = 0;
    const read = await post(
      app,
      '/api/read',
      { answer, url: 'https://raw.example/capture' },
      {
        cookie: 'session=SECRET-COOKIE',
        authorization: 'Bearer SECRET-AUTH',
        referer: 'http://127.0.0.1:4173/chat?secret=1',
        'user-agent': 'Mozilla/5.0 BrowserOfTheUser',
        'x-forwarded-for': '192.168.1.50',
        'accept-language': 'de-DE',
        'x-custom': 'SECRET-HEADER',
      },
    );
    expect(read.body.ok).toBe(true);
    const raw = web.rawRequests.join('\n');
    expect(raw).toContain('GET /capture HTTP/1.1');
    for (const leak of ['SECRET', 'cookie', 'authorization', 'referer', 'Mozilla', '192.168.1.50', 'de-DE', 'x-forwarded-for', 'x-custom']) {
      expect(raw.toLowerCase()).not.toContain(leak.toLowerCase());
    }
    expect(raw).toContain('user-agent: NexusChat-PageReader/');
    await app.close();
  });

  it('rule 8: writes one JSON log line per fetch hop, without page text or the user message', async () => {
    logLines = [];
    const app = proxy();
    const answer = await newAnswer(app, 'my private question about https://site.example/doc');
    await post(app, '/api/read', { answer, url: 'https://site.example/doc' });
    await post(app, '/api/read', { answer, url: 'https://private.example/' });
    const fetches = logLines.map((l) => JSON.parse(l) as Record<string, unknown>).filter((l) => l.event === 'fetch');
    const all = (): string => logLines.join('\n');
    expect(fetches).toHaveLength(1);
    expect(fetches[0]).toMatchObject({ url: 'https://site.example/doc', ip: '93.184.216.34', status: 200, hop: 0 });
    // Hops of one answer share a tag derived from its id; the id itself (a capability) is never logged.
    expect(fetches[0]?.answer).toMatch(/^[0-9a-f]{12}$/);
    expect(all()).not.toContain(answer);
    for (const key of ['time', 'bytes', 'ms']) expect(fetches[0]).toHaveProperty(key);
    expect(all()).not.toContain('Document text');
    expect(all()).not.toContain('my private question');
    await app.close();
  });

  it('rule 8: logs refused addresses with the reason', async () => {
    logLines = [];
    const app = proxy();
    const answer = await newAnswer(app, 'see https://private.example/');
    const read = await post(app, '/api/read', { answer, url: 'https://private.example/' });
    expect(read.body).toMatchObject({ ok: false, code: 'refused' });
    const fetches = logLines.map((l) => JSON.parse(l) as Record<string, unknown>).filter((l) => l.event === 'fetch');
    expect(fetches).toEqual([expect.objectContaining({ url: 'https://private.example/', ip: null, reason: expect.stringContaining('private') })]);
    await app.close();
  });

  it('uses Wikipedia when no SearXNG is configured, and says so', async () => {
    const wikiFetch: FetchLike = async () => Response.json({ query: { search: [{ title: 'Rust', snippet: 'lang', timestamp: '2026-01-01T00:00:00Z' }] } });
    const app = proxy({ searxngUrl: undefined, searchFetch: wikiFetch });
    const answer = await newAnswer(app);
    const search = await post(app, '/api/search', { answer, query: 'rust' });
    expect(search.body).toMatchObject({ ok: true, backend: 'wikipedia', note: expect.stringContaining('No SearXNG is configured') });
    expect((search.body.results as Array<{ engine: string }>)[0]?.engine).toContain('embedded default');
    const health = await app.inject({ method: 'GET', url: '/api/health', headers: { host: '127.0.0.1' } });
    expect(health.json()).toEqual({ ok: true, backend: 'wikipedia', store: 'memory', budgets: { searches: 16, pages: 12 } });
    await app.close();
  });

  it('health with ?search=1 asks the search engine, once a minute however often it is asked (issue 30, P2.2)', async () => {
    let now = 0;
    let calls = 0;
    let up = false;
    const app = proxy({
      now: () => now,
      searchFetch: async () => {
        calls++;
        return up ? searxFetch('http://127.0.0.1:9/search?q=weather&format=json') : new Response('down', { status: 502 });
      },
    });
    const health = async (query = '?search=1') => (await app.inject({ method: 'GET', url: `/api/health${query}`, headers: { host: '127.0.0.1' } })).json();
    expect(await health()).toMatchObject({ ok: true, backend: 'searxng', search: { ok: false, reason: 'the search engine answered HTTP 502' } });
    expect(await health()).toMatchObject({ search: { ok: false } });
    expect(calls).toBe(1);
    // Without the question, health stays a question about the proxy alone.
    expect(await health('')).not.toHaveProperty('search');
    expect(calls).toBe(1);
    up = true;
    now += 61_000;
    expect(await health()).toMatchObject({ search: { ok: true } });
    expect(calls).toBe(2);
    await app.close();
  });

  it('a search backend that is down is a tool failure with the reason', async () => {
    const app = proxy({ searchFetch: async () => new Response('down', { status: 502 }) });
    const answer = await newAnswer(app);
    expect((await post(app, '/api/search', { answer, query: 'x' })).body).toMatchObject({
      ok: false,
      code: 'search_failed',
      reason: 'the search engine answered HTTP 502',
    });
    await app.close();
  });
});

describe('mounting', () => {
  it('mountProxy answers /api/* inside the app server and leaves the rest to it', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'nexus-proxy-mount-'));
    await writeFile(join(dir, 'index.html'), '<!doctype html><title>page</title>');
    const app = proxy();
    const server = await startAppServer({ root: dir, before: mountProxy(app) });
    try {
      const health = await fetch(`${server.url}api/health`);
      expect(health.status).toBe(200);
      expect(await health.json()).toMatchObject({ ok: true, backend: 'searxng' });
      const created = await fetch(`${server.url}api/answers`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ message: 'hi' }),
      });
      expect(created.status).toBe(201);
      const pageResponse = await fetch(server.url);
      expect(await pageResponse.text()).toContain('<title>page</title>');
      expect((await fetch(`${server.url}api`)).status).toBe(404);
    } finally {
      await server.close();
      await app.close();
      await rm(dir, { recursive: true, force: true });
    }
  });

  it('proxyVitePlugin adds a middleware that answers /api/* and passes the rest on', async () => {
    const plugin = proxyVitePlugin({ resolve: web.resolve, searchFetch: searxFetch, searxngUrl: 'http://127.0.0.1:9/', log: false });
    let middleware: ((req: unknown, res: unknown, next: (e?: unknown) => void) => void) | undefined;
    const httpServer = new EventEmitter();
    const fakeServer = { middlewares: { use: (fn: typeof middleware) => (middleware = fn) }, httpServer };
    (plugin.configureServer as (s: unknown) => void)(fakeServer);
    expect(middleware).toBeDefined();
    const dir = await mkdtemp(join(tmpdir(), 'nexus-proxy-vite-'));
    await writeFile(join(dir, 'index.html'), 'static');
    const server = await startAppServer({
      root: dir,
      before: (req, res) =>
        new Promise<boolean>((done) => {
          middleware?.(req, res, () => done(false));
          res.once('finish', () => done(true));
        }),
    });
    try {
      expect(await (await fetch(`${server.url}api/health`)).json()).toMatchObject({ ok: true });
      expect(await (await fetch(server.url)).text()).toBe('static');
    } finally {
      httpServer.emit('close');
      await server.close();
      await rm(dir, { recursive: true, force: true });
    }
  });
});
