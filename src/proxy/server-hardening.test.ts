import '../../tests/proxy/helpers/no-egress.ts';
import { spawn } from 'node:child_process';
import { EventEmitter } from 'node:events';
import type { FastifyInstance } from 'fastify';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { newAnswer, post } from '../../tests/proxy/helpers/inject.ts';
import { article, page, redirect, startTestWeb, type Handler, type TestWeb } from '../../tests/proxy/helpers/test-web.ts';
import { InvalidOptionError } from '../shared/errors.ts';
import { assertSafeBind } from './bind-guard.ts';
import { proxyVitePlugin } from './vite-plugin.ts';
import type { FetchLike } from './search-backend.ts';
import { createProxy, type ProxyOptions } from './server.ts';
import { TIMEOUTS } from '../../tests/timeouts.ts';

let web: TestWeb;
let logLines: string[];
const hits = new Map<string, number>();

const searxFetch: FetchLike = async () =>
  Response.json({ results: [{ url: 'https://site.example/doc', title: 'Doc', content: 'A document', engine: 'fixture' }] });

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

const counted =
  (key: string, handler: Handler): Handler =>
  (req, res) => {
    hits.set(key, (hits.get(key) ?? 0) + 1);
    handler(req, res);
  };

beforeAll(async () => {
  web = await startTestWeb();
  const text = ['Document text that is long enough to read as a page. '.repeat(5)];
  web.route('site.example', '/doc', page(article('The document', text)));
  web.route('site.example', '/to-private', counted('to-private', redirect('https://private.example/')));
  for (let i = 1; i <= 5; i++) web.route('site.example', `/chain${i}`, counted(`chain${i}`, redirect(`https://site.example/chain${i + 1}`)));
  web.route('site.example', '/exact', (_req, res) => {
    res.writeHead(200, { 'content-type': 'text/plain' });
    res.end('y'.repeat(1024));
  });
});

afterAll(async () => {
  await web.close();
});

beforeEach(() => {
  logLines = [];
  hits.clear();
});

describe('finding 6: the guard runs before the rate limit', () => {
  it('requests from other web sites never use up the page’s rate limit', async () => {
    const app = proxy({ rateLimit: { max: 3, timeWindowMs: 60_000 } });
    const foreign: number[] = [];
    for (let i = 0; i < 10; i++) {
      foreign.push((await post(app, '/api/answers', { message: 'x' }, { origin: 'https://evil.example' })).status);
      foreign.push((await post(app, '/api/answers', { message: 'x' }, { host: 'evil.example' })).status);
    }
    expect(new Set(foreign)).toEqual(new Set([403]));
    expect((await post(app, '/api/answers', { message: 'x' })).status).toBe(201);
    await app.close();
  });

  it('the page’s own requests are still limited', async () => {
    const app = proxy({ rateLimit: { max: 2, timeWindowMs: 60_000 } });
    const statuses: number[] = [];
    for (let i = 0; i < 3; i++) statuses.push((await post(app, '/api/answers', { message: 'x' })).status);
    expect(statuses).toEqual([201, 201, 429]);
    await app.close();
  });
});

