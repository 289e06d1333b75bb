/**
 * A TypeScript entry that tests start as a child process, compiled once to plain JavaScript (esbuild, its
 * packages left as imports) instead of through tsx at every start. Under tsx a proxy instance took 2.0 CPU-s
 * to start, compiled 1.0; the tests start about 50 such processes a run (issue 55). The page converter's
 * worker threads gain the same way: from source each one loads tsx in its thread (1.1 CPU-s), compiled 0.35.
 *
 * The output is named by a hash of what was compiled, so a changed source is a new folder and two runs at
 * once (`npm test`'s two lanes) never write over each other's files.
 */
import { createHash } from 'node:crypto';
import { mkdirSync, writeFileSync } from 'node:fs';
import { basename, dirname, join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';
import { build } from 'esbuild';
import { publishFolder } from './publish-folder.ts';

const root = fileURLToPath(new URL('../', import.meta.url));
/** Under node_modules, so a fresh clone starts without it and `git status` never shows it. */
const CACHE = join(root, 'node_modules', '.cache', 'nexus-compiled-entries');

/**
 * The proxy's page converter finds its worker file beside itself (`import.meta.url`): compiled, as
 * `convert-page-worker.js`. An entry that runs the proxy passes this as `beside`.
 */
export const PAGE_CONVERTER_WORKER: Readonly<Record<string, string>> = {
  'convert-page-worker': join(root, 'src', 'proxy', 'convert-page-worker.ts'),
};

const compiled = new Map<string, Promise<string>>();

/**
 * The compiled form of `entry` (a path to a `.ts` file): the path of a `.js` file to run with plain `node`,
 * built once per process.
 * @param beside - other entries compiled into the same folder, by the name (without `.js`) the code loads them by.
 */
export function compiledEntry(entry: string, { beside = {} }: { beside?: Readonly<Record<string, string>> } = {}): Promise<string> {
  const key = JSON.stringify([entry, beside]);
  let file = compiled.get(key);
  if (!file) {
    file = compile(entry, beside);
    compiled.set(key, file);
    file.catch(() => compiled.delete(key));
  }
  return file;
}

async function compile(entry: string, beside: Readonly<Record<string, string>>): Promise<string> {
  const name = basename(entry).replace(/\.ts$/, '');
  const result = await build({
    entryPoints: { [name]: entry, ...beside },
    bundle: true,
    platform: 'node',
    format: 'esm',
    target: 'node20',
    packages: 'external',
    outdir: '/',
    write: false,
    logLevel: 'warning',
  });
  const files = result.outputFiles.map((output) => ({ path: relative('/', output.path), contents: output.contents }));
  const hash = createHash('sha256');
  for (const { path, contents } of files) hash.update(path).update(contents);
  const folder = join(CACHE, `${name}-${hash.digest('hex').slice(0, 16)}`);
  const staging = `${folder}.${process.pid}-${Math.random().toString(36).slice(2)}`;
  mkdirSync(staging, { recursive: true });
  // Outside the project's own package scope (node_modules ends it), `.js` would be read as CommonJS.
  writeFileSync(join(staging, 'package.json'), '{ "type": "module" }\n');
  for (const { path, contents } of files) {
    mkdirSync(dirname(join(staging, path)), { recursive: true });
    writeFileSync(join(staging, path), contents);
  }
  // Another process may have compiled the same sources first: the same bytes are there already.
  publishFolder(staging, folder);
  return join(folder, `${name}.js`);
}
