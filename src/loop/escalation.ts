import type { AnswerRun } from './answer-run.ts';
import type { Attempt } from './attempt.ts';
import { requestNeedsTool } from './needs-tool-gate.ts';
import { attemptInline } from './strategy-inline.ts';
import { attemptPrimed } from './strategy-primed.ts';
import { attemptStepwise } from './strategy-stepwise.ts';
import type { Strategy } from './types.ts';

/** How many rounds of only-unknown tool names get a feedback line before such calls are just stripped. */
export const MAX_UNKNOWN_TOOL_RETRIES = 3;

/** What a round is allowed and expected to do, derived from the answer's settings. */
export interface RoundPlan {
  strategy: Strategy;
  toolsOffered: boolean;
  /** A call is expected this round, so a missing one may be forced. */
  expectCall: boolean;
  /** The tool a `{ name }` choice forces. */
  forcedName?: string;
  /** Ask the yes/no question before running a forced call (`'auto'` only). */
  gate: boolean;
}

/**
 * `'required'` and `{ name }` bind the first round of an answer; `'auto'` expects a call on the
 * first round only (later rounds decide freely); `'none'` offers nothing.
 */
export function planRound(run: AnswerRun): RoundPlan {
  const { toolChoice, strategy } = run.settings;
  const toolsOffered = run.offeredTools.length > 0;
  const firstRound = run.metrics.rounds === 1;
  if (!toolsOffered) return { strategy: 'inline', toolsOffered, expectCall: false, gate: false };
  if (typeof toolChoice === 'object') return { strategy, toolsOffered, expectCall: firstRound, gate: false, ...(firstRound ? { forcedName: toolChoice.name } : {}) };
  return { strategy, toolsOffered, expectCall: firstRound, gate: toolChoice === 'auto' };
}

/** One rung of the escalation ladder: when it applies, and how it asks the model. */
interface Rung {
  source: 'inline' | 'primed' | 'stepwise';
  applies(plan: RoundPlan): boolean;
  attempt(run: AnswerRun, prompt: string, plan: RoundPlan): Promise<Attempt>;
}

/** Inline, then primed, then stepwise — each only if the one before produced no usable call. */
export const ESCALATION_LADDER: readonly Rung[] = [
  {
    source: 'inline',
    applies: (plan) => plan.strategy !== 'stepwise' || !plan.expectCall,
    attempt: (run, prompt, plan) => attemptInline(run, prompt, 'inline', plan.toolsOffered),
  },
  {
    source: 'primed',
    applies: (plan) => plan.strategy === 'auto' && plan.expectCall,
    attempt: (run, prompt, plan) => attemptPrimed(run, prompt, plan.forcedName),
  },
  {
    source: 'stepwise',
    applies: (plan) => plan.strategy !== 'inline' && plan.expectCall,
    attempt: (run, prompt, plan) => attemptStepwise(run, prompt, plan.forcedName),
  },
];

/**
 * Decides whether an inline attempt's calls are used as they are. Calls to missing tools are kept
 * (they earn a feedback line) only a few times per answer; after that they are stripped.
 */
function usableInline(run: AnswerRun, attempt: Attempt, plan: RoundPlan): Attempt | undefined {
  if (plan.forcedName) {
    const calls = attempt.calls.filter((c) => c.name === plan.forcedName);
    return calls.length ? { ...attempt, calls, unknown: [], order: calls } : undefined;
  }
  if (attempt.calls.length > 0) return attempt;
  if (attempt.unknown.length === 0) return undefined;
  if (run.unknownToolRetries < MAX_UNKNOWN_TOOL_RETRIES) return attempt;
  attempt.unknown = [];
  attempt.order = [];
  return undefined;
}

/**
 * Runs the ladder for one round and returns what the round does: calls to run, or the answer text.
 * A forced call in `'auto'` runs only if the yes/no check says the request needs that tool;
 * otherwise the model's original answer stands.
 */
export async function escalate(run: AnswerRun, prompt: string): Promise<Attempt> {
  const plan = planRound(run);
  let original: Attempt | undefined;
  for (const rung of ESCALATION_LADDER) {
    if (!rung.applies(plan)) continue;
    const attempt = await rung.attempt(run, prompt, plan);
    if (rung.source === 'inline') {
      original = attempt;
      const usable = usableInline(run, attempt, plan);
      if (usable) return usable;
      continue;
    }
    const [first] = attempt.calls;
    if (!first) continue;
    if (plan.gate && !(await requestNeedsTool(run, first.name))) break;
    run.metrics.rescues++;
    return attempt;
  }
  // Stepwise-first plans skip the free generation; the answer still has to come from somewhere.
  return original ?? attemptInline(run, prompt, 'inline', plan.toolsOffered);
}
