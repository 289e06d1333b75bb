import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { FIXTURE_MODELS_DIR, TINY_QWEN3, prepareFixtureModels } from '../../tests/fixtures/prepare-models.ts';
import { AppendedKvSession, KvCacheGapError, type OrtSessionLike, type OrtTensorLike } from './appended-kv-session.ts';
import type { ChatMessage } from './engine.ts';
import { TransformersEngine } from './transformers-engine.ts';
import { useSource } from './use-source.ts';

/** The same weights as tiny-random-qwen3, built with `--appended-kv`. */
const APPENDED = 'tiny-random-qwen3-appended';

// Prompts are prefilled 16 tokens at a time, so the chunked prefill takes the same route as the rest.
const load = (model: string, dtype = 'q8') =>
  TransformersEngine.load(useSource({ path: `${FIXTURE_MODELS_DIR}${model}` }), { dtype, device: 'cpu', prefillChunk: 16 });

describe('a model with the appended KV layout, against the same weights in the present layout (Node, CPU)', () => {
  let present: TransformersEngine;
  let appended: TransformersEngine;
  const messages: ChatMessage[] = [{ role: 'user', content: 'What is the weather in Paris?' }];

  beforeAll(async () => {
    prepareFixtureModels();
    [present, appended] = await Promise.all([load(TINY_QWEN3), load(APPENDED)]);
  });
  afterAll(async () => {
    await present?.dispose();
    await appended?.dispose();
  });

  it('says which path its cache takes', () => {
    expect(appended.info.kvCache).toBe('appended');
    expect(present.info.kvCache).toBe('present-copied');
  });

  it('answers token for token as the present layout does, over turns that reuse the cache and one that cuts it back', async () => {
    const first = await present.render(messages, { addGenerationPrompt: true, enableThinking: false });
    const turns = [first];
    const a1 = await present.generate(first, { maxNewTokens: 24 });
    const b1 = await appended.generate(first, { maxNewTokens: 24 });
    expect(b1).toEqual(a1);
    // The next turn extends the last: only its new tokens are computed.
    const second = `${first}${a1.text}<|im_end|>\n<|im_start|>user\nAnd in Rome?<|im_end|>\n<|im_start|>assistant\n`;
    turns.push(second);
    const a2 = await present.generate(second, { maxNewTokens: 24 });
    const b2 = await appended.generate(second, { maxNewTokens: 24 });
    expect(b2).toEqual(a2);
    expect(b2.cachedTokens).toBeGreaterThan(0);
    // A retry of the first prompt cuts the cache back to it.
    expect(await appended.generate(first, { maxNewTokens: 24 })).toEqual(await present.generate(first, { maxNewTokens: 24 }));
    // Constrained choices (the stepwise rung) take the same route.
    const pick = await present.generate(`${second}<tool_call>\n{"name": "`, { maxNewTokens: 8, choices: ['get_weather', 'get_time'] });
    expect(await appended.generate(`${second}<tool_call>\n{"name": "`, { maxNewTokens: 8, choices: ['get_weather', 'get_time'] })).toEqual(pick);
  });
});

