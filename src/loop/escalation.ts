import type { ToolSchema } from '../engine/engine.ts';
import type { AnswerRun, AnswerView } from './answer-run.ts';
import type { Attempt } from './attempt.ts';
import { requestNeedsTool } from './needs-tool-gate.ts';
import { feedbackRetries, toolRoundsRun, type RungId, type RungVerdict } from './step-log.ts';
import { attemptInline } from './strategy-inline.ts';
import { attemptPrimed } from './strategy-primed.ts';
import { attemptStepwise } from './strategy-stepwise.ts';
import type { Strategy, ToolChoice } from './types.ts';

/** How many rounds of only-unknown tool names get a feedback line before such calls are just stripped. */
const MAX_UNKNOWN_TOOL_RETRIES = 3;

/** What a round is allowed and expected to do, prepared from the answer's log and settings before it runs. */
export interface RoundPlan {
  strategy: Strategy;
  /** The tools rendered into this round's prompt. */
  activeTools: readonly ToolSchema[];
  /** A call is expected this round, so a missing one may be forced. */
  expectCall: boolean;
  /** The tool a `{ name }` choice forces. */
  forcedName?: string;
  /** Ask the yes/no question before running a forced call (`'auto'` only). */
  gate: boolean;
  /** Feedback retries for calls to missing tools are still allowed. */
  retriesLeft: boolean;
}

/**
 * Prepares a round. `'required'` and `{ name }` bind the first round of an answer; `'auto'`
 * expects a call on the first round only (later rounds decide freely); `'none'` offers nothing.
 * "First" is read off the log: rounds that only earned feedback for missing tools do not count; a
 * conversation handed in ending with tool results (the AI SDK's next step) is past its first round in `'auto'`.
 * A `toolChoice` that `prepareStep` set for this round binds it the same way.
 */
export function planRound(run: AnswerView, activeTools: readonly ToolSchema[], roundChoice?: ToolChoice): RoundPlan {
  const { strategy } = run.settings;
  const toolChoice = roundChoice ?? run.settings.toolChoice;
  // After tool results a free choice is free again; 'required' and a named tool bind each turn a caller asks for.
  const resumed = run.continuesAfterResults && toolChoice === 'auto';
  const firstRound = roundChoice !== undefined || (toolRoundsRun(run.log) === 1 && !resumed);
  // Feedback for a missing tool is a round of its own, which a caller running the tools never sees.
  const retriesLeft = !run.settings.callsOnly && feedbackRetries(run.log) < MAX_UNKNOWN_TOOL_RETRIES;
  if (activeTools.length === 0) return { strategy: 'inline', activeTools, expectCall: false, gate: false, retriesLeft };
  if (typeof toolChoice === 'object') {
    return { strategy, activeTools, expectCall: firstRound, gate: false, retriesLeft, ...(firstRound ? { forcedName: toolChoice.name } : {}) };
  }
  return { strategy, activeTools, expectCall: firstRound, gate: toolChoice === 'auto', retriesLeft };
}

/** One rung of the escalation ladder: when it applies, how it asks the model, and what its attempt means. */
interface Rung {
  id: RungId;
  applies(plan: RoundPlan): boolean;
  attempt(run: AnswerRun, prompt: string, plan: RoundPlan): Promise<Attempt>;
  judge(run: AnswerRun, attempt: Attempt, plan: RoundPlan): Promise<RungVerdict>;
}

/**
 * The free generation's verdict: its calls are used as they are (with a forced name, only calls
 * of that tool). Calls to missing tools are used — they earn a feedback line — only a few times
 * per answer; after that they are stripped. Otherwise its text is the answer unless a later rung
 * produces a call.
 */
async function judgeInline(_run: AnswerRun, attempt: Attempt, plan: RoundPlan): Promise<RungVerdict> {
  if (plan.forcedName) {
    const calls = attempt.calls.filter((c) => c.name === plan.forcedName);
    return calls.length ? { kind: 'use', attempt: { ...attempt, calls, unknown: [], order: calls } } : { kind: 'next', fallback: attempt };
  }
  if (attempt.calls.length > 0) return { kind: 'use', attempt };
  if (attempt.unknown.length > 0 && plan.retriesLeft) return { kind: 'use', attempt };
  return { kind: 'next', fallback: { ...attempt, unknown: [], order: [] } };
}

/** A forced call's verdict: none came out, try the next rung; one did, and the gate (if any) already said yes: use it. */
async function judgeForced(_run: AnswerRun, attempt: Attempt): Promise<RungVerdict> {
  return attempt.calls.length ? { kind: 'use', attempt } : { kind: 'next' };
}

/** The yes/no check's verdict, read off its attempt: yes climbs on to the forced rungs, no stops and the first answer stands. */
async function judgeGate(_run: AnswerRun, attempt: Attempt): Promise<RungVerdict> {
  return attempt.text === 'yes' ? { kind: 'next' } : { kind: 'stop' };
}

/** Inline, then (in `'auto'`) the yes/no gate, then primed, then stepwise — each only if the one before produced no usable call. */
const ESCALATION_LADDER: readonly Rung[] = [
  {
    id: 'inline',
    applies: (plan) => plan.strategy !== 'stepwise' || !plan.expectCall,
    attempt: (run, prompt, plan) => attemptInline(run, prompt, 'inline', plan.activeTools.length > 0),
    judge: judgeInline,
  },
  {
    id: 'gate',
    // Only before a forced rung that will run: in 'auto', when a call is expected but was not written.
    applies: (plan) => plan.gate && plan.strategy !== 'inline' && plan.expectCall,
    attempt: async (run, _prompt, plan) => ({
      source: 'inline',
      calls: [],
      unknown: [],
      order: [],
      raw: '',
      text: (await requestNeedsTool(run, plan.activeTools)) ? 'yes' : 'no',
    }),
    judge: judgeGate,
  },
  {
    id: 'primed',
    applies: (plan) => plan.strategy === 'auto' && plan.expectCall,
    attempt: (run, prompt, plan) => attemptPrimed(run, prompt, plan.forcedName),
    judge: judgeForced,
  },
  {
    id: 'stepwise',
    applies: (plan) => plan.strategy !== 'inline' && plan.expectCall,
    attempt: (run, prompt, plan) => attemptStepwise(run, prompt, plan.forcedName),
    judge: judgeForced,
  },
];

/**
 * Runs the ladder for one round, a fold over its rungs: each that applies makes an attempt and
 * returns a verdict (logged); the first `use` is what the round does, `stop` ends the climb, and
 * otherwise the earliest fallback — the model's own answer — stands.
 */
export async function escalate(run: AnswerRun, prompt: string, plan: RoundPlan): Promise<Attempt> {
  let fallback: Attempt | undefined;
  for (const rung of ESCALATION_LADDER) {
    if (!rung.applies(plan)) continue;
    if (rung.id !== 'inline') run.record({ kind: 'escalate', round: run.round, rung: rung.id });
    const attempt = await rung.attempt(run, prompt, plan);
    const verdict = await rung.judge(run, attempt, plan);
    run.record({ kind: 'verdict', round: run.round, rung: rung.id, verdict: verdict.kind });
    if (verdict.kind === 'use') return verdict.attempt;
    fallback ??= verdict.kind === 'next' ? verdict.fallback : undefined;
    if (verdict.kind === 'stop') break;
  }
  // Stepwise-first plans skip the free generation; the answer still has to come from somewhere.
  return fallback ?? attemptInline(run, prompt, 'inline', plan.activeTools.length > 0);
}
