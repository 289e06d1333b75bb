import { ScriptedEngine, type ScriptedOutput } from '../../src/engine/scripted-engine.ts';
import { commonPrefixLength } from '../../src/engine/token-transcript.ts';
import { qwen3 } from '../../src/loop/__fixtures__/qwen3-outputs.ts';
import { when } from '../../src/testing/script-matchers.ts';
import { NexusChat } from '../../src/nexus/index.ts';

/** One scenario's cost. */
export interface LoopScenarioFigures {
  scenario: string;
  generations: number;
  promptTokens: number;
  cachedTokens: number;
  /** For each tool round after the first: the share of the previous round's prompt that this round's prompt repeats byte for byte. */
  roundPrefixShare: number[];
}

const SCENARIOS: Record<string, { prompt: string; script: ScriptedOutput[]; maxRounds?: number }> = {
  'calls inline': {
    prompt: 'Weather in Chennai?',
    script: [
      { when: when.userAsked('Weather in Chennai?'), output: qwen3.callWeatherChennai },
      { when: when.afterResults(), output: qwen3.answerChennai },
    ],
  },
  'calls only when primed': {
    prompt: 'Weather in Paris?',
    script: [
      { when: when.userAsked('Weather in Paris?'), output: qwen3.guessParis },
      { when: when.primed(), output: qwen3.primedContinuationParis },
      { when: when.gate(), output: 'Yes' },
      { when: when.afterResults(), output: qwen3.answerParis },
    ],
  },
  'hallucinated name, rescued stepwise': {
    prompt: 'Weather in Paris?',
    script: [
      { when: when.userAsked('Weather in Paris?'), output: qwen3.guessParis },
      { when: when.primed(), output: qwen3.primedHallucinated },
      { when: when.select(), output: 'get_weather' },
      { when: when.argument('city'), output: 'Paris"' },
      { when: when.gate(), output: 'Yes' },
      { when: when.afterResults(), output: qwen3.answerParis },
    ],
  },
  'small talk': {
    prompt: 'hi',
    script: [
      { when: when.userAsked('hi'), output: qwen3.greeting },
      { when: when.primed(), output: qwen3.primedContinuationOnGreeting },
      { when: when.gate(), output: 'No' },
    ],
  },
  'loops on the same call': {
    prompt: 'Weather in Chennai?',
    script: [
      { when: when.userAsked('Weather in Chennai?'), output: qwen3.callWeatherChennai },
      { when: (p) => (p.match(/<tool_response>/g) ?? []).length === 1, output: qwen3.callWeatherChennai },
      { when: when.afterResults(), output: qwen3.answerChennai },
    ],
  },
  'never stops calling': {
    prompt: 'Weather everywhere?',
    maxRounds: 3,
    script: [
      { when: when.userAsked('Weather everywhere?'), output: qwen3.callWeatherChennai },
      { when: (p) => (p.match(/<tool_response>/g) ?? []).length === 1, output: qwen3.callWeatherParis },
      {
        when: (p) => (p.match(/<tool_response>/g) ?? []).length === 2,
        output: '<tool_call>\n{"name": "get_weather", "arguments": {"city": "Oslo"}}\n</tool_call>',
      },
      { when: when.answerNow(), output: 'Chennai is 31.2°C, Paris 12°C and Oslo is cold.' },
    ],
  },
};

/**
 * Runs the loop scenarios on the scripted engine and reports what each cost: generations, prompt
 * tokens, tokens the transcript lets a real engine take from its KV cache, and how much of each
 * round's prompt is a byte-identical prefix of the next round's.
 */
export async function benchLoopScenarios(): Promise<LoopScenarioFigures[]> {
  const figures: LoopScenarioFigures[] = [];
  for (const [scenario, { prompt, script, maxRounds }] of Object.entries(SCENARIOS)) {
    const engine = new ScriptedEngine(script);
    const chat = NexusChat.withEngine(engine, maxRounds ? { maxRounds } : {}).tool(
      'get_weather',
      'Get current weather for a city',
      { city: 'string' },
      ({ city }) => ({
        city,
        temperature_c: 20,
      }),
    );
    chat.tool('current_datetime', 'Current date and time', { time_zone: 'string' }, () => '2026-11-29T14:00:00Z');
    const roundPrompts: string[] = [];
    let round = 0;
    chat.on('round', (r) => {
      round = r.kind === 'tools' ? r.round : -1;
    });
    chat.on('raw', (_raw, info) => {
      if (info.strategy === 'inline' && round > 0 && roundPrompts.length < round) roundPrompts.push(engine.generations.at(-1)?.prompt ?? '');
    });
    const answer = await chat.chat(prompt);
    const roundPrefixShare = roundPrompts.slice(1).map((p, i) => {
      const previous = roundPrompts[i] ?? '';
      return commonPrefixLength(previous, p) / previous.length;
    });
    figures.push({
      scenario,
      generations: answer.metrics.generations,
      promptTokens: answer.metrics.promptTokens,
      cachedTokens: answer.metrics.cachedTokens,
      roundPrefixShare,
    });
  }
  return figures;
}
