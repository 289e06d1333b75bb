/**
 * The test harness page (the library on `window.nexus`) built into a temporary folder and served
 * as `npm start` serves the app: cross-origin isolated, so ONNX Runtime Web may use every thread.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { Browser, Page } from 'playwright-core';
import { build } from 'vite';
import { startAppServer } from '../../src/server/app-server.ts';

const ROOT = fileURLToPath(new URL('../../', import.meta.url));

/** A served harness build. */
export interface BenchHarness {
  /** The harness page's address. */
  pageUrl: string;
  /** Where `modelsFolder`'s model folders are served (`${modelsUrl}<folder>`). */
  modelsUrl: string;
  /** The build's folder (its source maps sit beside the scripts in `assets/` when asked for). */
  outDir: string;
  close(): Promise<void>;
}

/** Builds the harness (with source maps if asked) and serves it, with `modelsFolder` under `/models/`. */
export async function serveBenchHarness(modelsFolder: string, { sourcemap = false } = {}): Promise<BenchHarness> {
  const outDir = mkdtempSync(join(tmpdir(), 'nexus-bench-dist-'));
  await build({
    configFile: join(ROOT, 'vite.config.ts'),
    logLevel: 'error',
    build: { outDir, emptyOutDir: true, sourcemap, rolldownOptions: { input: { harness: join(ROOT, 'tests/e2e/harness/index.html') } } },
  });
  const app = await startAppServer({ root: outDir, port: 0, mounts: { '/models/': modelsFolder } });
  return {
    pageUrl: new URL('tests/e2e/harness/index.html', app.url).href,
    modelsUrl: new URL('models/', app.url).href,
    outDir,
    close: async () => {
      await app.close();
      rmSync(outDir, { recursive: true, force: true });
    },
  };
}

/** A new page of `browser` on the harness, once the library is on `window.nexus`. */
export async function openHarnessPage(browser: Browser, harness: BenchHarness): Promise<Page> {
  const page = await browser.newPage();
  await page.goto(harness.pageUrl);
  await page.waitForFunction(() => document.body.dataset.ready === 'true');
  return page;
}
