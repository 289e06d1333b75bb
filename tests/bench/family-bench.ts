/**
 * A two-round tool answer on every family fixture through the real engine: round 1 writes the
 * family's own call (constrained decoding makes the random weights emit it token by token), the
 * tool runs, round 2 answers. Reports what the answer cost and how much of it the KV cache served,
 * and whether the family renders (its template holds a tool conversation), primes (the opener
 * continues the round's prompt) and parses (the parser reads back the call the profile writes).
 */
import type { Engine, GenerateOptions, GenerateResult } from '../../src/engine/engine.ts';
import { loadEngine } from '../../src/engine/load-engine.ts';
import { NexusChat } from '../../src/nexus/index.ts';
import { DelegatingEngine } from '../../src/testing/delegating-engine.ts';
import { parseToolCalls } from '../../src/toolcalls/index.ts';
import { FIXTURE_MODELS_DIR, prepareFixtureModels } from '../fixtures/prepare-models.ts';

export const FAMILY_FIXTURES = [
  'tiny-random-qwen3',
  'tiny-random-qwen2_5',
  'tiny-random-llama3_2',
  'tiny-random-granite4',
  'tiny-random-granite3',
  'tiny-random-lfm2',
  'tiny-random-phi4-mini',
] as const;

/** One family's figures. */
export interface FamilyFigures {
  fixture: string;
  family: string;
  renders: boolean;
  primes: boolean;
  parses: boolean;
  generations: number;
  promptTokens: number;
  cachedTokens: number;
  calls: number;
}

/** Makes the first free generation of an answer write `call` for real (a constrained choice); the rest runs as is. */
class CallingEngine extends DelegatingEngine {
  private called = false;
  constructor(
    inner: Engine,
    private readonly call: string,
  ) {
    super(inner);
  }
  override generate(prompt: string, options: GenerateOptions): Promise<GenerateResult> {
    if (!this.called && options.onText && !options.choices) {
      this.called = true;
      return this.inner.generate(prompt, { ...options, choices: [this.call] });
    }
    return this.inner.generate(prompt, options);
  }
}

export async function benchFamilies(): Promise<FamilyFigures[]> {
  prepareFixtureModels();
  const rows: FamilyFigures[] = [];
  for (const fixture of FAMILY_FIXTURES) {
    const { engine } = await loadEngine({ path: `${FIXTURE_MODELS_DIR}${fixture}` }, { runtime: 'node', webgpu: false, shaderF16: false }, { dtype: 'q4' });
    const family = engine.family;
    const call = family.formatCall('get_weather', { city: 'Paris' });
    const calling = new CallingEngine(engine, call);
    const chat = NexusChat.withEngine(calling);
    chat.tool('get_weather', 'Get current weather for a city', { city: 'string' }, ({ city }: { city: string }) => ({ city, temperature_c: 21 }));
    const answer = await chat.chat('Weather in Paris?', { maxRounds: 2, maxNewTokens: 16 });
    const round = await engine.render([{ role: 'user', content: 'Weather in Paris?' }], { addGenerationPrompt: true });
    const parsed = parseToolCalls(call).calls[0];
    rows.push({
      fixture,
      family: family.label,
      renders: engine.info.family.templateProblem === undefined,
      primes: (round + family.callOpener).startsWith(round) && call.startsWith(family.callOpener),
      parses: parsed?.name === 'get_weather' && (parsed.arguments as { city?: string }).city === 'Paris',
      generations: answer.metrics.generations,
      promptTokens: answer.metrics.promptTokens,
      cachedTokens: answer.metrics.cachedTokens,
      calls: answer.calls.length,
    });
    await engine.dispose();
  }
  return rows;
}
