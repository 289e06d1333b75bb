import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { launchChromium, watchPage } from './chromium.ts';
import { allowSoftwareWebgpu, rememberVerdict } from './app/page-helpers.ts';
import { TIMEOUTS } from '../timeouts.ts';
import { holdDecoding } from './app/decode-hold.ts';

/**
 * Opens the page on a model and records every request that would leave the app's origin. With
 * `remembered`, a self-check verdict is stored first, so the page loads without checking again:
 * the check is the app's business (app-model.test.ts), and on SwiftShader WebGPU the random
 * fixture's check runs for minutes.
 */
async function openOnModel(browser: Browser, model: string, remembered?: { webgpu: boolean }): Promise<{ page: Page; foreign: string[]; errors: string[] }> {
  const page = await browser.newPage();
  const { foreign, errors } = watchPage(page, new URL(inject('appUrl')).origin);
  if (remembered) {
    await page.goto(inject('appUrl'));
    // The WebGPU path here is SwiftShader's software adapter, which runs only when chosen in settings.
    if (remembered.webgpu) await allowSoftwareWebgpu(page);
    // Remembered as calling tools, so an answer escalates and writes text (held there until Stop, by the test).
    await rememberVerdict(page, new URL(model, inject('appUrl')).href, remembered, { ok: true, detail: 'remembered as calling tools, for this test' });
  }
  await page.goto(`${inject('appUrl')}?model=${encodeURIComponent(model)}`);
  return { page, foreign, errors };
}

// The WASM path: the same load, answer and stop on SwiftShader's WebGPU adapter are app-model.test.ts' (its
// WebGPU part), where they cost a software-rendered load once rather than twice (issue 55: the suite's time).
describe('the model worker in headless Chromium, WASM path', () => {
  const webgpu = false;
  const ready = /Ready(?: without tools)?: .*tiny-random-qwen3 on WASM q4$/;
  let browser: Browser;
  let page: Page;
  let foreign: string[];
  let errors: string[];

  beforeAll(async () => {
    browser = await launchChromium({ webgpu });
    ({ page, foreign, errors } = await openOnModel(browser, '/models/tiny-random-qwen3', { webgpu }));
  });
  afterAll(() => browser?.close());

  it("loads the fixture from the app's own origin on the device the ladder picks (no shader-f16 here, so q4)", async () => {
    await expect.poll(() => page.getByTestId('model-status').textContent(), { timeout: TIMEOUTS.loadsModel, interval: 500 }).toMatch(ready);
    expect(errors).toEqual([]);
  });

  it('streams tokens into the page and stops when asked', async () => {
    // Held after its first token until the Stop reaches the worker: the answer cannot end first (issue 70).
    await holdDecoding(page);
    await page.getByTestId('prompt').fill('What is the weather in Paris?');
    await page.getByTestId('send').click();
    const answer = page.locator('.turn[data-role="assistant"]').last();
    await expect.poll(async () => ((await answer.textContent()) ?? '').trim().length, { timeout: TIMEOUTS.answers }).toBeGreaterThan(0);
    await page.getByTestId('stop').click();
    await expect.poll(() => answer.getAttribute('data-state'), { timeout: TIMEOUTS.answers }).toBe('stopped');
    await page.getByTestId('send').waitFor({ timeout: TIMEOUTS.reacts });
  });

  it('sent no request anywhere but its own origin', () => {
    expect(foreign).toEqual([]);
  });
});

describe('a quantization that fails to load', () => {
  let browser: Browser;
  afterAll(() => browser?.close());

  // The page self-checks the model it lands on (here about half a minute on WASM) before Ready.
  it('is retried down the ladder in a fresh worker', { timeout: TIMEOUTS.browserHook }, async () => {
    browser = await launchChromium({ webgpu: false });
    // WASM tries q8 first (measured faster); its file is broken here, so q4 loads in a fresh worker.
    const { page, foreign } = await openOnModel(browser, '/models/tiny-broken-q8');
    await expect
      .poll(() => page.getByTestId('model-status').textContent(), { timeout: TIMEOUTS.browserHook, interval: 500 })
      .toMatch(/Ready(?: without tools)?: .*tiny-broken-q8 on WASM q4$/);
    expect(foreign).toEqual([]);
  });
});
