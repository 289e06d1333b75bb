/**
 * `npm run bench -- --decode-curve`: decode speed as the context grows (issue 31), at Qwen3-0.6B's
 * real size (the random-weight model of tests/bench/real-size.ts), in Node and in headless
 * Chromium on WASM (every core), q8 and q4, in one run.
 *
 * For each place and quantization the model loads once; the context then grows through
 * {@link CONTEXTS} tokens, each prompt extending the last (the engine's transcript keeps the KV of
 * the shared prefix, so only the new part is prefilled), and at each size a few tokens are decoded
 * after a warm-up. Decode speed is the extra tokens of a longer answer over its extra time, both
 * answers on the same (cached) prompt, so neither the prefill nor the first step is in it. Printed as tokens/s, as a ratio to the same place's speed at 16
 * tokens (what the context costs), Chromium as a ratio to Node (what the browser costs), and the
 * appended KV layout as a ratio to the present one (what not copying the cache per token saves).
 *
 * Both KV layouts by default; `--layouts appended` or `--dtypes q8` measure fewer (comma lists).
 */
import { availableParallelism } from 'node:os';
import { AutoTokenizer } from '@huggingface/transformers';
import { NexusChat } from '../../src/nexus/index.ts';
import { CHROMIUM_PATH, launchChromium } from '../e2e/chromium.ts';
import { ensureChromium } from '../setup/ensure-chromium.ts';
import { FIXTURE_MODELS_DIR, TINY_QWEN3 } from '../fixtures/prepare-models.ts';
import { openHarnessPage, serveBenchHarness } from './bench-harness.ts';
import type { KvLayout } from '../../src/engine/appended-kv-session.ts';
import { CACHE, REAL_SIZE_FOLDER, REAL_SIZE_MODELS, ensureRealSizeModel } from './real-size.ts';

/** Tokens of context at which decode is timed. */
export const CONTEXTS = [16, 300, 1000, 2000, 4000] as const;
const DTYPES = ['q8', 'q4'] as const;
const LAYOUTS: readonly KvLayout[] = ['present', 'appended'];

/** A comma list after `flag` on the command line, kept to `known`; all of `known` without the flag. */
function listArgument<T extends string>(flag: string, known: readonly T[]): T[] {
  const at = process.argv.indexOf(flag);
  if (at < 0) return [...known];
  const asked = (process.argv[at + 1] ?? '').split(',').filter(Boolean);
  const unknown = asked.filter((value) => !known.includes(value as T));
  if (unknown.length || !asked.length) throw new Error(`${flag} takes a comma list of ${known.join(', ')} (got "${process.argv[at + 1] ?? ''}").`);
  return asked as T[];
}
/** Tokens decoded and timed at each context size, after {@link WARMUP} untimed ones; the faster of {@link REPEATS}. */
const DECODED = 10;
const WARMUP = 2;
const REPEATS = 2;
/**
 * Tokens generated once right after the load, untimed: the first passes run slower while the
 * runtime warms up (Chromium compiles WASM in tiers), which read as a slower 16-token figure.
 */
const FIRST_WARMUP = 16;
const SENTENCE = 'The weather in the northern valleys stays cool through the spring, with rain most afternoons and clear, cold nights. ';

/** One place × quantization: decode tokens/s by context size. */
export interface DecodeCurve {
  where: 'Node' | 'Chromium WASM';
  dtype: string;
  /** The model's KV layout. */
  layout: KvLayout;
  /** How the engine said its cache travels (`info.kvCache`). */
  kvCache?: string;
  threads: number;
  /** Decode tokens/s by context tokens; absent where that size failed (its error in `failed`). */
  perSecond: Partial<Record<number, number>>;
  /** The prompt tokens measured at each context size (the engine's own count). */
  promptTokens: Partial<Record<number, number>>;
  failed?: string;
}

/**
 * Messages whose prompts (with the chat template around them) have about each of {@link CONTEXTS}
 * tokens, each the previous one extended, so a longer one shares the shorter one's tokens.
 */
async function growingMessages(): Promise<string[]> {
  const tokenizer = await AutoTokenizer.from_pretrained(REAL_SIZE_FOLDER, { local_files_only: true } as never);
  // The message's own tokens and the chat template's dozen around it (the table prints the prompt sizes measured).
  const tokens = (text: string) => ({ length: tokenizer.encode(text, { add_special_tokens: false }).length + 12 });
  const messages: string[] = [];
  let text = 'Read:';
  for (const target of CONTEXTS) {
    // Words, not sentences, near the target: the first sizes are smaller than one sentence.
    while (tokens(text).length < target) text += tokens(text).length + 24 < target ? SENTENCE : ' rain';
    messages.push(text);
  }
  return messages;
}

