import type { AnswerRun } from './answer-run.ts';

/** Ends the tool rounds of an answer when it returns true; the answer rounds follow. */
export type StopCondition = (run: AnswerRun) => boolean;

/** The round limit: `maxRounds` tool rounds have run. */
export const roundLimitReached: StopCondition = (run) => run.metrics.rounds >= run.settings.maxRounds;

/** A tool result asked for the tool rounds to end (e.g. the search budget is spent). */
export const toolRoundsEnded: StopCondition = (run) => run.endToolRounds;

/** True when any condition holds. */
export function shouldStop(run: AnswerRun, conditions: readonly StopCondition[]): boolean {
  return conditions.some((condition) => condition(run));
}
