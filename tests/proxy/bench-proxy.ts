/**
 * Figures for the proxy, all on loopback and bounded to a few seconds:
 * - refusals per second for bad addresses: `vetAddress` alone (numeric spellings, embedded IPv6
 *   forms, names resolving to private ranges), and whole `/api/read` requests refused by rule 1/2;
 * - the proxy's added latency on a local 200 KB HTML page over TLS: a plain node:https GET of the
 *   page versus `safeFetch` (vetting, pinning, limits) and versus a whole `/api/read` (fetch +
 *   HTML-to-text + fence), medians of the same run, and their ratios;
 * - the page server's answer time to a plain GET while a hostile read runs, pages converted on the
 *   event loop and in the worker pool (issue 28, N9).
 *
 * Called by `npm run bench` through {@link benchProxy}; also runnable alone with tsx.
 */
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { request } from 'node:https';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fork } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { mountProxy } from '../../src/proxy/mount.ts';
import type { Resolver } from '../../src/proxy/resolver.ts';
import type { ConnectTarget } from '../../src/proxy/safe-fetch.ts';
import { createPageConverter, inlinePageConverter, type PageConverter } from '../../src/proxy/page-converter.ts';
import { startAppServer } from '../../src/server/app-server.ts';
import { createProxy } from '../../src/proxy/server.ts';
import { safeFetch } from '../../src/proxy/safe-fetch.ts';
import { vetAddress } from '../../src/proxy/vet-address.ts';
import { article, page, PUBLIC, startTestWeb } from './helpers/test-web.ts';

const BAD_ADDRESSES = [
  'https://127.0.0.1/',
  'https://2130706433/',
  'https://0x7f.1/',
  'https://[::ffff:127.0.0.1]/',
  'https://[::127.0.0.1]/',
  'https://[64:ff9b::a9fe:a9fe]/',
  'https://169.254.169.254/latest/meta-data/',
  'https://private.example/',
  'https://metadata.example/',
  'https://mixed.example/',
  'https://localhost/',
  'https://site.example:8443/',
];

const BAD_DNS: Record<string, string[]> = {
  'private.example': ['10.0.0.7'],
  'metadata.example': ['169.254.169.254'],
  'mixed.example': [PUBLIC.site, '127.0.0.1'],
};

function median(values: number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  const mid = Math.floor(sorted.length / 2);
  return sorted.length % 2 ? (sorted[mid] ?? 0) : ((sorted[mid - 1] ?? 0) + (sorted[mid] ?? 0)) / 2;
}

function round(n: number, digits = 2): number {
  const f = 10 ** digits;
  return Math.round(n * f) / f;
}

/**
 * Serves the proxy and a page from one app server (as `npm start` does), starts a read of the hostile
 * site, and times a plain GET of the page every 25 ms until the read ends.
 */
/** Where the hostile site runs (another process) and how to reach it. */
interface HostileWeb {
  resolve: Resolver;
  connectTo: (address: string) => ConnectTarget;
  ca: string;
}

async function hostileReadProbe(web: HostileWeb, converter: PageConverter): Promise<{ readMs: number; maxMs: number; medianMs: number }> {
  const root = await mkdtemp(join(tmpdir(), 'nexus-bench-page-'));
  await writeFile(join(root, 'index.html'), '<!doctype html><title>page</title>');
  const proxy = createProxy({ resolve: web.resolve, ca: web.ca, connectTo: web.connectTo, log: false, rateLimit: false, converter });
  const server = await startAppServer({ root, before: mountProxy(proxy) });
  try {
    const post = (path: string, body: unknown) =>
      fetch(new URL(path, server.url), { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(body) }).then(
        (r) => r.json() as Promise<Record<string, unknown>>,
      );
    const { answer } = await post('/api/answers', { message: 'read https://site.example/hostile https://site.example/hostile/0' });
    // Warm up: the first read starts the converter (and its worker thread).
    await post('/api/read', { answer, url: 'https://site.example/hostile/0' });
    const started = performance.now();
    let done = false;
    const read = post('/api/read', { answer, url: 'https://site.example/hostile' }).finally(() => (done = true));
    const probes: number[] = [];
    while (!done && probes.length < 400) {
      const t = performance.now();
      await (await fetch(server.url)).text();
      probes.push(performance.now() - t);
      await new Promise((resume) => setTimeout(resume, 25));
    }
    await read;
    return { readMs: performance.now() - started, maxMs: Math.max(0, ...probes), medianMs: median(probes) };
  } finally {
    await server.close();
    await proxy.close();
    await rm(root, { recursive: true, force: true });
  }
}