/** What one answer cost, from its metrics. */
interface Timed {
  ms: number;
  newTokens: number;
}

/** Decode tokens/s from a short and a long answer on the same cached prompt: the extra tokens over the extra time. */
function decodeRate(short: Timed, long: Timed): number {
  return (long.newTokens - short.newTokens) / ((long.ms - short.ms) / 1000);
}

async function nodeCurve(layout: KvLayout, dtype: string, messages: readonly string[]): Promise<DecodeCurve> {
  const chat = await NexusChat.load({ path: ensureRealSizeModel(layout) }, { dtype });
  const curve: DecodeCurve = {
    where: 'Node',
    dtype,
    layout,
    ...(chat.info.kvCache ? { kvCache: chat.info.kvCache } : {}),
    threads: chat.info.threads ?? availableParallelism(),
    perSecond: {},
    promptTokens: {},
  };
  try {
    const options = { toolChoice: 'none', isolated: true, repetitionPenalty: 1 } as const;
    await chat.chat(messages[0] as string, { ...options, maxNewTokens: FIRST_WARMUP });
    for (const [i, message] of messages.entries()) {
      await chat.chat(message, { ...options, maxNewTokens: WARMUP });
      let best = 0;
      for (let repeat = 0; repeat < REPEATS; repeat++) {
        const short = await chat.chat(message, { ...options, maxNewTokens: 1 });
        const long = await chat.chat(message, { ...options, maxNewTokens: DECODED + 1 });
        best = Math.max(best, decodeRate(short.metrics, long.metrics));
        curve.promptTokens[CONTEXTS[i] as number] = short.metrics.promptTokens;
      }
      curve.perSecond[CONTEXTS[i] as number] = best;
    }
  } catch (error) {
    curve.failed = (error as Error).message;
  } finally {
    await chat.dispose();
  }
  return curve;
}

async function browserCurves(layout: KvLayout, dtypes: readonly string[], messages: readonly string[]): Promise<DecodeCurve[]> {
  const harness = await serveBenchHarness(CACHE);
  const browser = await launchChromium({ webgpu: false });
  const curves: DecodeCurve[] = [];
  try {
    for (const dtype of dtypes) {
      const page = await openHarnessPage(browser, harness);
      const measured = await page.evaluate(
        async ({ url, dtype, messages, contexts, decoded, warmup, repeats, firstWarmup }) => {
          const chat = await window.nexus.NexusChat.load({ url }, { dtype, device: 'wasm' });
          const perSecond: Record<number, number> = {};
          const promptTokens: Record<number, number> = {};
          let failed: string | undefined;
          try {
            const options = { toolChoice: 'none', isolated: true, repetitionPenalty: 1 } as const;
            await chat.chat(messages[0] as string, { ...options, maxNewTokens: firstWarmup });
            for (let i = 0; i < messages.length; i++) {
              await chat.chat(messages[i] as string, { ...options, maxNewTokens: warmup });
              let best = 0;
              for (let repeat = 0; repeat < repeats; repeat++) {
                const short = (await chat.chat(messages[i] as string, { ...options, maxNewTokens: 1 })).metrics;
                const long = (await chat.chat(messages[i] as string, { ...options, maxNewTokens: decoded + 1 })).metrics;
                // No inner named functions here: tsx would wrap them in a helper the page does not have.
                best = Math.max(best, (long.newTokens - short.newTokens) / ((long.ms - short.ms) / 1000));
                promptTokens[contexts[i] as number] = short.promptTokens;
              }
              perSecond[contexts[i] as number] = best;
            }
          } catch (error) {
            failed = (error as Error).message;
          }
          const threads = chat.info.threads ?? 1;
          const kvCache = chat.info.kvCache;
          await chat.dispose();
          return { perSecond, promptTokens, threads, kvCache, failed };
        },
        {
          url: `${harness.modelsUrl}${REAL_SIZE_MODELS[layout]}`,
          dtype,
          messages: [...messages],
          contexts: [...CONTEXTS],
          decoded: DECODED,
          warmup: WARMUP,
          repeats: REPEATS,
          firstWarmup: FIRST_WARMUP,
        },
      );
      curves.push({
        where: 'Chromium WASM',
        dtype,
        layout,
        ...(measured.kvCache ? { kvCache: measured.kvCache } : {}),
        threads: measured.threads,
        perSecond: measured.perSecond,
        promptTokens: measured.promptTokens,
        ...(measured.failed ? { failed: measured.failed } : {}),
      });
      await page.close();
    }
  } finally {
    await browser.close();
    await harness.close();
  }
  return curves;
}

