/**
 * `npm run bench -- --page`: the page's visit figures (issue 30), each the median of five in real
 * Chromium on the WASM path, with the fixture model trained to call tools, from the production
 * build served as `npm start` serves it:
 * - first visit → usable composer: a fresh browser profile, the model downloaded and self-checked;
 * - returning visit → ready: a reload with the model and its verdict remembered;
 * - offline reload → answer: the network cut, the page reloaded, one question answered.
 * A figure, not a limit: run it on a quiet machine. The baseline, in the same run, is the same
 * build with ONNX Runtime's WebGPU build served in place of its CPU build (what every model loaded
 * before issue 30, P2.7): the returning visit's ratio to it is the CPU build's gain.
 */
import { cp, mkdtemp, readdir, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { type Browser, type Page, chromium } from 'playwright-core';
import { startAppServer } from '../../src/server/app-server.ts';
import { buildProductionPage } from '../setup/build-page.ts';
import { lastAnswer, sendMessage, waitIdle } from '../e2e/app/page-helpers.ts';
import { CHROMIUM_PATH } from '../e2e/chromium.ts';
import { FIXTURE_MODELS_DIR, prepareFixtureModels } from '../fixtures/prepare-models.ts';
import { ensureChromium } from '../setup/ensure-chromium.ts';
import { TIMEOUTS } from '../timeouts.ts';

const MODEL = 'tiny-tools-qwen3';
const RUNS = 5;

const median = (values: readonly number[]) => {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.floor(sorted.length / 2)] ?? Number.NaN;
};

/** Milliseconds until the model is ready and Send can be pressed. */
async function untilReady(page: Page, since: number): Promise<number> {
  await page
    .getByTestId('model-status')
    .filter({ hasText: /^Ready(?: without tools)?: / })
    .waitFor({ timeout: TIMEOUTS.browserHook });
  return Date.now() - since;
}

/** One fresh profile: first visit, then {@link RUNS} reloads; the last profile also answers offline. */
async function visit(browser: Browser, url: string, offline: boolean): Promise<{ first: number; returning: number[]; offlineAnswer?: number }> {
  const context = await browser.newContext({ viewport: { width: 1280, height: 800 } });
  try {
    const page = await context.newPage();
    let since = Date.now();
    await page.goto(url);
    const first = await untilReady(page, since);
    // The service worker installs in the background of the first visit: wait for it, as a user's next visit would.
    await page.evaluate(() => navigator.serviceWorker.ready.then(() => undefined));
    const returning: number[] = [];
    for (let i = 0; i < RUNS; i++) {
      since = Date.now();
      await page.reload();
      returning.push(await untilReady(page, since));
    }
    if (!offline) return { first, returning };
    await context.setOffline(true);
    since = Date.now();
    await page.reload();
    await untilReady(page, since);
    await sendMessage(page, 'Write one line about rain.');
    await waitIdle(page, 120_000);
    if ((await lastAnswer(page).getAttribute('data-state')) !== 'done') throw new Error('The offline answer did not finish.');
    return { first, returning, offlineAnswer: Date.now() - since };
  } finally {
    await context.close();
  }
}

/** Five fresh profiles on `url`: the first visits, the median returning visit of each, and (with `offline`) the offline answers. */
async function measure(browser: Browser, url: string, offline: boolean): Promise<{ first: number[]; returning: number[]; offline: number[] }> {
  const result = { first: [] as number[], returning: [] as number[], offline: [] as number[] };
  for (let i = 0; i < RUNS; i++) {
    const run = await visit(browser, url, offline);
    result.first.push(run.first);
    result.returning.push(median(run.returning));
    if (run.offlineAnswer !== undefined) result.offline.push(run.offlineAnswer);
  }
  return result;
}

/** A copy of the build whose CPU build of ONNX Runtime is the WebGPU build under the CPU build's names. */
async function baselineCopy(outDir: string): Promise<string> {
  const copy = await mkdtemp(join(tmpdir(), 'nexus-bench-page-baseline-'));
  await cp(outDir, copy, { recursive: true });
  const assets = await readdir(join(copy, 'assets'));
  for (const ext of ['wasm', 'mjs']) {
    const cpu = assets.find((name) => name.startsWith('ort-wasm-simd-threaded-') && name.endsWith(`.${ext}`));
    const gpu = assets.find((name) => name.startsWith('ort-wasm-simd-threaded.asyncify-') && name.endsWith(`.${ext}`));
    if (!cpu || !gpu) throw new Error(`The build has no ONNX Runtime .${ext} of each kind: ${assets.join(', ')}`);
    await cp(join(copy, 'assets', gpu), join(copy, 'assets', cpu));
  }
  return copy;
}

/** Runs the page figures and prints them. */
export async function runPageVisitsBench(): Promise<void> {
  // A fresh machine has no Chromium: install Debian's (as root), or stop with one line saying how.
  ensureChromium(CHROMIUM_PATH);
  const outDir = await mkdtemp(join(tmpdir(), 'nexus-bench-page-'));
  const models = await mkdtemp(join(tmpdir(), 'nexus-bench-models-'));
  await buildProductionPage(outDir);
  prepareFixtureModels();
  await cp(join(FIXTURE_MODELS_DIR, MODEL), join(models, MODEL), { recursive: true });
  const baselineDir = await baselineCopy(outDir);
  const app = await startAppServer({ root: outDir, port: 0, mounts: { '/models/': models } });
  const baselineApp = await startAppServer({ root: baselineDir, port: 0, mounts: { '/models/': models } });
  const browser = await chromium.launch({ executablePath: CHROMIUM_PATH, headless: true });
  try {
    const path = `?model=${encodeURIComponent(`/models/${MODEL}`)}`;
    const now = await measure(browser, `${app.url}${path}`, true);
    const before = await measure(browser, `${baselineApp.url}${path}`, false);
    const first = median(now.first);
    const seconds = (ms: number) => `${(ms / 1000).toFixed(1)} s`;
    const runs = (values: readonly number[]) => `(runs: ${values.map(seconds).join(', ')})`;
    console.log(`== The page (WASM, ${MODEL}, production build; median of ${RUNS}, each run a fresh browser profile)`);
    console.log(`first visit → usable composer   ${seconds(first).padStart(7)}  ${runs(now.first)}`);
    console.log(
      `returning visit → ready         ${seconds(median(now.returning)).padStart(7)}  baseline (WebGPU build on the CPU) ${seconds(median(before.returning))}, ratio ${(median(now.returning) / median(before.returning)).toFixed(3)}  ${runs(now.returning)}`,
    );
    console.log(
      `offline reload → answer         ${seconds(median(now.offline)).padStart(7)}  ratio to the first visit ${(median(now.offline) / first).toFixed(3)}  ${runs(now.offline)}`,
    );
    console.log(`first visit, baseline           ${seconds(median(before.first)).padStart(7)}  ratio ${(first / median(before.first)).toFixed(3)}`);
  } finally {
    await browser.close();
    await Promise.all([app.close(), baselineApp.close()]);
    await Promise.all([outDir, baselineDir, models].map((dir) => rm(dir, { recursive: true, force: true })));
  }
}