/** Runs the proxy benchmarks and returns named figures (units in the names). */
export async function benchProxy(): Promise<Record<string, number>> {
  const figures: Record<string, number> = {};

  // 1. Refusals per second, vetAddress alone (bounded: 0.5 s).
  const resolve = async (host: string) => (BAD_DNS[host] ?? ['10.9.9.9']).map((address) => ({ address, family: address.includes(':') ? 6 : 4 }));
  let refusals = 0;
  const vetStart = performance.now();
  while (performance.now() - vetStart < 500 && refusals < 1_000_000) {
    for (const url of BAD_ADDRESSES) {
      const result = await vetAddress(url, { resolve });
      if (result.ok) throw new Error(`bench: ${url} was not refused`);
      refusals++;
    }
  }
  figures.vet_refusals_per_s = Math.round(refusals / ((performance.now() - vetStart) / 1000));

  const web = await startTestWeb();
  try {
    const filler = 'The quick brown fox jumps over the lazy dog, and the proxy reads every word of it. ';
    const paragraphs = Array.from({ length: 240 }, (_, i) => `${i}. ${filler.repeat(10)}`);
    const html = article('Bench page', paragraphs, `<ul>${Array.from({ length: 50 }, (_, i) => `<li><a href="/p${i}">p${i}</a></li>`).join('')}</ul>`);
    web.route('site.example', '/bench', page(html));
    figures.page_kb = round(Buffer.byteLength(html) / 1024, 1);

    // 2. Whole API requests refused (rule 1 for an unseen host, rule 2 for a seen private one), 0.5 s.
    const app = createProxy({
      resolve: web.resolve,
      ca: web.pki.ca,
      connectTo: web.connectTo,
      log: false,
      rateLimit: false,
      searxngUrl: 'http://127.0.0.1:9/',
      budgets: { pages: 1000 },
    });
    const created = await app.inject({
      method: 'POST',
      url: '/api/answers',
      payload: { message: 'see https://private.example/' },
      headers: { host: '127.0.0.1' },
    });
    const answer = (created.json() as { answer: string }).answer;
    let apiRefusals = 0;
    const apiStart = performance.now();
    while (performance.now() - apiStart < 500 && apiRefusals < 100_000) {
      for (const url of ['https://unseen.example/', 'https://private.example/']) {
        const response = await app.inject({ method: 'POST', url: '/api/read', payload: { answer, url }, headers: { host: '127.0.0.1' } });
        if ((response.json() as { code?: string }).code !== 'refused') throw new Error('bench: the API did not refuse');
        apiRefusals++;
      }
    }
    figures.api_read_refusals_per_s = Math.round(apiRefusals / ((performance.now() - apiStart) / 1000));

    // 3. Latency on the 200 KB page: plain GET vs safeFetch vs /api/read, interleaved, same run.
    const plainGet = (): Promise<number> =>
      new Promise((done, fail) => {
        const req = request(
          { host: '127.0.0.1', port: web.port, path: '/bench', servername: 'site.example', headers: { host: 'site.example' }, ca: web.pki.ca, agent: false },
          (res) => {
            let bytes = 0;
            res.on('data', (c: Buffer) => (bytes += c.length));
            res.on('end', () => done(bytes));
            res.on('error', fail);
          },
        );
        req.on('error', fail);
        req.end();
      });
    const fetchOptions = { resolve: web.resolve, ca: web.pki.ca, connectTo: web.connectTo };
    // One answer per read, made before the clock starts: an answer reads an address once (a repeat is
    // answered from its first read), and its page budget would end a loop of reads anyway.
    const readers: string[] = [];
    for (let i = 0; i < 14; i++) {
      const reader = await app.inject({
        method: 'POST',
        url: '/api/answers',
        payload: { message: 'https://site.example/bench' },
        headers: { host: '127.0.0.1' },
      });
      readers.push((reader.json() as { answer: string }).answer);
    }
    const apiRead = async (): Promise<void> => {
      const answer = readers.shift();
      if (!answer) throw new Error('bench: more reads than answers made for them');
      const response = await app.inject({
        method: 'POST',
        url: '/api/read',
        payload: { answer, url: 'https://site.example/bench' },
        headers: { host: '127.0.0.1' },
      });
      const result = response.json() as { ok: boolean; reason?: string };
      if (!result.ok) throw new Error(`bench: the read failed (${result.reason ?? response.statusCode})`);
    };
    const plain: number[] = [];
    const pinned: number[] = [];
    const read: number[] = [];
    const rounds = 10;
    const kinds: Array<[number[], () => Promise<unknown>]> = [
      [plain, plainGet],
      [pinned, () => safeFetch('https://site.example/bench', fetchOptions)],
      [read, apiRead],
    ];
    for (let i = 0; i < rounds + 2; i++) {
      // Two warm-up rounds, then measured ones; the order rotates so that GC and drift hit all alike.
      for (let k = 0; k < kinds.length; k++) {
        const [samples, run] = kinds[(i + k) % kinds.length] as [number[], () => Promise<unknown>];
        const t = performance.now();
        await run();
        if (i >= 2) samples.push(performance.now() - t);
      }
    }
    figures.plain_get_ms = round(median(plain));
    figures.proxy_fetch_ms = round(median(pinned));
    figures.proxy_read_ms = round(median(read));
    figures.fetch_vs_plain_ratio = round(figures.proxy_fetch_ms / figures.plain_get_ms);
    figures.read_vs_plain_ratio = round(figures.proxy_read_ms / figures.plain_get_ms);
    figures.read_added_ms = round(figures.proxy_read_ms - figures.plain_get_ms);
    await app.close();

    // 4. The page server's answer to a plain request while a hostile read runs (issue 28, N9): a cited
    // page and five same-site links of 2 MB of "<" each, converted on the event loop (before) and in
    // the worker pool (now). Bounded: at most 400 probes per run.
    const site = fork(fileURLToPath(new URL('./hostile-site.ts', import.meta.url)), [], { execArgv: ['--import', 'tsx'] });
    const { port, ca } = await new Promise<{ port: number; ca: string }>((done) =>
      site.once('message', (message) => done(message as { port: number; ca: string })),
    );
    const hostileWeb: HostileWeb = {
      resolve: async (host) => (host === 'site.example' ? [{ address: PUBLIC.site, family: 4 }] : []),
      connectTo: () => ({ host: '127.0.0.1', port }),
      ca,
    };
    for (const [label, converter] of [
      ['inline', inlinePageConverter],
      ['pool', createPageConverter()],
    ] as const) {
      const probe = await hostileReadProbe(hostileWeb, converter);
      figures[`hostile_read_${label}_total_ms`] = round(probe.readMs, 0);
      figures[`hostile_read_${label}_probe_max_ms`] = round(probe.maxMs, 1);
      figures[`hostile_read_${label}_probe_median_ms`] = round(probe.medianMs, 1);
    }
    site.disconnect();
    figures.hostile_probe_max_pool_vs_inline_ratio = round((figures.hostile_read_pool_probe_max_ms ?? 0) / (figures.hostile_read_inline_probe_max_ms ?? 1), 4);
  } finally {
    await web.close();
  }
  return figures;
}

if (import.meta.url === `file://${process.argv[1]}`) {
  benchProxy().then(
    (figures) => console.log(JSON.stringify(figures, null, 2)),
    (error: unknown) => {
      console.error(error);
      process.exit(1);
    },
  );
}
