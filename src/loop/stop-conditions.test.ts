import { describe, expect, it } from 'vitest';
import { ScriptedEngine } from '../engine/scripted-engine.ts';
import { NexusChat } from '../nexus/index.ts';
import type { AnswerView } from './answer-run.ts';
import { callsOf, metricsOf, type Step } from './step-log.ts';
import { fromStopRule, isStopRule } from './stop-conditions.ts';
import type { CallStatus, ToolCallRecord } from './types.ts';

describe('stop rules as data', () => {
  it('tells data from functions', () => {
    expect(isStopRule({ kind: 'tool-called', name: 'x' })).toBe(true);
    expect(isStopRule({ kind: 'rounds', atLeast: 2 })).toBe(true);
    expect(isStopRule({ kind: 'rounds' })).toBe(false);
    expect(isStopRule(() => true)).toBe(false);
  });

  it('each rule reads the answer so far', () => {
    const record = (name: string, status: CallStatus, round: number): ToolCallRecord => ({
      id: `call_${round}`,
      name,
      arguments: {},
      source: 'inline',
      round,
      status,
      result: '',
      ms: 0,
    });
    const log: Step[] = [
      { kind: 'round', round: 1, phase: 'tools' },
      { kind: 'call', round: 1, record: record('web_search', 'ok', 1) },
      { kind: 'round', round: 2, phase: 'tools' },
      { kind: 'call', round: 2, record: record('read_page', 'error', 2) },
    ];
    const run: AnswerView = { log, calls: callsOf(log), metrics: metricsOf(log), settings: {} as AnswerView['settings'], continuesAfterResults: false };
    expect(fromStopRule({ kind: 'tool-called', name: 'web_search' })(run)).toBe(true);
    expect(fromStopRule({ kind: 'tool-called', name: 'read_page' })(run)).toBe(false);
    expect(fromStopRule({ kind: 'tool-calls', atLeast: 1 })(run)).toBe(true);
    expect(fromStopRule({ kind: 'tool-calls', atLeast: 2 })(run)).toBe(false);
    expect(fromStopRule({ kind: 'rounds', atLeast: 2 })(run)).toBe(true);
  });

  it('a rule ends the tool rounds of a real answer on the scripted engine', async () => {
    const call = '<tool_call>\n{"name": "get_time", "arguments": {}}\n</tool_call>';
    const answerOf = async (rules: boolean) => {
      // The model calls again and again while tools are offered; the answer rounds get the text.
      const withTools = (prompt: string) => prompt.includes('<tools>');
      const withoutTools = (prompt: string) => !prompt.includes('<tools>');
      const engine = new ScriptedEngine([
        ...Array.from({ length: 8 }, () => ({ when: withoutTools, output: 'It is noon.' })),
        ...Array.from({ length: 8 }, () => ({ when: withTools, output: call })),
      ]);
      const chat = NexusChat.withEngine(engine, rules ? { stopWhen: [{ kind: 'tool-calls', atLeast: 1 }] } : {}).tool(
        'get_time',
        'Current time',
        {},
        () => '12:00',
      );
      return chat.chat('What time is it?', { strategy: 'inline' });
    };
    const stopped = await answerOf(true);
    expect(stopped.text).toBe('It is noon.');
    expect(stopped.metrics.duplicateCalls).toBe(0);
    const unstopped = await answerOf(false);
    expect(unstopped.metrics.duplicateCalls).toBeGreaterThan(0);
  });
});
