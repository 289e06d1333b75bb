import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, inject } from 'vitest';
import { launchChromium } from '../chromium.ts';
import { HARNESS_DIR } from './harness-dir.ts';

/** Opens the library harness (the built library on `window.nexus`) in `page`, and waits until it is ready. */
export async function openLibraryHarness(page: Page): Promise<Page> {
  await page.goto(new URL(`${HARNESS_DIR}/tests/e2e/harness/index.html`, inject('appUrl')).href);
  await page.waitForFunction(() => document.body.dataset.ready === 'true');
  return page;
}

/**
 * For the enclosing `describe`: a Chromium (with or without the WebGPU flag) launched before its
 * tests and closed after them, with one page on the library harness. Returns that page's getter.
 */
export function useLibraryHarness({ webgpu }: { webgpu: boolean }): () => Page {
  let browser: Browser | undefined;
  let page: Page | undefined;
  beforeAll(async () => {
    browser = await launchChromium({ webgpu });
    page = await openLibraryHarness(await browser.newPage());
  });
  afterAll(() => browser?.close());
  return () => {
    if (!page) throw new Error('The library harness page is opened in beforeAll; use it inside a test.');
    return page;
  };
}