describe('AppendedKvSession', () => {
  const makeTensor = (_type: string, data: BigInt64Array | Float32Array, dims: number[]): OrtTensorLike => ({ data, dims });
  /** A stand-in session that records what it was fed and returns one key/value row per new token (its id). */
  function recordingSession() {
    const fed: { ids: number[]; positions: number[]; pastRows: number }[] = [];
    const session: OrtSessionLike = {
      inputNames: ['input_ids', 'position_ids', 'past_keys.0', 'past_values.0'],
      outputNames: ['logits', 'new_keys.0', 'new_values.0'],
      inputMetadata: [
        { name: 'input_ids', shape: ['batch_size', 'sequence_length'] },
        { name: 'position_ids', shape: ['batch_size', 'sequence_length'] },
        { name: 'past_keys.0', shape: ['past_sequence_length', 1, 2] },
        { name: 'past_values.0', shape: ['past_sequence_length', 1, 2] },
      ],
      async run(feeds) {
        const ids = Array.from(feeds.input_ids!.data as BigInt64Array, Number);
        const pastKeys = feeds['past_keys.0']!;
        fed.push({ ids, positions: Array.from(feeds.position_ids!.data as BigInt64Array, Number), pastRows: pastKeys.dims[0]! });
        const rows = Float32Array.from(ids.flatMap((id) => [id, id]));
        return {
          logits: { data: new Float32Array(ids.length), dims: [1, ids.length, 1] },
          'new_keys.0': { data: rows, dims: [ids.length, 1, 2] },
          'new_values.0': { data: rows, dims: [ids.length, 1, 2] },
        };
      },
    };
    return { session, fed };
  }
  const feed = (ids: number[], start: number) => ({
    input_ids: makeTensor('int64', BigInt64Array.from(ids, BigInt), [1, ids.length]),
    position_ids: makeTensor(
      'int64',
      BigInt64Array.from(ids, (_, i) => BigInt(start + i)),
      [1, ids.length],
    ),
  });

  it('hides the cache from transformers.js: no past inputs, no new-row outputs', async () => {
    const { session } = recordingSession();
    const seen = new AppendedKvSession(session, makeTensor).asSession();
    expect(seen.inputNames).toEqual(['input_ids', 'position_ids']);
    expect(seen.outputNames).toEqual(['logits']);
    expect(Object.keys(await seen.run(feed([5, 6], 0)))).toEqual(['logits']);
  });

  it('computes only what it does not hold, at least the last token, and continues a step where the sequence is', async () => {
    const { session, fed } = recordingSession();
    const kv = new AppendedKvSession(session, makeTensor);
    const seen = kv.asSession();
    await seen.run(feed([1, 2, 3], 0));
    await seen.run(feed([4], 3)); // a decode step
    await seen.run(feed([1, 2, 3, 4, 9], 0)); // the whole sequence again: only 9 is new
    await seen.run(feed([1, 2, 7], 0)); // diverges after two tokens
    await seen.run(feed([1, 2, 7], 0)); // all of it held: the last token again, for its logits
    expect(fed.map((f) => [f.ids, f.positions, f.pastRows])).toEqual([
      [[1, 2, 3], [0, 1, 2], 1],
      [[4], [3], 4],
      [[9], [4], 5],
      [[7], [2], 3],
      [[7], [2], 3],
    ]);
    expect(kv.length).toBe(3);
  });

  it('refuses a model without position_ids, naming its inputs (its steps could not be placed)', () => {
    const { session } = recordingSession();
    const withoutPositions = { ...session, inputNames: session.inputNames.filter((name) => name !== 'position_ids') };
    expect(() => new AppendedKvSession(withoutPositions, makeTensor)).toThrow(
      'A model with the appended KV layout needs a position_ids input (its inputs are input_ids, past_keys.0, past_values.0).',
    );
  });

  it('refuses a step past the end of what it holds', async () => {
    const { session } = recordingSession();
    const seen = new AppendedKvSession(session, makeTensor).asSession();
    await seen.run(feed([1], 0));
    await expect(seen.run(feed([2], 5))).rejects.toThrow(KvCacheGapError);
  });

  it('grows its buffers by doubling, but not past the context budget unless a sequence does', async () => {
    const { session } = recordingSession();
    const kv = new AppendedKvSession(session, makeTensor, { maxTokens: 700 });
    const seen = kv.asSession();
    const ids = Array.from({ length: 800 }, (_, i) => i + 1);
    await seen.run(feed(ids.slice(0, 300), 0));
    expect(kv.room).toBe(512);
    await seen.run(feed(ids.slice(300, 600), 300));
    expect(kv.room).toBe(700);
    await seen.run(feed(ids.slice(600, 800), 600));
    expect(kv.room).toBe(800);
  });

  it('keeps every row as the buffers grow past their first size', async () => {
    const { session, fed } = recordingSession();
    const seen = new AppendedKvSession(session, makeTensor).asSession();
    const ids = Array.from({ length: 600 }, (_, i) => i + 1);
    await seen.run(feed(ids.slice(0, 200), 0));
    for (let t = 200; t < 600; t += 100) await seen.run(feed(ids.slice(t, t + 100), t));
    // The past the last run read: the leading zero row, then each token's row (its id, twice).
    let past: Float32Array | undefined;
    session.run = async (feeds) => {
      past = feeds['past_keys.0']!.data as Float32Array;
      return {
        logits: { data: new Float32Array(1), dims: [1, 1, 1] },
        'new_keys.0': { data: new Float32Array(2), dims: [1, 1, 2] },
        'new_values.0': { data: new Float32Array(2), dims: [1, 1, 2] },
      };
    };
    await seen.run(feed([601], 600));
    expect(fed).toHaveLength(5);
    expect(Array.from(past ?? [])).toEqual([0, 0, ...ids.flatMap((id) => [id, id])]);
  });
});
