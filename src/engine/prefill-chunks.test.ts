import { beforeAll, describe, expect, it } from 'vitest';
import { FIXTURE_MODELS_DIR, TINY_QWEN3, prepareFixtureModels } from '../../tests/fixtures/prepare-models.ts';
import { TransformersEngine } from './transformers-engine.ts';
import { useSource } from './use-source.ts';

/** Records how many new tokens each forward pass of the engine's model computes. */
function passLengths(engine: TransformersEngine): number[] {
  const model = (engine as unknown as { model: { forward(inputs: { input_ids: { dims: number[] } }): Promise<unknown> } }).model;
  const lengths: number[] = [];
  const forward = model.forward.bind(model);
  model.forward = (inputs) => {
    lengths.push(inputs.input_ids.dims.at(-1) ?? 0);
    return forward(inputs);
  };
  return lengths;
}

const load = (prefillChunk?: number) =>
  TransformersEngine.load(useSource({ path: `${FIXTURE_MODELS_DIR}${TINY_QWEN3}` }), {
    dtype: 'fp32',
    device: 'cpu',
    ...(prefillChunk ? { prefillChunk } : {}),
  });

describe('a long prompt is computed in chunks that extend the KV cache (issue 25: peak memory)', () => {
  beforeAll(() => prepareFixtureModels());

  it('gives the same greedy text in chunks of 64 tokens as in one pass, and the cache then serves the next turn', async () => {
    const whole = await load(100_000);
    const chunked = await load(64);
    try {
      const note = 'The river rises in the northern hills and meets the sea at a wide estuary. '.repeat(20);
      const prompt = await whole.render([{ role: 'user', content: `${note}What is this about?` }], { addGenerationPrompt: true, enableThinking: false });
      const options = { maxNewTokens: 8, repetitionPenalty: 1 };
      const wholePasses = passLengths(whole);
      const chunkedPasses = passLengths(chunked);
      const one = await whole.generate(prompt, options);
      const many = await chunked.generate(prompt, options);
      expect(one.promptTokens).toBeGreaterThan(64 * 4);
      expect(many).toEqual(one);
      // One pass computed the whole prompt; in chunks, no pass computed more than 64 tokens.
      expect(Math.max(...wholePasses)).toBe(one.promptTokens);
      expect(Math.max(...chunkedPasses)).toBeLessThanOrEqual(64);
      // The next turn extends the same prompt: the chunked cache is the one-pass cache.
      const next = `${prompt}${one.text}<|im_end|>\n<|im_start|>user\n${note}And then?<|im_end|>\n<|im_start|>assistant\n`;
      const oneNext = await whole.generate(next, options);
      const manyNext = await chunked.generate(next, options);
      expect(manyNext).toEqual(oneNext);
      expect(manyNext.cachedTokens).toBeGreaterThan(one.promptTokens - 4);
    } finally {
      await whole.dispose();
      await chunked.dispose();
    }
  });

  it('never generates past the context budget: a generation near the end of the context is cut to what is left', async () => {
    const engine = await load();
    try {
      const prompt = await engine.render([{ role: 'user', content: 'Tell me a story.' }], { addGenerationPrompt: true, enableThinking: false });
      const promptTokens = engine.countTokens(prompt);
      (engine.info as { context?: unknown }).context = { contextLength: promptTokens + 3, source: 'config', tokens: promptTokens + 3, detail: '' };
      const result = await engine.generate(prompt, { maxNewTokens: 50, repetitionPenalty: 1 });
      expect(result.newTokens).toBeLessThanOrEqual(3);
    } finally {
      await engine.dispose();
    }
  });
});
