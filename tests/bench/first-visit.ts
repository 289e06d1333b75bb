/**
 * What a first visit to `/` costs on the wire before the user chooses anything (issue 54): the first paint
 * (the HTML and the scripts and styles it names) and everything the service worker precaches on that visit,
 * fetched from the production build as `npm start` serves it, asking for brotli as Chromium does. Baseline in
 * the same run: the same server asked for no compression, with the precache of before issue 54 (both ONNX
 * Runtime builds and pdf.js). Bytes, so the figures travel; the seconds are those bytes on a 1.6 Mbit/s link.
 */
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { startAppServer } from '../../src/server/app-server.ts';
import { buildProductionPage } from '../setup/build-page.ts';

/** The throttled link of issue 54's walk-through. */
const LINK_BITS_PER_SECOND = 1.6e6;

/** Bytes of `path` on the wire, asked with `acceptEncoding` (Node's request leaves the body as sent). */
async function wireBytes(base: string, path: string, acceptEncoding: string): Promise<number> {
  const { request } = await import('node:http');
  const url = new URL(path, base);
  return new Promise((done, fail) => {
    request(url, { headers: { 'Accept-Encoding': acceptEncoding } }, (res) => {
      let bytes = 0;
      res.on('data', (chunk: Buffer) => (bytes += chunk.length));
      res.on('end', () => done(res.statusCode === 200 ? bytes : 0));
    })
      .on('error', fail)
      .end();
  });
}

/** The first visit's figures. */
export interface FirstVisitFigures {
  firstPaint: { now: number; before: number };
  precache: { now: number; before: number; files: { now: number; before: number } };
}

/** Builds the page, serves it, and measures the first visit now and as it was before issue 54. */
export async function benchFirstVisit(): Promise<FirstVisitFigures> {
  const outDir = await mkdtemp(join(tmpdir(), 'nexus-first-visit-'));
  await buildProductionPage(outDir);
  const app = await startAppServer({ root: outDir, port: 0 });
  try {
    const html = await readFile(join(outDir, 'index.html'), 'utf8');
    const direct = ['/', ...[...html.matchAll(/(?:src|href)="(\/[^"]+\.(?:js|css))"/g)].map((m) => m[1] as string)];
    const sw = await readFile(join(outDir, 'sw.js'), 'utf8');
    const precached = [...sw.matchAll(/url:"([^"]+)"/g)].map((m) => `/${m[1]}`);
    // What was precached before: the same list and the files issue 54 left out of it.
    const { readdir } = await import('node:fs/promises');
    const onDemand = (await readdir(join(outDir, 'assets')))
      .filter((f) => /^(?:ort-wasm.*\.wasm|pdf\.worker.*|pdf-text-.*)$/.test(f))
      .map((f) => `/assets/${f}`);
    const sum = async (paths: readonly string[], encoding: string) =>
      (await Promise.all(paths.map((p) => wireBytes(app.url, p, encoding)))).reduce((a, b) => a + b, 0);
    return {
      firstPaint: { now: await sum(direct, 'gzip, deflate, br, zstd'), before: await sum(direct, 'identity') },
      precache: {
        now: await sum(precached, 'gzip, deflate, br, zstd'),
        before: await sum([...precached, ...onDemand], 'identity'),
        files: { now: precached.length, before: precached.length + onDemand.length },
      },
    };
  } finally {
    await app.close();
    await rm(outDir, { recursive: true, force: true });
  }
}

/** Prints the figures, with their ratio to the baseline and their time on the throttled link. */
export function printFirstVisit(figures: FirstVisitFigures): void {
  const kib = (n: number) => `${(n / 1024).toFixed(1)} KiB`;
  const mib = (n: number) => `${(n / 1024 / 1024).toFixed(2)} MiB`;
  const seconds = (n: number) => `${((n * 8) / LINK_BITS_PER_SECOND).toFixed(1)} s at 1.6 Mbit/s`;
  const { firstPaint, precache } = figures;
  console.log(
    `first paint on the wire: ${kib(firstPaint.now)} (${seconds(firstPaint.now)}); uncompressed ${kib(firstPaint.before)}; ratio ${(firstPaint.now / firstPaint.before).toFixed(3)}`,
  );
  console.log(
    `first visit before a model is chosen (page + precache): ${mib(precache.now + firstPaint.now)} in ${precache.files.now} files (${seconds(precache.now + firstPaint.now)}); ` +
      `before issue 54 ${mib(precache.before + firstPaint.before)} in ${precache.files.before} files (${seconds(precache.before + firstPaint.before)}); ratio ${((precache.now + firstPaint.now) / (precache.before + firstPaint.before)).toFixed(3)}`,
  );
}
