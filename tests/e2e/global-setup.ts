import { existsSync } from 'node:fs';
import { cp, mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { build } from 'vite';
import type { TestProject } from 'vitest/node';
import { startAppServer } from '../../src/server/app-server.ts';
import { FIXTURE_MODELS_DIR, TINY_QWEN3, prepareFixtureModels } from '../fixtures/prepare-models.ts';
import { publishFolder } from '../publish-folder.ts';
import { ensureChromium } from '../setup/ensure-chromium.ts';
import { CHROMIUM_PATH } from './chromium.ts';
import { HARNESS_DIR } from './harness/harness-dir.ts';

declare module 'vitest' {
  export interface ProvidedContext {
    /** Address of the production build, served the way `npm start` serves it. */
    appUrl: string;
    /** The production build's folder, for tests that serve a copy of it (a second deployment). */
    appDist: string;
    /** The fixture models the app serves under /models/. */
    modelsDir: string;
    /** A folder for builds every browser file of the run shares (the scripted harness): `NEXUS_E2E_BUILD_DIR` where set. */
    buildCache: string;
  }
}

/**
 * Builds the page exactly as `npm run build` does, into a temporary folder, and serves it with
 * the production server, so the browser tests exercise what users get from `npm start`.
 *
 * The builds live in one folder, `buildCache`, which the browser files share (the scripted harness is built there
 * once too). `NEXUS_E2E_BUILD_DIR` (set by `npm test`, which runs the browser files in two vitest runs) names it:
 * the first run builds into it, a later one finds it built, and the folder is the caller's to remove. Without it
 * the folder is this run's, removed at the end.
 */
export default async function setup(project: TestProject): Promise<() => Promise<void>> {
  // A fresh machine has no Chromium: install Debian's (as root), or stop with one line saying how.
  ensureChromium(CHROMIUM_PATH);
  const shared = process.env.NEXUS_E2E_BUILD_DIR;
  const cache = shared ?? (await mkdtemp(join(tmpdir(), 'nexus-e2e-builds-')));
  const outDir = await sharedBuild(cache);
  // The fixture models, served from the app's own origin, plus a copy whose q4 file is corrupt so
  // the ladder's fall-back to a fresh worker can be watched.
  prepareFixtureModels();
  const models = await mkdtemp(join(tmpdir(), 'nexus-e2e-models-'));
  await cp(join(FIXTURE_MODELS_DIR, TINY_QWEN3), join(models, TINY_QWEN3), { recursive: true });
  await cp(join(FIXTURE_MODELS_DIR, TINY_QWEN3), join(models, 'tiny-broken-q8'), { recursive: true });
  // The random model under a name no test remembers a verdict for: its self-check runs for minutes on SwiftShader.
  await cp(join(FIXTURE_MODELS_DIR, TINY_QWEN3), join(models, 'tiny-unchecked'), { recursive: true });
  await writeFile(join(models, 'tiny-broken-q8', 'onnx', 'model_quantized.onnx'), 'this is not an ONNX file');
  // A folder as a fresh clone served it before its tokenizer files were copied (issue 68, P2.6).
  await cp(join(FIXTURE_MODELS_DIR, TINY_QWEN3), join(models, 'tiny-no-tokenizer'), { recursive: true });
  await Promise.all(['tokenizer.json', 'tokenizer_config.json'].map((file) => rm(join(models, 'tiny-no-tokenizer', file))));
  // The model trained to call tools, and a copy whose first dtype on the ladder is broken.
  await cp(join(FIXTURE_MODELS_DIR, 'tiny-tools-qwen3'), join(models, 'tiny-tools-qwen3'), { recursive: true });
  await cp(join(FIXTURE_MODELS_DIR, 'tiny-tools-qwen3'), join(models, 'tools-broken-q8'), { recursive: true });
  await writeFile(join(models, 'tools-broken-q8', 'onnx', 'model_quantized.onnx'), 'this is not an ONNX file');
  // The same weights in the appended KV layout (issue 31).
  await cp(join(FIXTURE_MODELS_DIR, `${TINY_QWEN3}-appended`), join(models, `${TINY_QWEN3}-appended`), { recursive: true });
  // The Qwen3.5 layout: linear-attention layers with a recurrent state (issue 40).
  await cp(join(FIXTURE_MODELS_DIR, 'tiny-random-qwen3_5'), join(models, 'tiny-random-qwen3_5'), { recursive: true });
  // The sentence encoder of the tool index's semantic ranking.
  await cp(join(FIXTURE_MODELS_DIR, 'tiny-embed-bert'), join(models, 'tiny-embed-bert'), { recursive: true });
  const app = await startAppServer({ root: outDir, port: 0, mounts: { '/models/': models } });
  project.provide('appUrl', app.url);
  project.provide('appDist', outDir);
  project.provide('modelsDir', models);
  project.provide('buildCache', cache);
  return async () => {
    await app.close();
    if (!shared) await rm(cache, { recursive: true, force: true });
    await rm(models, { recursive: true, force: true });
  };
}

/** The page, then apart the test-only harness that puts the library on window.nexus, built into `outDir`. */
async function buildApp(outDir: string): Promise<void> {
  // Vitest sets NODE_ENV=test, which would make this a development build (Lit's dev mode, no
  // service worker registration): the page users get is built with NODE_ENV=production.
  const nodeEnv = process.env.NODE_ENV;
  process.env.NODE_ENV = 'production';
  const configFile = fileURLToPath(new URL('../../vite.config.ts', import.meta.url));
  // The page alone, as `npm run build` makes it: its chunks are the ones users download (and the budget
  // measures). Then, apart, the harness: built with the page, it would share chunks with it and change them.
  await build({ mode: 'production', configFile, logLevel: 'warn', build: { outDir, emptyOutDir: true } })
    .then(() =>
      build({
        mode: 'production',
        configFile,
        logLevel: 'warn',
        base: `/${HARNESS_DIR}/`,
        build: {
          outDir: join(outDir, HARNESS_DIR),
          emptyOutDir: true,
          rolldownOptions: { input: { harness: fileURLToPath(new URL('./harness/index.html', import.meta.url)) } },
        },
      }),
    )
    .finally(() => {
      if (nodeEnv === undefined) delete process.env.NODE_ENV;
      else process.env.NODE_ENV = nodeEnv;
    });
}

/**
 * The build in `folder/app`, made once: a run that finds it there uses it. Each run builds into a folder of its
 * own and renames it into place, so two runs starting together both end with one whole build.
 */
async function sharedBuild(folder: string): Promise<string> {
  const target = join(folder, 'app');
  if (existsSync(target)) return target;
  await mkdir(folder, { recursive: true });
  const own = await mkdtemp(join(folder, 'building-'));
  await buildApp(own);
  // Another run may have put its build there first: the same sources, so either will do.
  publishFolder(own, target);
  return target;
}
