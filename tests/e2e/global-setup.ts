import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { build } from 'vite';
import type { TestProject } from 'vitest/node';
import { startAppServer } from '../../src/server/app-server.ts';

declare module 'vitest' {
  export interface ProvidedContext {
    /** Address of the production build, served the way `npm start` serves it. */
    appUrl: string;
  }
}

/**
 * Builds the page exactly as `npm run build` does, into a temporary folder, and serves it with
 * the production server, so the browser tests exercise what users get from `npm start`.
 */
export default async function setup(project: TestProject): Promise<() => Promise<void>> {
  const outDir = await mkdtemp(join(tmpdir(), 'nexus-e2e-dist-'));
  await build({
    configFile: fileURLToPath(new URL('../../vite.config.ts', import.meta.url)),
    logLevel: 'warn',
    build: { outDir, emptyOutDir: true },
  });
  const app = await startAppServer({ root: outDir, port: 0 });
  project.provide('appUrl', app.url);
  return async () => {
    await app.close();
    await rm(outDir, { recursive: true, force: true });
  };
}
