import { chromium, type Browser, type Page } from 'playwright-core';

/** Debian's Chromium; tests never download a browser of their own. */
export const CHROMIUM_PATH = process.env.CHROMIUM_PATH ?? '/usr/bin/chromium';

/** Flags that keep a headless Chromium off the network and quiet on a closed machine. */
const BASE_ARGS = ['--no-sandbox', '--disable-background-networking', '--disable-component-update', '--disable-sync', '--no-first-run', '--disable-quic'];

/**
 * V8 flags for the test tier's browsers (`NEXUS_CHROMIUM_JS_FLAGS`, set by the e2e project in vite.config.ts):
 * `--liftoff-only` keeps ONNX Runtime's 27 MB WASM on V8's baseline compiler. Each test's fresh browser
 * compiles it again, and the optimizing tier's background compiles were about a third of the browser tests'
 * CPU on this two-core machine (two files: 150 CPU-s → 105). What the tests check does not change; the
 * benchmarks, which time the runtime, launch without it.
 */
const JS_FLAGS = process.env.NEXUS_CHROMIUM_JS_FLAGS;

/**
 * Starts headless Chromium (`args` after the usual ones). With `webgpu`, `--enable-unsafe-webgpu` gives a software adapter
 * (SwiftShader, no `shader-f16`); without it the page sees no adapter and takes the WASM path.
 */
export function launchChromium({ webgpu, args = [] }: { webgpu: boolean; args?: readonly string[] }): Promise<Browser> {
  return chromium.launch({
    executablePath: CHROMIUM_PATH,
    headless: true,
    args: [...BASE_ARGS, ...(webgpu ? ['--enable-unsafe-webgpu'] : []), ...(JS_FLAGS ? [`--js-flags=${JS_FLAGS}`] : []), ...args],
  });
}

/**
 * Records, from now on, every request the page makes that would leave `origin` (the app must never
 * fetch anything but its own files) and every uncaught page error.
 */
export function watchPage(page: Page, origin: string): { foreign: string[]; errors: string[] } {
  const foreign: string[] = [];
  const errors: string[] = [];
  page.on('request', (request) => {
    const url = request.url();
    if (!url.startsWith(origin) && !url.startsWith('data:') && !url.startsWith('blob:')) foreign.push(url);
  });
  page.on('pageerror', (error) => errors.push(error.message));
  return { foreign, errors };
}
