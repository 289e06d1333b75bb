// The page converter's worker when the proxy runs from its TypeScript sources (npm start, npm run proxy, the
// tests): worker threads do not inherit tsx's loader. Loading the worker through tsx's API in each thread cost
// 1.1 CPU-s a thread (it starts a loader thread of its own); compiling it with esbuild (tsx's own compiler, a
// dev dependency) and importing plain JavaScript costs about a third of that (issue 55).
// The published library runs the compiled convert-page-worker.js directly and never loads this file.
import { createHash, randomUUID } from 'node:crypto';
import { mkdirSync, renameSync, writeFileSync } from 'node:fs';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { build } from 'esbuild';

const compiled = await build({
  entryPoints: [fileURLToPath(new URL('./convert-page-worker.ts', import.meta.url))],
  bundle: true,
  platform: 'node',
  format: 'esm',
  // Its packages stay imports, found from the project's node_modules: the file is written below it.
  packages: 'external',
  write: false,
  logLevel: 'warning',
});
const folder = fileURLToPath(new URL('../../node_modules/.cache/nexus-page-converter/', import.meta.url));
mkdirSync(folder, { recursive: true });
// Named by its contents, and renamed into place whole: threads starting at once never read a half-written file.
const code = compiled.outputFiles[0].contents;
const file = `${folder}convert-page-worker-${createHash('sha256').update(code).digest('hex').slice(0, 16)}.mjs`;
const partial = `${file}.${randomUUID()}`;
writeFileSync(partial, code);
renameSync(partial, file);

const { default: convert } = await import(pathToFileURL(file).href);

export default convert;
