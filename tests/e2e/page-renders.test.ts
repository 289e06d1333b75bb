import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { launchChromium } from './chromium.ts';
import { screenshot } from './app/page-helpers.ts';
import { TIMEOUTS } from '../timeouts.ts';

describe.each([
  { webgpu: true, runtime: /^Only a software WebGPU adapter is available here \(no GPU\): the model will run on WASM/ },
  { webgpu: false, runtime: /No WebGPU adapter: the model will run on WASM/ },
])('the page in headless Chromium (webgpu flag: $webgpu)', ({ webgpu, runtime }) => {
  let browser: Browser;
  let page: Page;
  const pageErrors: string[] = [];

  beforeAll(async () => {
    browser = await launchChromium({ webgpu });
    page = await browser.newPage();
    page.on('pageerror', (error) => pageErrors.push(error.message));
    await page.goto(inject('appUrl'));
  });
  afterAll(() => browser?.close());

  it('renders the Lit root element', async () => {
    await expect.poll(() => page.locator('nexus-app h1').textContent()).toBe('Nexus Chat');
  });

  it('tells which runtime the model will use', async () => {
    await expect.poll(() => page.getByTestId('runtime').textContent(), { timeout: TIMEOUTS.works }).toMatch(runtime);
    await screenshot(page, webgpu ? 'first-visit-picker-webgpu' : 'first-visit-picker');
  });

  it('shows the Load button on a first visit without scrolling, above the message box (issue 30, P2.5)', async () => {
    await page.setViewportSize({ width: 1280, height: 860 });
    const load = await page.getByTestId('load-model').boundingBox();
    const composer = await page.getByTestId('prompt').boundingBox();
    expect(load).not.toBeNull();
    expect(composer).not.toBeNull();
    expect((load?.y ?? 0) + (load?.height ?? 0)).toBeLessThanOrEqual(composer?.y ?? 0);
    expect(load?.y ?? -1).toBeGreaterThanOrEqual(0);
  });

  it('offers the model folders this app serves in the picker, one click from the address field (issue 30, P2.5)', async () => {
    const served = page.getByTestId('served-models');
    await served.waitFor({ timeout: TIMEOUTS.reacts });
    const names = await served.locator('button').allTextContents();
    expect(names).toEqual(expect.arrayContaining(['tiny-random-qwen3', 'tiny-tools-qwen3']));
    await served.locator('button', { hasText: /^tiny-tools-qwen3$/ }).click();
    expect(await page.getByTestId('custom-model').inputValue()).toBe('/models/tiny-tools-qwen3');
    expect(await page.getByTestId('load-model').textContent()).toBe('Load model');
  });

  it.runIf(webgpu)('uses the software adapter only when the user chooses it in settings, and says so', async () => {
    await page.getByTestId('open-settings').click();
    await page.getByTestId('software-webgpu').check();
    await page.getByTestId('close-drawer').click();
    await expect.poll(() => page.getByTestId('runtime').textContent(), { timeout: TIMEOUTS.works }).toMatch(/software WebGPU adapter you chose/);
    await page.getByTestId('open-settings').click();
    await page.getByTestId('software-webgpu').uncheck();
    await page.getByTestId('close-drawer').click();
    await expect.poll(() => page.getByTestId('runtime').textContent(), { timeout: TIMEOUTS.works }).toMatch(runtime);
  });

  it('loads tools.js and lists what it registered', async () => {
    await page.getByTestId('open-tools').click();
    const tools = page.getByTestId('tools');
    await tools.waitFor({ timeout: TIMEOUTS.works });
    const names = await tools.locator('code').allTextContents();
    expect(names).toEqual(expect.arrayContaining(['current_datetime', 'calculator', 'get_weather']));
    expect(pageErrors).toEqual([]);
  });
});
