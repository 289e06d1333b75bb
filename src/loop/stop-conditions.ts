import type { AnswerView } from './answer-run.ts';
import { toolRoundsEnded as resultEndedToolRounds, toolRoundsRun } from './step-log.ts';

/** Ends the tool rounds of an answer when it returns true; the answer rounds follow. It reads the answer's step log. */
export type StopCondition = (run: AnswerView) => boolean;

/** The round limit: `maxRounds` tool rounds have run. */
export const roundLimitReached: StopCondition = (run) => toolRoundsRun(run.log) >= run.settings.maxRounds;

/** A tool result asked for the tool rounds to end (e.g. the search budget is spent). */
export const toolRoundsEnded: StopCondition = (run) => resultEndedToolRounds(run.log);

/** True when any condition holds. */
export function shouldStop(run: AnswerView, conditions: readonly StopCondition[]): boolean {
  return conditions.some((condition) => condition(run));
}

/**
 * A stop condition written as data, so that it can cross to the model worker (a function cannot):
 * `tool-called` — a call of this tool ran in this answer; `tool-calls` — at least this many calls
 * ran; `rounds` — at least this many tool rounds ran.
 */
export type StopRule = { kind: 'tool-called'; name: string } | { kind: 'tool-calls'; atLeast: number } | { kind: 'rounds'; atLeast: number };

/** True for a {@link StopRule} (data), false for a {@link StopCondition} (a function). */
export function isStopRule(value: unknown): value is StopRule {
  if (typeof value !== 'object' || value === null) return false;
  const rule = value as { kind?: unknown; name?: unknown; atLeast?: unknown };
  if (rule.kind === 'tool-called') return typeof rule.name === 'string';
  return (rule.kind === 'tool-calls' || rule.kind === 'rounds') && typeof rule.atLeast === 'number';
}

/**
 * The condition a {@link StopRule} stands for, evaluated where the loop runs.
 * @param rule - the rule.
 */
export function fromStopRule(rule: StopRule): StopCondition {
  switch (rule.kind) {
    case 'tool-called':
      return (run) => run.calls.some((call) => call.name === rule.name && call.status === 'ok');
    case 'tool-calls':
      return (run) => run.calls.filter((call) => call.status === 'ok').length >= rule.atLeast;
    case 'rounds':
      return (run) => toolRoundsRun(run.log) >= rule.atLeast;
  }
}
