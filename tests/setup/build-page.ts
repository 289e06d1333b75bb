import { fileURLToPath } from 'node:url';
import { build } from 'vite';

/**
 * Builds the page into `outDir` exactly as `npm run build` does. Run under vitest (NODE_ENV=test) Vite would
 * make a development build (Lit's dev mode, no service worker registration): the page users get is built with
 * NODE_ENV=production, restored afterwards.
 */
export async function buildProductionPage(outDir: string): Promise<void> {
  const nodeEnv = process.env.NODE_ENV;
  process.env.NODE_ENV = 'production';
  try {
    await build({
      mode: 'production',
      configFile: fileURLToPath(new URL('../../vite.config.ts', import.meta.url)),
      logLevel: 'warn',
      build: { outDir, emptyOutDir: true },
    });
  } finally {
    if (nodeEnv === undefined) delete process.env.NODE_ENV;
    else process.env.NODE_ENV = nodeEnv;
  }
}
