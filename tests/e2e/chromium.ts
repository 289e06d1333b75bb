import { chromium, type Browser, type Page } from 'playwright-core';

/** Debian's Chromium; tests never download a browser of their own. */
export const CHROMIUM_PATH = process.env.CHROMIUM_PATH ?? '/usr/bin/chromium';

/** Flags that keep a headless Chromium off the network and quiet on a closed machine. */
const BASE_ARGS = ['--no-sandbox', '--disable-background-networking', '--disable-component-update', '--disable-sync', '--no-first-run', '--disable-quic'];

/**
 * Starts headless Chromium. With `webgpu`, `--enable-unsafe-webgpu` gives a software adapter
 * (SwiftShader, no `shader-f16`); without it the page sees no adapter and takes the WASM path.
 */
export function launchChromium({ webgpu }: { webgpu: boolean }): Promise<Browser> {
  return chromium.launch({
    executablePath: CHROMIUM_PATH,
    headless: true,
    args: webgpu ? [...BASE_ARGS, '--enable-unsafe-webgpu'] : BASE_ARGS,
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
