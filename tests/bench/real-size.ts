/**
 * `npm run bench -- --real-size`: speed at Qwen3-0.6B's real size, with a random-weight model of
 * its exact shape built on demand (tests/fixtures/build-tiny-qwen3.py --real-size, into the
 * git-ignored .cache/; about 0.5 GB a quantization, a few minutes once). Never run by `npm test`.
 *
 * Prints, from one run: prefill and decode tokens/s for q4 and q8 in Node and in headless Chromium
 * on WASM with one thread and with every thread; the browser/Node and all/one-thread ratios; load
 * time; the KV transcript against a naive re-prefill on a cold 4-round tool conversation; peak memory.
 */
import { spawnSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { NexusChat } from '../../src/nexus/index.ts';
import type { KvLayout } from '../../src/engine/appended-kv-session.ts';
import { TransformersEngine } from '../../src/engine/transformers-engine.ts';
import { useSource } from '../../src/engine/use-source.ts';
import { CHROMIUM_PATH, launchChromium } from '../e2e/chromium.ts';
import { ensureChromium } from '../setup/ensure-chromium.ts';
import { prepareFixtureModels } from '../fixtures/prepare-models.ts';
import { openHarnessPage, serveBenchHarness } from './bench-harness.ts';
import { conversation } from './engine-bench.ts';
import { profileEngineDecode, printEngineDecodeProfile } from './engine-decode-profile.ts';
import { measureDecodeAnatomy, printDecodeAnatomy } from './wasm-decode-anatomy.ts';

const ROOT = fileURLToPath(new URL('../../', import.meta.url));
export const CACHE = join(ROOT, '.cache');
export const MODEL = 'real-size-qwen3';
export const REAL_SIZE_FOLDER = join(CACHE, MODEL);
const FOLDER = REAL_SIZE_FOLDER;
const DTYPES = ['q4', 'q8'] as const;
/** Decode steps timed per measurement: enough to average, few enough for q4 on one WASM thread (~2 s a token). */
const DECODE_TOKENS = 16;
/**
 * Untimed decode steps first: the first passes after a load are slower (Chromium compiles WASM in
 * tiers, and on a small machine the previous page is still being torn down). Timed straight after
 * the prefill, q8 read 3.1–3.6 tok/s on one thread in the bench; after this warm-up 5.0.
 */
const WARMUP_TOKENS = 4;

/** Prefill and decode speed of one model × dtype × place. */
export interface SpeedFigure {
  where: string;
  dtype: string;
  threads?: number;
  loadMs: number;
  promptTokens: number;
  prefillPerSecond: number;
  decodePerSecond: number;
}

/** A prompt of about 300 tokens (292 with Qwen3's template), the size of a system prompt with a few tools. */
const REAL_SIZE_PROMPT = `Here is a long note to read before answering. ${'The weather in the northern valleys stays cool through the spring, with rain most afternoons and clear, cold nights. '.repeat(10)}Summarise it in one line.`;

/** The benchmark model's folder name for each KV layout (the appended one built with `--appended-kv`). */
export const REAL_SIZE_MODELS: Readonly<Record<KvLayout, string>> = { present: MODEL, appended: `${MODEL}-appended` };

/** Builds the benchmark model (in `layout`) unless it is there; says what to install when it cannot. Returns its folder. */
export function ensureRealSizeModel(layout: KvLayout = 'present'): string {
  const folder = join(CACHE, REAL_SIZE_MODELS[layout]);
  if (existsSync(join(folder, 'onnx', 'model_q4.onnx')) && existsSync(join(folder, 'onnx', 'model_quantized.onnx'))) return folder;
  prepareFixtureModels(); // the tokenizer files it copies
  console.log(`Building the real-size benchmark model (${layout} KV layout) into ${folder} (once; a few minutes, about 1.1 GB)…`);
  const args = [join(ROOT, 'tests/fixtures/build-tiny-qwen3.py'), '--real-size', ...(layout === 'appended' ? ['--appended-kv'] : []), '--out', folder];
  const built = spawnSync('/usr/bin/python3', args, { stdio: 'inherit' });
  if (built.status !== 0) {
    throw new Error(
      "Could not build the real-size model. It needs Debian's python3-onnx and python3-numpy: apt-get install -y --no-install-recommends python3-onnx python3-numpy",
    );
  }
  return folder;
}

/** Times a prefill (one new token), warms up, then times decode steps on the same prompt, whose KV is then cached. */
async function speedOf(chat: { chat: NexusChat['chat'] }): Promise<{ promptTokens: number; prefillPerSecond: number; decodePerSecond: number }> {
  const ask = (maxNewTokens: number) => chat.chat(REAL_SIZE_PROMPT, { maxNewTokens, toolChoice: 'none', isolated: true, repetitionPenalty: 1 });
  const prefill = await ask(1);
  await ask(WARMUP_TOKENS + 1);
  const decode = await ask(DECODE_TOKENS + 1);
  const steps = Math.max(decode.metrics.newTokens - 1, 1);
  return {
    promptTokens: prefill.metrics.promptTokens,
    prefillPerSecond: prefill.metrics.promptTokens / (prefill.metrics.ms / 1000),
    decodePerSecond: steps / (decode.metrics.ms / 1000),
  };
}

/**
 * Node (native ONNX Runtime) with one thread and with every core: the baseline for what threads
 * can do for decode on this machine at all, apart from WASM.
 */
export async function nodeSpeeds(threadCounts: readonly number[]): Promise<SpeedFigure[]> {
  const figures: SpeedFigure[] = [];
  for (const dtype of DTYPES) {
    for (const numThreads of threadCounts) {
      const started = performance.now();
      const chat = await NexusChat.load({ path: FOLDER }, { dtype, numThreads });
      const loadMs = performance.now() - started;
      figures.push({ where: 'Node', dtype, threads: numThreads, loadMs, ...(await speedOf(chat)) });
      await chat.dispose();
    }
  }
  return figures;
}

/** The same measurement in headless Chromium, WASM, in the library's worker, with the given thread counts. */
export async function browserSpeeds(threadCounts: readonly number[]): Promise<SpeedFigure[]> {
  const harness = await serveBenchHarness(CACHE);
  const browser = await launchChromium({ webgpu: false });
  const figures: SpeedFigure[] = [];
  try {
    for (const dtype of DTYPES) {
      for (const numThreads of threadCounts) {
        const page = await openHarnessPage(browser, harness);
        const measured = await page.evaluate(
          async ({ url, dtype, numThreads, prompt, decodeTokens, warmupTokens }) => {
            const started = performance.now();
            const chat = await window.nexus.NexusChat.load({ url }, { dtype, device: 'wasm', numThreads });
            const loadMs = performance.now() - started;
            // No inner named functions here: tsx would wrap them in a helper the page does not have.
            const prefill = await chat.chat(prompt, { maxNewTokens: 1, toolChoice: 'none', isolated: true, repetitionPenalty: 1 });
            await chat.chat(prompt, { maxNewTokens: warmupTokens + 1, toolChoice: 'none', isolated: true, repetitionPenalty: 1 });
            const decode = await chat.chat(prompt, { maxNewTokens: decodeTokens + 1, toolChoice: 'none', isolated: true, repetitionPenalty: 1 });
            const threads = chat.info.threads ?? 1;
            await chat.dispose();
            return { loadMs, threads, prefill: prefill.metrics, decode: decode.metrics };
          },
          { url: `${harness.modelsUrl}${MODEL}`, dtype, numThreads, prompt: REAL_SIZE_PROMPT, decodeTokens: DECODE_TOKENS, warmupTokens: WARMUP_TOKENS },
        );
        const steps = Math.max(measured.decode.newTokens - 1, 1);
        figures.push({
          where: 'Chromium WASM',
          dtype,
          threads: measured.threads,
          loadMs: measured.loadMs,
          promptTokens: measured.prefill.promptTokens,
          prefillPerSecond: measured.prefill.promptTokens / (measured.prefill.ms / 1000),
          decodePerSecond: steps / (measured.decode.ms / 1000),
        });
        await page.close();
      }
    }
  } finally {
    await browser.close();
    await harness.close();
  }
  return figures;
}

/** The KV transcript against a naive re-prefill on a cold 4-round tool conversation, q4 in Node. */
async function coldTranscript(): Promise<{ transcript: { prefilledTokens: number; ms: number }; naive: { prefilledTokens: number; ms: number } }> {
  const load = (reuseCache: boolean) => TransformersEngine.load(useSource({ path: FOLDER }), { dtype: 'q4', device: 'cpu', reuseCache });
  const withTranscript = await load(true);
  const transcript = await conversation(withTranscript);
  await withTranscript.dispose();
  const naiveEngine = await load(false);
  const naive = await conversation(naiveEngine);
  await naiveEngine.dispose();
  return { transcript, naive };
}

const fmt = (n: number, digits = 2) => n.toFixed(digits);

/** The anatomy of a WASM decode step on `cores` threads and one: ONNX Runtime Web alone, then inside the engine. */
export async function runDecodeAnatomy(cores: number): Promise<void> {
  ensureRealSizeModel();
  ensureChromium(CHROMIUM_PATH);
  printDecodeAnatomy(await measureDecodeAnatomy(FOLDER, cores));
  for (const profiled of await profileEngineDecode(FOLDER, [...new Set([1, cores])], REAL_SIZE_PROMPT)) printEngineDecodeProfile(profiled);
}

/** Runs the whole real-size bench and prints it. */
export async function runRealSizeBench(): Promise<void> {
  ensureRealSizeModel();
  // A fresh machine has no Chromium until the tests' setup installs it; the bench does the same.
  ensureChromium(CHROMIUM_PATH);
  let peakRss = 0;
  const sampler = setInterval(() => (peakRss = Math.max(peakRss, process.memoryUsage().rss)), 200);
  try {
    const cores = (await import('node:os')).availableParallelism();
    console.log(`\n== Real size (Qwen3-0.6B's shape, random weights, ${FOLDER}); ${cores} cores`);
    const node = await nodeSpeeds([...new Set([1, cores])]);
    const browser = await browserSpeeds([...new Set([1, cores])]);
    for (const f of [...node, ...browser]) {
      console.log(
        `${f.where.padEnd(14)} ${f.dtype.padEnd(4)} ${f.threads ? `${f.threads} thread${f.threads === 1 ? ' ' : 's'}` : '         '}  load ${fmt(f.loadMs / 1000, 1).padStart(5)} s  ` +
          `prefill ${fmt(f.prefillPerSecond, 1).padStart(6)} tok/s (${f.promptTokens} tokens)  decode ${fmt(f.decodePerSecond, 2).padStart(6)} tok/s`,
      );
    }
    const mostThreads = (figures: SpeedFigure[], dtype: string) =>
      figures.filter((f) => f.dtype === dtype).sort((a, b) => (b.threads ?? 1) - (a.threads ?? 1))[0];
    for (const dtype of DTYPES) {
      const inNode = mostThreads(node, dtype);
      const nodeOne = node.find((f) => f.dtype === dtype && f.threads === 1);
      const one = browser.find((f) => f.dtype === dtype && f.threads === 1);
      const all = mostThreads(browser, dtype);
      if (!inNode || !nodeOne || !one || !all) continue;
      console.log(
        `${dtype}: browser (${all.threads} threads) / Node decode ${fmt(all.decodePerSecond / inNode.decodePerSecond, 3)}; ` +
          `all threads / one thread decode: browser ${fmt(all.decodePerSecond / one.decodePerSecond, 2)}, Node ${fmt(inNode.decodePerSecond / nodeOne.decodePerSecond, 2)}; ` +
          `prefill: browser ${fmt(all.prefillPerSecond / one.prefillPerSecond, 2)}, Node ${fmt(inNode.prefillPerSecond / nodeOne.prefillPerSecond, 2)}`,
      );
    }
    const q4 = browser.filter((f) => f.threads === cores);
    const fastest = [...q4].sort((a, b) => b.decodePerSecond - a.decodePerSecond)[0];
    if (fastest)
      console.log(
        `fastest on WASM here: ${fastest.dtype} (the ladder's order on WASM: ${q4
          .sort((a, b) => b.decodePerSecond - a.decodePerSecond)
          .map((f) => f.dtype)
          .join(' then ')})`,
      );
    await runDecodeAnatomy(cores);
    const { transcript, naive } = await coldTranscript();
    console.log(
      `cold 4-round tool conversation, q4 Node: prefilled ${transcript.prefilledTokens} vs ${naive.prefilledTokens} tokens (${fmt(transcript.prefilledTokens / naive.prefilledTokens, 3)}), ` +
        `wall ${fmt(transcript.ms / naive.ms, 3)} of naive`,
    );
    console.log(`peak RSS of the bench process (Node side): ${fmt(peakRss / 1024 ** 3, 2)} GiB`);
  } finally {
    clearInterval(sampler);
  }
}
