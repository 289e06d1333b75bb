import { AutoTokenizer, DynamicCache, Tensor } from '@huggingface/transformers';
import { cropCache } from '../../src/engine/kv-cache.ts';
import { stopStringWatcher } from '../../src/engine/stop-strings.ts';
import { TokenTranscript } from '../../src/engine/token-transcript.ts';
import { useSource } from '../../src/engine/use-source.ts';
import { FIXTURE_MODELS_DIR, TINY_QWEN3, prepareFixtureModels } from '../fixtures/prepare-models.ts';

/** One per-call cost: this implementation and the one before it (the baseline), in the same run. */
export interface CostFigure {
  name: string;
  baselineMs: number;
  ms: number;
}

const median = (values: number[]) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)] ?? NaN;

function time(runs: number, prepare: () => unknown, work: (prepared: never) => unknown): number {
  const samples: number[] = [];
  for (let i = 0; i < runs; i++) {
    const input = prepare();
    const started = performance.now();
    work(input as never);
    samples.push(performance.now() - started);
  }
  return median(samples);
}

async function timeAsync(runs: number, prepare: () => unknown, work: (prepared: never) => Promise<unknown>): Promise<number> {
  const samples: number[] = [];
  for (let i = 0; i < runs; i++) {
    const input = prepare();
    const started = performance.now();
    await work(input as never);
    samples.push(performance.now() - started);
  }
  return median(samples);
}

/** Qwen3-0.6B's KV cache at `positions`: 28 layers, keys and values of [1, 8 heads, positions, 128], fp32. */
function realSizeCache(positions: number): DynamicCache {
  const entries: Record<string, Tensor> = {};
  for (let layer = 0; layer < 28; layer++) {
    for (const part of ['key', 'value'])
      entries[`past_key_values.${layer}.${part}`] = new Tensor('float32', new Float32Array(8 * positions * 128).fill(1), [1, 8, positions, 128]);
  }
  return new DynamicCache(entries);
}

/** The crop as it was: a new array per tensor, each head's prefix copied into it. */
function copyingCrop(cache: DynamicCache, length: number): DynamicCache {
  const entries: Record<string, Tensor> = {};
  for (const [name, tensor] of Object.entries(cache) as [string, Tensor][]) {
    if (!name.startsWith('past_key_values.')) continue;
    const [batch = 1, heads = 1, sequence = 0, headDim = 0] = tensor.dims;
    const source = tensor.data as Float32Array;
    const target = new Float32Array(batch * heads * length * headDim);
    for (let row = 0; row < batch * heads; row++)
      target.set(source.subarray(row * sequence * headDim, row * sequence * headDim + length * headDim), row * length * headDim);
    entries[name] = new Tensor('float32', target, [batch, heads, length, headDim]);
  }
  return new DynamicCache(entries);
}

/**
 * What the engine spends per call besides the model at 1,000 tokens of context: cutting the KV
 * cache (Qwen3-0.6B's shape), recording the transcript (Qwen3's real tokenizer), and the stop
 * check over a 256-token generation — each against the implementation it replaced.
 */
export async function benchEngineCosts(): Promise<CostFigure[]> {
  prepareFixtureModels();
  const figures: CostFigure[] = [];

  const cropBaseline = time(
    5,
    () => realSizeCache(1_000),
    (cache: DynamicCache) => copyingCrop(cache, 900),
  );
  const crop = await timeAsync(
    5,
    () => realSizeCache(1_000),
    (cache: DynamicCache) => cropCache(cache, 900),
  );
  figures.push({ name: 'cut the KV cache 1,000 → 900 positions', baselineMs: cropBaseline, ms: crop });

  const model = useSource({ path: `${FIXTURE_MODELS_DIR}${TINY_QWEN3}` });
  const tokenizer = await AutoTokenizer.from_pretrained(model.id);
  const codec = {
    encode: (text: string) => tokenizer.encode(text, { add_special_tokens: false }),
    decode: (ids: readonly number[]) => tokenizer.decode([...ids], { skip_special_tokens: false }),
  };
  const turns = Array.from(
    { length: 40 },
    (_, i) =>
      `<|im_start|>user\nWhat is the weather in city number ${i}, and should I take an umbrella?<|im_end|>\n<|im_start|>assistant\nIt is ${20 + (i % 9)} °C and dry in city ${i}.<|im_end|>\n`,
  );
  const ids = codec.encode(turns.join('')).slice(0, 1_000);
  const generated = ids.slice(-24);
  const prompt = ids.slice(0, -24);
  const recordBaseline = time(
    7,
    () => new TokenTranscript(codec),
    (t: TokenTranscript) => t.record(prompt, generated),
  );
  const record = time(
    7,
    () => {
      const t = new TokenTranscript(codec);
      t.record(prompt.slice(0, -40), ids.slice(-64, -40));
      return t;
    },
    (t: TokenTranscript) => t.record(prompt, generated),
  );
  figures.push({ name: 'record a generation at 1,000 tokens', baselineMs: recordBaseline, ms: record });

  const output = ids.slice(0, 256);
  const stops = ['</tool_call>', '<|im_end|>'];
  const decodeAll = (generatedIds: number[]) => codec.decode(generatedIds);
  const stopBaseline = time(
    3,
    () => undefined,
    () => {
      for (let n = 1; n <= output.length; n++) stops.some((s) => decodeAll(output.slice(0, n)).includes(s));
    },
  );
  const watcher = stopStringWatcher(decodeAll, stops);
  const stop = time(
    3,
    () => undefined,
    () => {
      for (let n = 1; n <= output.length; n++) watcher(output.slice(0, n));
    },
  );
  figures.push({ name: 'stop-string checks over a 256-token generation', baselineMs: stopBaseline, ms: stop });
  return figures;
}