describe('issue 41: one client cannot push out the team’s answers', () => {
  it("a client's flood of new answers drops only its own, each client by its network", async () => {
    const app = proxy({ rateLimit: false, sessions: { maxSessions: 50, maxSessionsPerClient: 5 } });
    // Another /24 than the flood's (issue 52: the addresses of one /24 are one client).
    const teammate = (await post(app, '/api/answers', { message: 'x' }, {}, '127.0.1.2')).body.answer as string;
    for (let i = 0; i < 200; i++) expect((await post(app, '/api/answers', { message: 'x' }, {}, '127.0.0.66')).status).toBe(201);
    const still = await app.inject({ method: 'GET', url: `/api/answers/${teammate}`, headers: { host: '127.0.0.1:4173' }, remoteAddress: '127.0.1.2' });
    expect(still.statusCode).toBe(200);
    await app.close();
  });

  it('refuses trustProxy: true in code as the environment variable does (issue 52): any client could name its own address', () => {
    expect(() => proxy({ trustProxy: true })).toThrow(InvalidOptionError);
    expect(() => proxy({ trustProxy: true })).toThrow(/trustProxy: true is not a valid value. Use one of: '1 \(a hop count/);
  });
});

describe('finding 7: a read that contacted a site spends its page', () => {
  it.each([
    ['a redirect to a private address', '/to-private', 'to-private'],
    ['more than 3 redirects', '/chain1', 'chain1'],
  ])('%s costs a page, and the site is not hit beyond the budget', async (_name, path, key) => {
    const app = proxy({ budgets: { pages: 2 } });
    const answer = await newAnswer(app, `read https://site.example${path}`);
    const bodies = [];
    for (let i = 0; i < 50; i++) bodies.push((await post(app, '/api/read', { answer, url: `https://site.example${path}` })).body);
    expect(bodies[0]).toMatchObject({ ok: false, code: 'refused', budgetLine: 'Searches used 0 of 16; pages read 1 of 2' });
    // Asked again, the address is not fetched again (issue 41: a repeat carries nothing), and costs nothing.
    expect(bodies.slice(1).every((b) => b.code === 'refused' && String(b.reason).includes('already read in this answer'))).toBe(true);
    expect(bodies.at(-1)).toMatchObject({ budgetLine: 'Searches used 0 of 16; pages read 1 of 2' });
    expect(hits.get(key)).toBe(1);
    await app.close();
  });

  it('a read refused before any connection (rule 1, a private address) still costs nothing', async () => {
    const app = proxy({ budgets: { pages: 1 } });
    const answer = await newAnswer(app, 'read https://private.example/ and https://site.example/doc');
    expect((await post(app, '/api/read', { answer, url: 'https://private.example/' })).body.budgetLine).toBe('Searches used 0 of 16; pages read 0 of 1');
    expect((await post(app, '/api/read', { answer, url: 'https://nowhere.example/' })).body.budgetLine).toBe('Searches used 0 of 16; pages read 0 of 1');
    expect((await post(app, '/api/read', { answer, url: 'https://site.example/doc' })).body.ok).toBe(true);
    await app.close();
  });
});

describe('finding 8: no open proxy on the LAN', () => {
  it('assertSafeBind refuses a non-loopback address without a token, saying how to set one', () => {
    for (const host of ['0.0.0.0', '::', '192.168.1.5', 'my-laptop.lan', true]) {
      expect(() => assertSafeBind(host, undefined)).toThrow(/PROXY_TOKEN/);
    }
    for (const host of ['127.0.0.1', 'localhost', '::1', undefined]) expect(() => assertSafeBind(host, undefined)).not.toThrow();
    expect(() => assertSafeBind('0.0.0.0', 'a-long-shared-token-123')).not.toThrow();
  });

  it(
    'npm start refuses HOST=0.0.0.0 without PROXY_TOKEN',
    async () => {
      const result = await new Promise<{ code: number | null; err: string }>((done) => {
        const child = spawn(process.execPath, ['--import', 'tsx', 'src/server/start.ts'], {
          env: { ...process.env, HOST: '0.0.0.0', PORT: '0', PROXY_TOKEN: '' },
          stdio: ['ignore', 'pipe', 'pipe'],
        });
        let err = '';
        child.stderr.on('data', (chunk: Buffer) => (err += chunk.toString()));
        const timer = setTimeout(() => child.kill(), 20_000);
        child.on('exit', (code) => {
          clearTimeout(timer);
          done({ code, err });
        });
      });
      expect(result.code).toBe(1);
      expect(result.err).toMatch(/Refusing to listen on 0\.0\.0\.0 without PROXY_TOKEN/);
      expect(result.err).toMatch(/PROXY_TOKEN=/);
    },
    TIMEOUTS.processStart,
  );

  it('npm run dev (the Vite plugin) refuses a non-loopback host without PROXY_TOKEN', () => {
    const plugin = proxyVitePlugin({ resolve: web.resolve, log: false });
    const fakeServer = { config: { server: { host: '0.0.0.0' } }, middlewares: { use: () => undefined }, httpServer: new EventEmitter() };
    expect(() => (plugin.configureServer as (s: unknown) => void)(fakeServer)).toThrow(/PROXY_TOKEN/);
    const local = { config: { server: { host: 'localhost' } }, middlewares: { use: () => undefined }, httpServer: new EventEmitter() };
    expect(() => (plugin.configureServer as (s: unknown) => void)(local)).not.toThrow();
  });

  it('without a token, a request from another machine is refused whatever Host it claims', async () => {
    const app = proxy();
    const fromLan = await post(app, '/api/answers', { message: 'x' }, { host: 'localhost:4173' }, '192.168.1.50');
    expect(fromLan.status).toBe(403);
    expect(fromLan.body.reason).toMatch(/PROXY_TOKEN/);
    expect((await post(app, '/api/answers', { message: 'x' }, {}, '127.0.0.1')).status).toBe(201);
    await app.close();
    const withToken = proxy({ token: 'a-long-shared-token-123' });
    const authorised = await post(withToken, '/api/answers', { message: 'x' }, { authorization: 'Bearer a-long-shared-token-123' }, '192.168.1.50');
    expect(authorised.status).toBe(201);
    await withToken.close();
  });
});

describe('lower grade', () => {
  it.each(['constructor', '__proto__', 'toString', 'hasOwnProperty', 'valueOf'])(
    'time_range "%s" is no range, not an Object.prototype member',
    async (range) => {
      const app = proxy();
      const answer = await newAnswer(app, 'x');
      const search = await post(app, '/api/search', { answer, query: 'q', time_range: range });
      expect(search.status).toBe(200);
      expect(search.body).toMatchObject({ ok: true, timeRange: null });
      await app.close();
    },
  );

  it('a body of exactly the byte cap is complete, not "larger than the limit"', async () => {
    const app = proxy({ maxBodyBytes: 1024 });
    const answer = await newAnswer(app, 'https://site.example/exact');
    const read = await post(app, '/api/read', { answer, url: 'https://site.example/exact' });
    expect(read.body.ok).toBe(true);
    expect(String(read.body.text)).not.toContain('larger than');
    await app.close();
  });

  it('the proxy has a request timeout (a slow client cannot hold a connection for ever)', async () => {
    const app = proxy();
    await app.ready();
    expect(app.server.requestTimeout).toBeGreaterThan(0);
    expect(app.server.requestTimeout).toBeLessThanOrEqual(120_000);
    await app.close();
  });

  it('the request log never records answer ids', async () => {
    const app = proxy({ logLevel: 'info' });
    const answer = await newAnswer(app, 'see https://site.example/doc');
    await app.inject({ method: 'GET', url: `/api/answers/${answer}`, headers: { host: '127.0.0.1' } });
    await app.inject({ method: 'GET', url: `/api/answers/${answer}?x=1`, headers: { host: '127.0.0.1' } });
    await post(app, '/api/read', { answer, url: 'https://site.example/doc' });
    const all = logLines.join('\n');
    expect(logLines.length).toBeGreaterThan(0);
    expect(all).not.toContain(answer);
    expect(all).toContain('/api/answers/');
    await app.close();
  });
});
