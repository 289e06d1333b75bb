import { cp, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { startAppServer, type AppServer } from '../../src/server/app-server.ts';
import { launchChromium, watchPage } from './chromium.ts';
import { holdDecoding } from './app/decode-hold.ts';
import { lastAnswer, rememberVerdict, sendMessage, waitIdle } from './app/page-helpers.ts';
import { TIMEOUTS } from '../timeouts.ts';

const MODEL_PATH = '/models/tiny-random-qwen3';
/** What the second deployment adds to the page, so the test can tell which version runs. */
const SECOND = '<meta name="nexus-deployment" content="second">';

/**
 * A second deployment of the page while a tab is open (issue 30, item 2): announced, never applied
 * mid-answer, applied by "Reload now" once the page is idle. The production build is served from a
 * folder of its own, then the folder becomes the next deployment: the page with a change and the
 * service worker whose precache lists it (as a rebuild writes them).
 */
describe('a new version of the page, deployed while a tab is open', () => {
  let browser: Browser;
  let page: Page;
  let server: AppServer;
  let folder: string;

  /** Writes the next deployment over the served folder: index.html changed, and its revision in sw.js. */
  async function deploySecond(): Promise<void> {
    const html = await readFile(join(folder, 'index.html'), 'utf8');
    await writeFile(join(folder, 'index.html'), html.replace('<head>', `<head>${SECOND}`));
    const sw = await readFile(join(folder, 'sw.js'), 'utf8');
    const next = sw.replace(/(\{url:"index\.html",revision:")[0-9a-f]+"/, '$1second-deployment"');
    expect(next).not.toBe(sw);
    await writeFile(join(folder, 'sw.js'), next);
  }

  const runningSecond = () => page.evaluate(() => document.querySelector('meta[name="nexus-deployment"]') !== null);
  const ready = () =>
    page
      .getByTestId('model-status')
      .filter({ hasText: /^Ready(?: without tools)?: / })
      .waitFor({ timeout: TIMEOUTS.loadsModel });

  beforeAll(async () => {
    folder = await mkdtemp(join(tmpdir(), 'nexus-e2e-deploy-'));
    await cp(inject('appDist'), folder, { recursive: true });
    server = await startAppServer({ root: folder, port: 0, mounts: { '/models/': inject('modelsDir') } });
    browser = await launchChromium({ webgpu: false });
    page = await browser.newPage({ viewport: { width: 1280, height: 800 } });
    watchPage(page, new URL(server.url).origin);
  }, TIMEOUTS.browserHook);

  afterAll(async () => {
    await browser?.close();
    await server?.close();
    await rm(folder, { recursive: true, force: true });
  });

  it('announces it, keeps the running version through an answer, and applies it on "Reload now" once idle', async () => {
    await page.goto(server.url);
    // A remembered verdict skips the self-check, which is not under test here; the random model then answers at length.
    await rememberVerdict(page, new URL(MODEL_PATH, server.url).href, { webgpu: false }, { ok: false, detail: 'remembered for this test' });
    await page.goto(`${server.url}?model=${encodeURIComponent(MODEL_PATH)}`);
    await page.evaluate(() => navigator.serviceWorker.ready.then(() => undefined));
    // The first install controls the page from its next load; only then is a new version an update.
    await page.reload();
    await ready();
    expect(await page.evaluate(() => navigator.serviceWorker.controller !== null)).toBe(true);
    expect(await page.getByTestId('update-ready').count()).toBe(0);

    await deploySecond();
    // Asked until it is seen, as a browser checks again on its own: an update check the page's load started may
    // still be running, and one asked for meanwhile joins it and reads the sw.js it read (issue 70).
    await expect
      .poll(
        async () => {
          await page.evaluate(() => navigator.serviceWorker.getRegistration().then((registration) => registration?.update().catch(() => undefined)));
          return page.getByTestId('update-ready').count();
        },
        { timeout: TIMEOUTS.answers },
      )
      .toBe(1);
    expect(await page.getByTestId('update-ready').textContent()).toContain('the next reload uses it');
    expect(await runningSecond()).toBe(false);

    // Mid-answer the update waits: "Reload now" cannot be pressed, and nothing reloads. The answer is held after its
    // first token until the Stop reaches the worker, so it is still being written at every check (issue 70).
    await holdDecoding(page);
    await sendMessage(page, 'Write a short essay on rain.');
    await page.getByTestId('stop').waitFor({ timeout: TIMEOUTS.reacts });
    const apply = page.getByTestId('apply-update');
    expect(await apply.isDisabled()).toBe(true);
    expect(await apply.getAttribute('title')).toBe('After this answer');
    await expect.poll(() => lastAnswer(page).getAttribute('data-state'), { timeout: TIMEOUTS.answers }).toBe('streaming');
    expect(await apply.isDisabled()).toBe(true);
    await page.getByTestId('stop').click();
    await expect.poll(() => lastAnswer(page).getAttribute('data-state'), { timeout: TIMEOUTS.answers }).toBe('stopped');
    await waitIdle(page, 60_000);
    expect(await runningSecond()).toBe(false);

    // Idle, it applies: the page reloads into the second deployment.
    await Promise.all([page.waitForEvent('load', { timeout: TIMEOUTS.answers }), apply.click()]);
    await expect.poll(runningSecond, { timeout: TIMEOUTS.answers }).toBe(true);
    await ready();
    expect(await page.getByTestId('update-ready').count()).toBe(0);
  });
});
