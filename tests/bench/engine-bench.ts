import type { ChatMessage, ToolSchema } from '../../src/engine/engine.ts';
import { TransformersEngine } from '../../src/engine/transformers-engine.ts';
import { useSource } from '../../src/engine/use-source.ts';
import { FIXTURE_MODELS_DIR, TINY_QWEN3, prepareFixtureModels } from '../fixtures/prepare-models.ts';

const tool: ToolSchema = {
  type: 'function',
  function: {
    name: 'get_weather',
    description: 'Get current weather for a city',
    parameters: { type: 'object', properties: { city: { type: 'string' } }, required: ['city'] },
  },
};

/** Prefill and wall time of one way of running the conversation. */
export interface PrefillFigures {
  prefilledTokens: number;
  promptTokens: number;
  ms: number;
}

/** One cold-or-warm 4-round tool conversation on `engine`; the bench at real size runs it too. */
export async function conversation(engine: TransformersEngine): Promise<PrefillFigures> {
  const messages: ChatMessage[] = [
    { role: 'system', content: 'You are a helpful assistant.' },
    { role: 'user', content: 'What is the weather in Chennai, Paris, Oslo and Lima?' },
  ];
  let prefilled = 0;
  let prompt = 0;
  const started = performance.now();
  for (const [round, city] of ['Chennai', 'Paris', 'Oslo', 'Lima'].entries()) {
    const text = await engine.render(messages, { tools: [tool], addGenerationPrompt: true, enableThinking: false });
    const result = await engine.generate(text, { maxNewTokens: 8 });
    prefilled += result.promptTokens - result.cachedTokens;
    prompt += result.promptTokens;
    // The model's own output stands in for the call (a random fixture cannot write one); the
    // conversation then grows exactly as the loop grows it.
    const id = `call_${round + 1}`;
    messages.push(
      { role: 'assistant', content: result.text, tool_calls: [{ id, type: 'function', function: { name: 'get_weather', arguments: { city } } }] },
      { role: 'tool', tool_call_id: id, content: JSON.stringify({ city, temperature_c: 20 + round }) },
    );
  }
  return { prefilledTokens: prefilled, promptTokens: prompt, ms: performance.now() - started };
}

/**
 * A 4-round tool conversation on the tiny fixture (Node, CPU): tokens prefilled with the token
 * transcript reusing the KV cache, against a naive full re-prefill every round, and the wall time
 * of both, measured in the same run.
 */
export async function benchTranscript(): Promise<{
  cold: { transcript: PrefillFigures; naive: PrefillFigures };
  warm: { transcript: PrefillFigures; naive: PrefillFigures };
}> {
  prepareFixtureModels();
  const load = (reuseCache: boolean) =>
    TransformersEngine.load(useSource({ path: `${FIXTURE_MODELS_DIR}${TINY_QWEN3}` }), { dtype: 'q4', device: 'cpu', reuseCache });
  const withTranscript = await load(true);
  const naive = await load(false);
  try {
    // Cold: fresh engines, nothing cached — the first conversation a user has. Warm: the same
    // conversation again, where the transcript finds its whole first round cached.
    const cold = { transcript: await conversation(withTranscript), naive: await conversation(naive) };
    const warm = { transcript: await conversation(withTranscript), naive: await conversation(naive) };
    return { cold, warm };
  } finally {
    await withTranscript.dispose();
    await naive.dispose();
  }
}
