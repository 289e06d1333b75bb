/**
 * `npm test`: the whole suite in two lanes side by side, so the machine's two cores are both at work from start
 * to end: the browser tier, one Chromium at a time, in one; the other three tiers, then the browser files
 * named in `AFTER_THE_OTHER_TIERS`, in the other.
 *
 * Why not one `vitest run`: vitest puts a project limited to one worker (`fileParallelism: false`) in a group
 * of its own and runs that group after every other one, so the browser files (about half the suite's time)
 * ran alone on one core after the rest had finished. And with the browser tier whole in one lane, that lane
 * still ran alone for its last 280 s (698 s in all, issue 55): the other tiers take about 410 s. Both browser
 * runs share one build of the page (`NEXUS_E2E_BUILD_DIR`, tests/e2e/global-setup.ts).
 *
 * Arguments (`npm test -- src/x.test.ts`) run one `vitest run` with them, as before. The last line sums every
 * run's `N passed, N failed, N skipped`.
 */
import { spawn } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createInterface } from 'node:readline';
import { fileURLToPath } from 'node:url';
import { prepareFixtureModels } from './fixtures/prepare-models.ts';

const root = fileURLToPath(new URL('../', import.meta.url));
const vitest = fileURLToPath(new URL('../node_modules/vitest/vitest.mjs', import.meta.url));
const SUMMARY = /^(\d+) passed, (\d+) failed, (\d+) skipped$/;

/**
 * Browser files the second lane runs once the other tiers are done, which levels the two lanes (issue 55). Levelled
 * for a machine with a CPU-bound job beside the suite, where 600 s is hardest to hold (issue 70): there the Node
 * model tier slows down more than the browser files (at 0fbad8e, loaded: first lane 556 s; second 390 s for the
 * other tiers, then 195 s for these with app-a11y among them; quiet: 479 s against 311 + 167 s). At 503e6c2,
 * loaded, with ai-sdk-example here: first lane 540 s, second 392 + 186 s; it runs in the first lane since. At
 * 6c6324f (issue 67's files' worker and its browser tests), quiet: first lane 517 s, second 335 + 112 s; app-update
 * (20 s) moved here.
 */
const AFTER_THE_OTHER_TIERS = ['tests/e2e/kv-cache-paths.test.ts', 'tests/e2e/app-mcp.test.ts', 'tests/e2e/app-update.test.ts'];

/** Runs vitest with `args`, its lines passed through whole; resolves with its exit code and its summary line's counts. */
function run(args: string[], env: NodeJS.ProcessEnv = process.env): Promise<{ code: number; counts: number[] | undefined }> {
  return new Promise((resolve) => {
    const child = spawn(process.execPath, [vitest, 'run', ...args], { cwd: root, stdio: ['ignore', 'pipe', 'pipe'], env });
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
const build = mkdtempSync(join(tmpdir(), 'nexus-e2e-build-'));
const env = { ...process.env, NEXUS_E2E_BUILD_DIR: build };
// Both at the same priority: the rest yielding to the browser run (a niceness of 5) made both slower (966 s against 809).
const lanes = await Promise.all([
  run(['--project', 'e2e', ...AFTER_THE_OTHER_TIERS.flatMap((file) => ['--exclude', file])], env).then((browser) => [browser]),
  run(['--project', 'unit', '--project', 'models', '--project', 'network'], env).then(async (rest) => [
    rest,
    await run(['--project', 'e2e', ...AFTER_THE_OTHER_TIERS], env),
  ]),
]).finally(() => rmSync(build, { recursive: true, force: true }));
const runs = lanes.flat();
const [passed, failed, skipped] = [0, 1, 2].map((i) => runs.reduce((n, r) => n + (r.counts?.[i] ?? 0), 0));
const code = runs.some((r) => r.code !== 0 || !r.counts) ? 1 : 0;
console.log(`\nnpm test: both lanes in ${Math.round((Date.now() - started) / 1000)} s`);
console.log(`${passed} passed, ${code && !failed ? 1 : failed} failed, ${skipped} skipped`);
process.exit(code);
