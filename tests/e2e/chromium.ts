import { chromium, type Browser } from 'playwright-core';

/** Debian's Chromium; tests never download a browser of their own. */
export const CHROMIUM_PATH = process.env.CHROMIUM_PATH ?? '/usr/bin/chromium';

/** Flags that keep a headless Chromium off the network and quiet on a closed machine. */
const BASE_ARGS = [
  '--no-sandbox',
  '--disable-background-networking',
  '--disable-component-update',
  '--disable-sync',
  '--no-first-run',
  '--disable-quic',
];

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
