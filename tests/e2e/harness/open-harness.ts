import type { Page } from 'playwright-core';
import { inject } from 'vitest';

/** Opens the library harness (the built library on `window.nexus`) in `page`, and waits until it is ready. */
export async function openLibraryHarness(page: Page): Promise<Page> {
  await page.goto(new URL('tests/e2e/harness/index.html', inject('appUrl')).href);
  await page.waitForFunction(() => document.body.dataset.ready === 'true');
  return page;
}
