/**
 * `npm test`: the whole suite as two vitest runs side by side — the browser tier, one Chromium at a time, beside
 * the other three tiers — so the machine's two cores are both at work from start to end.
 *
 * Why not one `vitest run`: vitest puts a project limited to one worker (`fileParallelism: false`) in a group
 * of its own and runs that group after every other one, so the browser files (about half the suite's time)
 * ran alone on one core after the rest had finished. Arguments (`npm test -- src/x.test.ts`) run one
 * `vitest run` with them, as before. The last line sums both runs' `N passed, N failed, N skipped`.
 */
import { spawn } from 'node:child_process';
import { createInterface } from 'node:readline';
import { fileURLToPath } from 'node:url';
import { prepareFixtureModels } from './fixtures/prepare-models.ts';

const root = fileURLToPath(new URL('../', import.meta.url));
const vitest = fileURLToPath(new URL('../node_modules/vitest/vitest.mjs', import.meta.url));
const SUMMARY = /^(\d+) passed, (\d+) failed, (\d+) skipped$/;

/** Runs vitest with `args`, its lines passed through whole; resolves with its exit code and its summary line's counts. */
function run(args: string[]): Promise<{ code: number; counts: number[] | undefined }> {
  return new Promise((resolve) => {
    const child = spawn(process.execPath, [vitest, 'run', ...args], { cwd: root, stdio: ['ignore', 'pipe', 'pipe'], env: process.env });
    let counts: number[] | undefined;
    const pass = (stream: NodeJS.ReadableStream, to: NodeJS.WriteStream) =>
      createInterface({ input: stream }).on('line', (line) => {
        const summary = SUMMARY.exec(line.trim());
        if (summary) counts = summary.slice(1).map(Number);
        else to.write(`${line}\n`);
      });
    pass(child.stdout, process.stdout);
    pass(child.stderr, process.stderr);
    child.on('close', (code, signal) => resolve({ code: code ?? (signal ? 1 : 0), counts }));
  });
}

const given = process.argv.slice(2);
if (given.length) {
  const only = await run(given);
  if (only.counts) console.log(`${only.counts[0]} passed, ${only.counts[1]} failed, ${only.counts[2]} skipped`);
  process.exit(only.code);
}

const started = Date.now();
// Once, before both runs: two runs preparing the same files at once would race.
prepareFixtureModels();
// Both at the same priority: the rest yielding to the browser run (a niceness of 5) made both slower (966 s against 809).
const runs = await Promise.all([run(['--project', 'e2e']), run(['--project', 'unit', '--project', 'models', '--project', 'network'])]);
const [passed, failed, skipped] = [0, 1, 2].map((i) => runs.reduce((n, r) => n + (r.counts?.[i] ?? 0), 0));
const code = runs.some((r) => r.code !== 0 || !r.counts) ? 1 : 0;
console.log(`\nnpm test: both runs in ${Math.round((Date.now() - started) / 1000)} s`);
console.log(`${passed} passed, ${code && !failed ? 1 : failed} failed, ${skipped} skipped`);
process.exit(code);
