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
 * tokens (what the context costs), and Chromium as a ratio to Node (what the browser costs).
 */
import { availableParallelism } from 'node:os';
import { AutoTokenizer } from '@huggingface/transformers';
import { NexusChat } from '../../src/nexus.ts';
import { CHROMIUM_PATH, launchChromium } from '../e2e/chromium.ts';
import { ensureChromium } from '../setup/ensure-chromium.ts';
import { openHarnessPage, serveBenchHarness } from './bench-harness.ts';
import { CACHE, MODEL, REAL_SIZE_FOLDER, ensureRealSizeModel } from './real-size.ts';

/** Tokens of context at which decode is timed. */
export const CONTEXTS = [16, 300, 1000, 2000, 4000] as const;
const DTYPES = ['q8', 'q4'] as const;
/** Tokens decoded and timed at each context size, after {@link WARMUP} untimed ones. */
const DECODED = 6;
const WARMUP = 2;
const SENTENCE = 'The weather in the northern valleys stays cool through the spring, with rain most afternoons and clear, cold nights. ';

/** One place × quantization: decode tokens/s by context size. */
export interface DecodeCurve {
  where: 'Node' | 'Chromium WASM';
  dtype: string;
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

async function nodeCurve(dtype: string, messages: readonly string[]): Promise<DecodeCurve> {
  const chat = await NexusChat.load({ path: REAL_SIZE_FOLDER }, { dtype });
  const curve: DecodeCurve = { where: 'Node', dtype, threads: chat.info.threads ?? availableParallelism(), perSecond: {}, promptTokens: {} };
  try {
    for (const [i, message] of messages.entries()) {
      const options = { toolChoice: 'none', isolated: true, repetitionPenalty: 1 } as const;
      await chat.chat(message, { ...options, maxNewTokens: WARMUP });
      const short = await chat.chat(message, { ...options, maxNewTokens: 1 });
      const long = await chat.chat(message, { ...options, maxNewTokens: DECODED + 1 });
      curve.perSecond[CONTEXTS[i] as number] = decodeRate(short.metrics, long.metrics);
      curve.promptTokens[CONTEXTS[i] as number] = short.metrics.promptTokens;
    }
  } catch (error) {
    curve.failed = (error as Error).message;
  } finally {
    await chat.dispose();
  }
  return curve;
}

async function browserCurves(messages: readonly string[]): Promise<DecodeCurve[]> {
  const harness = await serveBenchHarness(CACHE);
  const browser = await launchChromium({ webgpu: false });
  const curves: DecodeCurve[] = [];
  try {
    for (const dtype of DTYPES) {
      const page = await openHarnessPage(browser, harness);
      const measured = await page.evaluate(
        async ({ url, dtype, messages, contexts, decoded, warmup }) => {
          const chat = await window.nexus.NexusChat.load({ url }, { dtype, device: 'wasm' });
          const perSecond: Record<number, number> = {};
          const promptTokens: Record<number, number> = {};
          let failed: string | undefined;
          try {
            for (let i = 0; i < messages.length; i++) {
              const options = { toolChoice: 'none', isolated: true, repetitionPenalty: 1 } as const;
              await chat.chat(messages[i] as string, { ...options, maxNewTokens: warmup });
              const short = (await chat.chat(messages[i] as string, { ...options, maxNewTokens: 1 })).metrics;
              const long = (await chat.chat(messages[i] as string, { ...options, maxNewTokens: decoded + 1 })).metrics;
              // No inner named functions here: tsx would wrap them in a helper the page does not have.
              perSecond[contexts[i] as number] = (long.newTokens - short.newTokens) / ((long.ms - short.ms) / 1000);
              promptTokens[contexts[i] as number] = short.promptTokens;
            }
          } catch (error) {
            failed = (error as Error).message;
          }
          const threads = chat.info.threads ?? 1;
          await chat.dispose();
          return { perSecond, promptTokens, threads, failed };
        },
        { url: `${harness.modelsUrl}${MODEL}`, dtype, messages: [...messages], contexts: [...CONTEXTS], decoded: DECODED, warmup: WARMUP },
      );
      curves.push({
        where: 'Chromium WASM',
        dtype,
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

/** Measures every curve and prints them with their ratios. */
export async function runDecodeCurveBench(): Promise<void> {
  ensureChromium(CHROMIUM_PATH);
  ensureRealSizeModel();
  const messages = await growingMessages();
  const curves: DecodeCurve[] = [];
  for (const dtype of DTYPES) curves.push(await nodeCurve(dtype, messages));
  curves.push(...(await browserCurves(messages)));
  const fmt = (n: number | undefined, digits = 2) => (n === undefined || Number.isNaN(n) ? '   —' : n.toFixed(digits));
  console.log(`== Decode as the context grows (real size, random weights; tokens/s over ${DECODED} tokens after ${WARMUP} untimed)`);
  console.log(`${'where'.padEnd(26)}${CONTEXTS.map((c) => `${c} tok`.padStart(10)).join('')}`);
  for (const curve of curves) {
    const label = `${curve.where} ${curve.dtype} ×${curve.threads}`;
    console.log(`${label.padEnd(26)}${CONTEXTS.map((c) => fmt(curve.perSecond[c]).padStart(10)).join('')}`);
    const base = curve.perSecond[16];
    console.log(
      `${'  ratio to 16 tokens'.padEnd(26)}${CONTEXTS.map((c) => fmt(base ? (curve.perSecond[c] ?? Number.NaN) / base : undefined, 3).padStart(10)).join('')}`,
    );
    if (curve.where === 'Chromium WASM') {
      const node = curves.find((other) => other.where === 'Node' && other.dtype === curve.dtype);
      console.log(
        `${'  ratio to Node'.padEnd(26)}${CONTEXTS.map((c) => fmt(node?.perSecond[c] ? (curve.perSecond[c] ?? Number.NaN) / node.perSecond[c] : undefined, 3).padStart(10)).join('')}`,
      );
    }
    console.log(`${'  prompt tokens measured'.padEnd(26)}${CONTEXTS.map((c) => String(curve.promptTokens[c] ?? '—').padStart(10)).join('')}`);
    if (curve.failed) console.log(`  stopped: ${curve.failed}`);
  }
}
