/**
 * Where a WASM decode step's time goes, at real size, in headless Chromium: the part of the
 * "all threads vs one" question that the runtime, not this project, decides.
 *
 * Three measurements from one run, with nothing of transformers.js or the engine around ONNX
 * Runtime Web (the same bundle and WASM build the app's worker loads):
 * - decode steps at a short and a long context, one thread and every core: two pages open at once
 *   taking turns, median of all their steps (a step's time varies by tens of percent from one
 *   minute to the next on a small machine, so one page after the other compares two moments);
 * - ONNX Runtime's own profile of a decode step on one thread, split into the kernels that hand
 *   work to the thread pool (seen in a profile on every core) and everything else, which gives
 *   the most any number of threads can gain (Amdahl);
 * - the copy of the present KV out of WASM memory into fresh arrays that the runtime makes after
 *   every step, against copying into reused arrays.
 */
import { copyFileSync, mkdirSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { startAppServer } from '../../src/server/app-server.ts';
import { launchChromium } from '../e2e/chromium.ts';

/** The KV layout of a decoder, read from its config.json. */
export interface KvShape {
  layers: number;
  kvHeads: number;
  headDim: number;
}

/** One node of the profile: its mean kernel time per step and whether it used the thread pool. */
interface ProfiledNode {
  op: string;
  us: number;
  parallel: boolean;
}

/** What the anatomy prints. */
export interface DecodeAnatomy {
  threads: number;
  /** Median decode step (ms) by context, for 1 thread and for `threads`. */
  steps: Record<number, { one: number; all: number }>;
  /** One thread at the long context: step wall time, kernels that use the pool, all other kernels. */
  profile: { runMs: number; parallelMs: number; serialKernelMs: number; byOp: { op: string; ms: number; parallel: boolean }[] };
  /** The most `threads` threads can gain on that step: T1 / (serial + parallel / threads). */
  amdahlBound: number;
  kvCopy: Record<number, { megabytes: number; freshMs: number; reusedMs: number }>;
}

const ROOT = fileURLToPath(new URL('../../', import.meta.url));
const SHORT = 16;
const LONG = 300;
/** Rounds in which the one-thread and the all-threads page take turns (6 timed steps each). */
const ROUNDS = 4;

const median = (values: readonly number[]) => [...values].sort((a, b) => a - b)[values.length >> 1] ?? NaN;

/** Reads the KV layout the way transformers.js does (head_dim, else hidden / heads). */
export function kvShapeOf(configPath: string): KvShape {
  const config = JSON.parse(readFileSync(configPath, 'utf8')) as Partial<Record<string, number>>;
  const { num_hidden_layers: layers, num_attention_heads: heads, hidden_size: hidden } = config;
  if (!layers || !heads || !(config.head_dim ?? hidden)) {
    throw new Error(`${configPath} lacks num_hidden_layers, num_attention_heads or hidden_size/head_dim: not a decoder config the anatomy can read.`);
  }
  return { layers, kvHeads: config.num_key_value_heads ?? heads, headDim: config.head_dim ?? (hidden as number) / heads };
}

/** The bound on the speed-up from `threads` threads when only `parallelMs` of `runMs` divides. */
export function amdahlBound(runMs: number, parallelMs: number, threads: number): number {
  return runMs / (runMs - parallelMs + parallelMs / threads);
}

/** Measures the anatomy of a decode step of `modelFolder`'s `file` (q8 by default) on `threads` threads. */
export async function measureDecodeAnatomy(modelFolder: string, threads: number, file = 'model_quantized.onnx'): Promise<DecodeAnatomy> {
  const shape = kvShapeOf(join(modelFolder, 'config.json'));
  const root = mkdtempSync(join(tmpdir(), 'nexus-anatomy-'));
  copyFileSync(join(ROOT, 'tests/bench/wasm-decode-anatomy.html'), join(root, 'index.html'));
  copyFileSync(join(ROOT, 'tests/bench/wasm-decode-anatomy.js'), join(root, 'wasm-decode-anatomy.js'));
  // The runtime's scripts are served as the page's own (a mount is data, which no browser runs as a module).
  mkdirSync(join(root, 'ort'));
  for (const name of ['ort.webgpu.min.mjs', 'ort-wasm-simd-threaded.mjs', 'ort-wasm-simd-threaded.wasm']) {
    copyFileSync(join(ROOT, 'node_modules/onnxruntime-web/dist', name), join(root, 'ort', name));
  }
  const app = await startAppServer({ root, port: 0, mounts: { '/models/': join(modelFolder, 'onnx') } });
  const browser = await launchChromium({ webgpu: false });
  const modelUrl = new URL(`models/${file}`, app.url).href;
  const openPage = async () => {
    const page = await browser.newPage();
    await page.goto(new URL('index.html', app.url).href);
    await page.waitForFunction(() => document.body.dataset.ready === 'true');
    return page;
  };
  try {
    // Both pages stay open and take turns, so a slow spell of the machine falls on both alike.
    type StepWindow = {
      openSession(a: { modelUrl: string; threads: number }): Promise<boolean>;
      decodeSteps(a: { shape: KvShape; context: number; warmup: number; steps: number }): Promise<number[]>;
    };
    const pages = { one: await openPage(), all: await openPage() };
    const times: Record<number, { one: number[]; all: number[] }> = { [SHORT]: { one: [], all: [] }, [LONG]: { one: [], all: [] } };
    for (const [which, count] of [
      ['one', 1],
      ['all', threads],
    ] as const) {
      const isolated = await pages[which].evaluate((args) => (window as unknown as StepWindow).openSession(args), { modelUrl, threads: count });
      if (count > 1 && !isolated) throw new Error('The anatomy page is not cross-origin isolated, so it cannot use more than one thread.');
    }
    for (let round = 0; round < ROUNDS; round++) {
      for (const context of [SHORT, LONG]) {
        for (const which of ['one', 'all'] as const) {
          const taken = await pages[which].evaluate((args) => (window as unknown as StepWindow).decodeSteps(args), {
            shape,
            context,
            warmup: round === 0 ? 4 : 1,
            steps: 6,
          });
          times[context]![which].push(...taken);
        }
      }
    }
    await pages.one.close();
    await pages.all.close();
    const profileFor = async (count: number) => {
      const page = await openPage();
      const profiled = await page.evaluate(
        (args) => (window as unknown as { profileSteps(a: typeof args): Promise<{ runUs: number; nodes: Record<string, ProfiledNode> }> }).profileSteps(args),
        { modelUrl, shape, threads: count, context: LONG, warmup: 4, steps: 4 },
      );
      await page.close();
      return profiled;
    };
    const single = await profileFor(1);
    const pooled = await profileFor(threads);
    // A node is parallel when, given the threads, it handed work to the pool; its time is the one-thread time
    // (the profile on every core only classifies: its per-node bookkeeping slows that run too much to time it).
    let parallelUs = 0;
    let serialKernelUs = 0;
    const byOp = new Map<string, { op: string; ms: number; parallel: boolean }>();
    for (const [name, node] of Object.entries(single.nodes)) {
      const withPool = pooled.nodes[name];
      const parallel = withPool?.parallel ?? false;
      if (parallel) {
        parallelUs += node.us;
      } else serialKernelUs += node.us;
      const key = `${node.op}${parallel ? ' (pool)' : ''}`;
      const entry = byOp.get(key) ?? { op: node.op, ms: 0, parallel };
      entry.ms += node.us / 1000;
      byOp.set(key, entry);
    }
    const page = await openPage();
    const kvCopy = await page.evaluate((args) => (window as unknown as { kvCopy(a: typeof args): DecodeAnatomy['kvCopy'] }).kvCopy(args), {
      shape,
      contexts: [SHORT, LONG, 1000],
      repeats: 7,
    });
    await page.close();
    const runMs = single.runUs / 1000;
    return {
      threads,
      steps: Object.fromEntries(Object.entries(times).map(([context, t]) => [context, { one: median(t.one), all: median(t.all) }])),
      profile: { runMs, parallelMs: parallelUs / 1000, serialKernelMs: serialKernelUs / 1000, byOp: [...byOp.values()].sort((a, b) => b.ms - a.ms) },
      amdahlBound: amdahlBound(runMs, parallelUs / 1000, threads),
      kvCopy,
    };
  } finally {
    await browser.close();
    await app.close();
    rmSync(root, { recursive: true, force: true });
  }
}

/** Prints the anatomy as the real-size bench does. */
export function printDecodeAnatomy(anatomy: DecodeAnatomy): void {
  const fmt = (n: number, digits = 1) => n.toFixed(digits);
  const { threads, steps, profile, kvCopy } = anatomy;
  console.log(`\n== Anatomy of a WASM decode step (q8, ONNX Runtime Web alone in Chromium, no engine around it)`);
  for (const [context, s] of Object.entries(steps)) {
    console.log(`context ${context.padStart(4)}: median step 1 thread ${fmt(s.one)} ms, ${threads} threads ${fmt(s.all)} ms, ratio ${fmt(s.one / s.all, 2)}`);
  }
  const other = profile.runMs - profile.parallelMs - profile.serialKernelMs;
  console.log(
    `profile, 1 thread, context ${LONG}: step ${fmt(profile.runMs)} ms = kernels that use the pool ${fmt(profile.parallelMs)} ms (${fmt((100 * profile.parallelMs) / profile.runMs, 0)} %) ` +
      `+ kernels that do not ${fmt(profile.serialKernelMs)} ms + outside kernels ${fmt(other)} ms`,
  );
  console.log(
    `  largest: ${profile.byOp
      .slice(0, 6)
      .map((o) => `${o.op}${o.parallel ? ' (pool)' : ''} ${fmt(o.ms)} ms`)
      .join(', ')}`,
  );
  console.log(`  most ${threads} threads can gain on this step (Amdahl, perfect scaling of the pool's share): ${fmt(anatomy.amdahlBound, 2)}×`);
  for (const [context, c] of Object.entries(kvCopy)) {
    console.log(
      `present KV out of WASM memory after each step, context ${context.padStart(4)} (${fmt(c.megabytes, 0)} MB): into fresh arrays (what the runtime does) ${fmt(c.freshMs)} ms, ` +
        `into reused arrays ${fmt(c.reusedMs)} ms (ratio ${fmt(c.freshMs / Math.max(c.reusedMs, 0.01), 1)})`,
    );
  }
}