/**
 * Where the present layout's cache lives between tokens on WebGPU, as the engine reports it, on the
 * tiny fixture (the real-size model on SwiftShader's software adapter would take many minutes).
 */
async function webgpuKvPlace(): Promise<string> {
  const harness = await serveBenchHarness(FIXTURE_MODELS_DIR);
  const browser = await launchChromium({ webgpu: true });
  try {
    const page = await openHarnessPage(browser, harness);
    return await page.evaluate(async (url) => {
      const chat = await window.nexus.NexusChat.load({ url }, { dtype: 'q4', device: 'webgpu', allowFallbackAdapter: true });
      await chat.chat('What is the weather in Paris?', { toolChoice: 'none', maxNewTokens: 8 });
      const place = chat.info.kvCache ?? 'not reported';
      await chat.dispose();
      return place;
    }, `${harness.modelsUrl}${TINY_QWEN3}`);
  } finally {
    await browser.close();
    await harness.close();
  }
}

/** Measures every curve and prints them with their ratios. */
export async function runDecodeCurveBench(): Promise<void> {
  const layouts = listArgument('--layouts', LAYOUTS);
  const dtypes = listArgument('--dtypes', DTYPES);
  ensureChromium(CHROMIUM_PATH);
  for (const layout of layouts) ensureRealSizeModel(layout);
  const messages = await growingMessages();
  const curves: DecodeCurve[] = [];
  for (const layout of layouts) for (const dtype of dtypes) curves.push(await nodeCurve(layout, dtype, messages));
  for (const layout of layouts) curves.push(...(await browserCurves(layout, dtypes, messages)));
  const fmt = (n: number | undefined, digits = 2) => (n === undefined || Number.isNaN(n) ? '   —' : n.toFixed(digits));
  const row = (label: string, value: (context: number) => number | undefined, digits = 2) =>
    console.log(`${label.padEnd(34)}${CONTEXTS.map((c) => fmt(value(c), digits).padStart(10)).join('')}`);
  const ratio = (a: number | undefined, b: number | undefined) => (a !== undefined && b ? a / b : undefined);
  console.log(`== Decode as the context grows (real size, random weights; tokens/s over ${DECODED} tokens after ${WARMUP} untimed, the faster of ${REPEATS})`);
  console.log(`${'where'.padEnd(34)}${CONTEXTS.map((c) => `${c} tok`.padStart(10)).join('')}`);
  for (const curve of curves) {
    row(`${curve.where} ${curve.dtype} ×${curve.threads}, ${curve.kvCache ?? curve.layout}`, (c) => curve.perSecond[c]);
    row('  ratio to 16 tokens', (c) => ratio(curve.perSecond[c], curve.perSecond[16]), 3);
    const node = curves.find((other) => other.where === 'Node' && other.dtype === curve.dtype && other.layout === curve.layout);
    if (curve.where === 'Chromium WASM') row('  ratio to Node', (c) => ratio(curve.perSecond[c], node?.perSecond[c]), 3);
    const present = curves.find((other) => other.where === curve.where && other.dtype === curve.dtype && other.layout === 'present');
    if (curve.layout === 'appended' && present) row('  ratio to the present layout', (c) => ratio(curve.perSecond[c], present.perSecond[c]), 3);
    console.log(`${'  prompt tokens measured'.padEnd(34)}${CONTEXTS.map((c) => String(curve.promptTokens[c] ?? '—').padStart(10)).join('')}`);
    if (curve.failed) console.log(`  stopped: ${curve.failed}`);
  }
  const place = await webgpuKvPlace();
  console.log(
    `WebGPU (SwiftShader, ${TINY_QWEN3} q4, present layout): the engine reports its KV cache "${place}"${place === 'present-on-gpu' ? ': every present tensor is a GPU buffer the next step reads in place, none read back' : ''}.`,
  );
}
