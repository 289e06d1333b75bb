import { describe, expect, it } from 'vitest';
import { callsOf, currentRound, feedbackRetries, metricsOf, offeredNames, toolRoundsEnded, toolRoundsRun, type Step } from './step-log.ts';
import type { CallSource, CallStatus, ToolCallRecord } from './types.ts';

function call(round: number, name: string, status: CallStatus, source: CallSource = 'inline'): Step {
  const record: ToolCallRecord = { id: `call_${round}_${name}`, name, arguments: {}, source, round, status, result: '', ms: 0 };
  return { kind: 'call', round, record };
}
const round = (n: number, phase: 'tools' | 'answer' = 'tools'): Step => ({ kind: 'round', round: n, phase });
const generation = (n: number, promptTokens: number, cachedTokens: number, newTokens: number, ms = 10): Step => ({
  kind: 'generation',
  round: n,
  strategy: 'inline',
  promptTokens,
  cachedTokens,
  newTokens,
  ms,
  text: '',
});

describe('the step log', () => {
  it('does not count a round that only named missing tools: a feedback retry', () => {
    const log: Step[] = [round(1), call(1, 'weather_lookup', 'unknown'), round(2), call(2, 'get_weather', 'ok'), round(3)];
    expect(currentRound(log)).toBe(3);
    expect(feedbackRetries(log)).toBe(1);
    expect(toolRoundsRun(log)).toBe(2);
    // A round with a missing tool and a real call is a round.
    expect(toolRoundsRun([round(1), call(1, 'nope', 'unknown'), call(1, 'get_weather', 'ok')])).toBe(1);
    // Answer rounds never count as tool rounds, nor as retries.
    expect(toolRoundsRun([round(1), round(2, 'answer'), call(2, 'nope', 'unknown')])).toBe(1);
  });

  it("folds the results' effects over the offered tools, in order", () => {
    const log: Step[] = [
      { kind: 'effects', round: 1, effects: { offer: ['read_page', 'not_registered'] } },
      { kind: 'effects', round: 2, effects: { withdraw: ['web_search'], endToolRounds: true } },
    ];
    expect([...offeredNames(log, ['web_search'], (n) => n !== 'not_registered')].sort()).toEqual(['read_page']);
    expect(toolRoundsEnded(log)).toBe(true);
    expect(toolRoundsEnded(log.slice(0, 1))).toBe(false);
  });

  it('derives every metric, so nothing can drift from what happened', () => {
    const log: Step[] = [
      round(1),
      generation(1, 100, 0, 10),
      { kind: 'verdict', round: 1, rung: 'inline', verdict: 'next' },
      { kind: 'forced-failed', round: 1, strategy: 'primed', raw: '<tool_call>{"name": "nope"', name: 'nope', reason: "'nope' is not a registered tool." },
      { kind: 'verdict', round: 1, rung: 'primed', verdict: 'next' },
      generation(1, 120, 100, 5),
      { kind: 'verdict', round: 1, rung: 'stepwise', verdict: 'use' },
      call(1, 'get_weather', 'ok', 'stepwise'),
      round(2),
      generation(2, 160, 140, 20),
      call(2, 'get_weather', 'duplicate'),
      call(2, 'nope', 'unknown'),
      round(3, 'answer'),
      { kind: 'finished', ms: 1234, text: 'Done.' },
    ];
    expect(callsOf(log).map((c) => c.status)).toEqual(['ok', 'duplicate', 'unknown']);
    expect(metricsOf(log)).toEqual({
      rounds: 2,
      answerRounds: 1,
      generations: 3,
      promptTokens: 380,
      cachedTokens: 240,
      newTokens: 35,
      toolCalls: 3,
      forcedCalls: 1,
      forcedCallsFailed: 1,
      tool_calls_force_failed: 1,
      rescues: 1,
      duplicateCalls: 1,
      unknownToolCalls: 1,
      unofferedCalls: 0,
      ms: 1234,
      tokensPerSecond: (35 * 1000) / 30,
    });
  });

  it("reads the time to first text off the answer's end, and leaves it out where no text streamed", () => {
    expect(metricsOf([round(1), generation(1, 10, 0, 3), { kind: 'finished', ms: 900, text: 'Hi.', firstTextMs: 420 }]).firstTextMs).toBe(420);
    expect('firstTextMs' in metricsOf([round(1), { kind: 'finished', ms: 900, text: '' }])).toBe(false);
  });
});
