import { mkdir } from 'node:fs/promises';
import { fileURLToPath } from 'node:url';
import type { Locator, Page } from 'playwright-core';
import { describeSource, verdictKey, type ToolVerdict } from '../../../src/internal.ts';

/** Where the test run saves screenshots and figures for a reviewer. */
export const SCREENSHOTS_DIR = fileURLToPath(new URL('../screenshots/', import.meta.url));

/** Saves a screenshot of the page under tests/e2e/screenshots/. */
export async function screenshot(page: Page, name: string): Promise<void> {
  await mkdir(SCREENSHOTS_DIR, { recursive: true });
  // Let transitions and the last render settle, so the picture shows the state, not a frame of it:
  // every running animation finished, then two frames.
  await page.evaluate(async () => {
    await Promise.all(document.getAnimations().map((animation) => animation.finished.catch(() => undefined)));
    await new Promise((resolve) => requestAnimationFrame(() => requestAnimationFrame(resolve)));
  });
  await page.screenshot({ path: `${SCREENSHOTS_DIR}${name}.png` });
}

/** Types a message and sends it with Enter, as a keyboard user would. */
export async function sendMessage(page: Page, text: string): Promise<void> {
  const prompt = page.getByTestId('prompt');
  await prompt.fill(text);
  await prompt.press('Enter');
}

/** The last answer in the conversation. */
export function lastAnswer(page: Page): Locator {
  return page.locator('.turn[data-role="assistant"]').last();
}

/** Waits until no answer is being generated (Send is back). */
export async function waitIdle(page: Page, timeout = 30_000): Promise<void> {
  await page.getByTestId('send').waitFor({ timeout });
}

/**
 * Stores a self-check verdict the way the page remembers one, so a load skips the check. Used
 * where the check itself is not under test: on SwiftShader WebGPU the random fixture's check runs
 * for minutes, since the model never stops generating. The page must be on the app's origin.
 */
export async function rememberVerdict(
  page: Page,
  modelUrl: string,
  runtime: { webgpu: boolean; shaderF16?: boolean },
  verdict: Partial<ToolVerdict> = {},
): Promise<void> {
  const key = verdictKey(describeSource({ url: modelUrl }), { runtime: 'browser', webgpu: runtime.webgpu, shaderF16: runtime.shaderF16 ?? false });
  const value: ToolVerdict = {
    dtype: 'q4',
    device: runtime.webgpu ? 'webgpu' : 'wasm',
    ok: false,
    needed_forcing: false,
    detail: `${modelUrl} (q4 on ${runtime.webgpu ? 'webgpu' : 'wasm'}) does not call tools: asked for a code only a tool could give, it answered without calling one.`,
    checkedAt: new Date().toISOString(),
    ...verdict,
  };
  // idb-keyval's default database, which both the library and the page use for verdicts.
  await page.evaluate(
    ([key, value]) =>
      new Promise<void>((resolve, reject) => {
        const open = indexedDB.open('keyval-store');
        open.onupgradeneeded = () => open.result.createObjectStore('keyval');
        open.onerror = () => reject(open.error);
        open.onsuccess = () => {
          const tx = open.result.transaction('keyval', 'readwrite');
          tx.objectStore('keyval').put(value, key);
          tx.oncomplete = () => {
            open.result.close();
            resolve();
          };
          tx.onerror = () => reject(tx.error);
        };
      }),
    [key, value] as const,
  );
}

/**
 * Turns on "Use a software WebGPU adapter" in settings (saved in the browser): the only WebGPU this
 * machine has is SwiftShader, which the page otherwise leaves unused in favour of WASM.
 */
export async function allowSoftwareWebgpu(page: Page): Promise<void> {
  await page.getByTestId('open-settings').click();
  await page.getByTestId('software-webgpu').check();
  await page.getByTestId('close-drawer').click();
  // The settings are saved asynchronously: wait until the write is in IndexedDB before the next navigation
  // (polled by hand: this runs in hooks too, where expect.poll may not).
  for (let tries = 0; ; tries++) {
    if (((await readStored(page, 'settings')) as { softwareWebgpu?: boolean } | undefined)?.softwareWebgpu === true) return;
    if (tries === 200) throw new Error('The software WebGPU setting was not saved.');
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}

/**
 * A value the page stored in IndexedDB (its idb-keyval store `app` in `database`), read in the page:
 * tests wait for a save by polling this, never by sleeping.
 */
export function readStored(page: Page, key: string, database = 'nexus-chat'): Promise<unknown> {
  return page.evaluate(
    ({ key, database }) =>
      new Promise((resolve, reject) => {
        const open = indexedDB.open(database);
        open.onerror = () => reject(open.error);
        open.onsuccess = () => {
          const db = open.result;
          if (!db.objectStoreNames.contains('app')) {
            db.close();
            resolve(undefined);
            return;
          }
          const request = db.transaction('app').objectStore('app').get(key);
          request.onsuccess = () => {
            db.close();
            resolve(request.result);
          };
          request.onerror = () => reject(request.error);
        };
      }),
    { key, database },
  );
}
