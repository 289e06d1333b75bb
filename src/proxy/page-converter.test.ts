import '../../tests/proxy/helpers/no-egress.ts';
import { monitorEventLoopDelay } from 'node:perf_hooks';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { newAnswer, post } from '../../tests/proxy/helpers/inject.ts';
import { article, page, startTestWeb, type TestWeb } from '../../tests/proxy/helpers/test-web.ts';
import { convertPage } from './convert-page.ts';
import { createPageConverter, DEFAULT_CONVERT_BUDGET_MS } from './page-converter.ts';
import { createProxy } from './server.ts';
import { TIMEOUTS } from '../../tests/timeouts.ts';

// Issue 28, N9: the work a hostile page controls (2 MB of "<", about 2 s of conversion) runs in a
// worker thread with a budget, so the process that serves the page and the proxy keeps answering.

const HOSTILE = `<!doctype html><html><head><title>Hostile</title></head><body><p>${'<'.repeat(2_000_000)}</p></body></html>`;

/** Milliseconds the hostile page takes to convert inline on this machine now: the yardstick the budgets here are sized by. */
function hostileInlineMs(): number {
  const started = performance.now();
  convertPage({ body: new TextEncoder().encode(HOSTILE), charset: undefined, mediaType: 'text/html', url: 'https://site.example/hostile' });
  return performance.now() - started;
}

let web: TestWeb;

beforeAll(async () => {
  web = await startTestWeb();
  web.route('site.example', '/hostile', page(HOSTILE));
  web.route('site.example', '/fine', page(article('Fine', ['An ordinary page with ordinary words in it, long enough to read. '.repeat(4)])));
});

afterAll(async () => {
  await web.close();
});

describe('the page converter', () => {
  it('converts in a worker thread what the inline converter converts', async () => {
    const converter = createPageConverter({ maxThreads: 1 });
    const input = {
      body: new TextEncoder().encode(article('Same', ['The same text either way, with a link. <a href="/next">next</a>'])),
      charset: undefined,
      mediaType: 'text/html',
      url: 'https://site.example/a',
    };
    try {
      expect(await converter.convert(input)).toEqual(convertPage(input));
    } finally {
      await converter.close();
    }
  });

  it(
    'keeps the event loop free while a hostile page converts: its longest stall is a small part of the conversion',
    async () => {
      const inlineMs = hostileInlineMs();

      // This test is about the event loop, not the budget: the budget is sized from the inline conversion of the
      // same run (on a loaded machine the pool's conversion can pass the default 5 s, and the read would fail).
      const converter = createPageConverter({ budgetMs: Math.max(DEFAULT_CONVERT_BUDGET_MS, inlineMs * 4) });
      const app = createProxy({
        resolve: web.resolve,
        ca: web.pki.ca,
        connectTo: web.connectTo,
        log: false,
        rateLimit: false,
        crawl: { maxPages: 1 },
        converter,
      });
      const answer = await newAnswer(app, 'read https://site.example/hostile');
      const delay = monitorEventLoopDelay({ resolution: 10 });
      delay.enable();
      const read = await post(app, '/api/read', { answer, url: 'https://site.example/hostile' });
      delay.disable();
      await app.close();
      expect(read.body.ok).toBe(true);
      const longestStallMs = delay.max / 1e6;
      console.log(`hostile page: ${Math.round(inlineMs)} ms to convert on the event loop; longest stall with the worker pool ${Math.round(longestStallMs)} ms`);
      expect(longestStallMs).toBeLessThan(inlineMs / 4);
    },
    TIMEOUTS.networkTest,
  );

  it(
    'counts the budget from when a page starts converting, not from when it joined the queue: a plain page behind hostile ones still converts',
    async () => {
      // Found by the proxy load bench: under load, plain pages waiting behind hostile ones failed as "too complex".
      // The budget is a quarter of what the hostile page takes on this machine now, measured in this run (a fixed
      // 300 ms failed on a loaded machine, where the plain page's fresh thread alone took longer): the hostile pages
      // stay four times past it, and the plain one, counted from its own start, well within it.
      const converter = createPageConverter({ maxThreads: 1, budgetMs: Math.max(300, Math.round(hostileInlineMs() / 4)) });
      const input = (html: string, path: string) => ({
        body: new TextEncoder().encode(html),
        charset: undefined,
        mediaType: 'text/html',
        url: `https://site.example/${path}`,
      });
      try {
        const [first, second, plain] = await Promise.allSettled([
          converter.convert(input(HOSTILE, 'hostile-1')),
          converter.convert(input(HOSTILE, 'hostile-2')),
          converter.convert(input(article('Plain', ['An ordinary page with ordinary words in it, long enough to read. '.repeat(4)]), 'plain')),
        ]);
        expect(first.status).toBe('rejected');
        expect(second.status).toBe('rejected');
        expect(plain.status === 'fulfilled' ? plain.value.title : plain.reason).toBe('Plain');
      } finally {
        await converter.close();
      }
    },
    TIMEOUTS.networkTest,
  );

  it(
    'ends a conversion past its budget and says the page is too complex; other reads go on',
    async () => {
      // The budget is a quarter of what the hostile page takes on this machine now, measured in this run
      // (issue 55: a fixed 100 ms failed when a loaded machine took longer than that for the fine page in a
      // fresh thread): the hostile page stays four times past it, and a plain page takes a small part of it.
      const budgetMs = Math.round(hostileInlineMs() / 4);
      const app = createProxy({
        resolve: web.resolve,
        ca: web.pki.ca,
        connectTo: web.connectTo,
        log: false,
        rateLimit: false,
        crawl: { maxPages: 1 },
        converter: createPageConverter({ budgetMs }),
      });
      const answer = await newAnswer(app, 'read https://site.example/hostile and https://site.example/fine');
      const hostile = await post(app, '/api/read', { answer, url: 'https://site.example/hostile' });
      expect(hostile.body).toMatchObject({
        ok: false,
        code: 'fetch_failed',
        reason: `the page is too complex to read: converting it took longer than ${budgetMs / 1000} s`,
      });
      expect((await post(app, '/api/read', { answer, url: 'https://site.example/fine' })).body.ok).toBe(true);
      await app.close();
    },
    TIMEOUTS.networkTest,
  );
});
