import { cp, mkdir, mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type AppServer, startAppServer } from '../../src/server/app-server.ts';
import { kvShapeOf } from '../bench/wasm-decode-anatomy.ts';
import { FIXTURE_MODELS_DIR, prepareFixtureModels } from '../fixtures/prepare-models.ts';
import { launchChromium } from './chromium.ts';

const ROOT = fileURLToPath(new URL('../../', import.meta.url));

interface StepReport {
  presentIsTheTensorGiven: boolean;
  pastUntouched: boolean;
  presentHoldsSentinel: boolean;
  presentShape: number[];
  presentOwnBuffer: boolean;
}

/**
 * What ONNX Runtime Web's WASM backend does with a decode step's KV cache, in Chromium, with the
 * CPU build the app loads (issue 31). Canaries for the routes its public API offers: each says
 * which way the runtime works today, and fails the day a release changes it, so the engine can
 * take the cheaper route then.
 */
describe('ONNX Runtime Web on WASM: where the KV cache goes in a decode step', () => {
  let server: AppServer;
  let browser: Browser;
  let page: Page;
  let root: string | undefined;
  const folder = () => `${FIXTURE_MODELS_DIR}/tiny-random-qwen3`;
  const step = (preallocate: boolean): Promise<StepReport> =>
    page.evaluate((args) => (window as unknown as { decodeStep(a: unknown): Promise<StepReport> }).decodeStep(args), {
      modelUrl: new URL('models/model_quantized.onnx', server.url).href,
      ...kvShapeOf(`${folder()}/config.json`),
      context: 8,
      preallocate,
    });

  beforeAll(async () => {
    prepareFixtureModels();
    // The page and the runtime's scripts in one folder served as pages are (mounted data is not served as script).
    root = await mkdtemp(join(tmpdir(), 'nexus-ort-io-'));
    await cp(`${ROOT}tests/e2e/ort-io`, root, { recursive: true });
    await mkdir(join(root, 'ort'));
    for (const file of ['ort.wasm.min.mjs', 'ort-wasm-simd-threaded.mjs', 'ort-wasm-simd-threaded.wasm']) {
      await cp(`${ROOT}node_modules/onnxruntime-web/dist/${file}`, join(root, 'ort', file));
    }
    server = await startAppServer({ root, port: 0, mounts: { '/models/': `${folder()}/onnx` } });
    browser = await launchChromium({ webgpu: false });
    page = await browser.newPage();
    await page.goto(server.url);
    await page.waitForFunction(() => document.body.dataset.ready === 'true');
  });

  afterAll(async () => {
    await browser?.close();
    await server?.close();
    if (root) await rm(root, { recursive: true, force: true });
  });

  it('copies each present KV out into a fresh array of its own after every step', async () => {
    const report = await step(false);
    expect(report.presentShape).toEqual([1, kvShapeOf(`${folder()}/config.json`).kvHeads, 9, kvShapeOf(`${folder()}/config.json`).headDim]);
    expect(report.presentOwnBuffer).toBe(true);
    expect(report.pastUntouched).toBe(true);
  });

  it('never writes a step into a pre-allocated CPU output: the array given comes back as it was (so that route saves nothing)', async () => {
    const report = await step(true);
    expect(report.presentIsTheTensorGiven).toBe(true);
    expect(report.presentHoldsSentinel).toBe(true);
  });
});
