import type { AnswerRun } from './answer-run.ts';
import type { Attempt } from './attempt.ts';
import { escalate, planRound } from './escalation.ts';
import { prepareRound, type PrepareStepResult } from './prepare-step.ts';
import { ANSWER_NOW_PROMPT, fallbackAnswer } from './prompts.ts';
import { handOver } from './hand-over.ts';
import { runCalls } from './run-calls.ts';
import { roundLimitReached, shouldStop, toolRoundsEnded, type StopCondition } from './stop-conditions.ts';
import { answerFromSteps } from './step-log.ts';
import { attemptInline } from './strategy-inline.ts';
import { ToolCallStreamFilter } from '../toolcalls/index.ts';
import type { ChatAnswer, OpeningCall } from './types.ts';
import { outside } from '../shared/outside-text.ts';

/** Tool-less rounds after the round limit, each telling the model to answer now. */
const MAX_ANSWER_ROUNDS = 2;

/** Dependencies of {@link runAnswer} that belong to the conversation rather than the answer. */
export interface AnswerHooks {
  /** A conversation-wide unique id for the next call. */
  newCallId(): string;
  /** Extra conditions that end the tool rounds early (e.g. a spent search budget). */
  stopWhen?: readonly StopCondition[];
  /** The last user turn of the answer rounds (e.g. with the sources to cite); default {@link ANSWER_NOW_PROMPT}. */
  answerNow?: () => Promise<string | undefined>;
  /** Asked before each tool round what it may call (the AI SDK's `prepareStep`). */
  prepareStep?: (round: number) => Promise<PrepareStepResult | undefined>;
}

function hasCalls(attempt: Attempt): boolean {
  return attempt.order.length > 0;
}

/**
 * The tool rounds: render → escalate → run calls → repeat, until the model answers without a call
 * or a stop condition holds. Returns the answer text, or undefined when calls were still coming.
 */
async function toolRounds(run: AnswerRun, hooks: AnswerHooks): Promise<string | undefined> {
  const stopWhen = [roundLimitReached, toolRoundsEnded, ...(hooks.stopWhen ?? [])];
  while (!shouldStop(run, stopWhen)) {
    run.record({ kind: 'round', round: run.round + 1, phase: 'tools' });
    const prepared = prepareRound(run, await hooks.prepareStep?.(run.round));
    const plan = planRound(run, prepared.activeTools, prepared.toolChoice);
    const prompt = await run.render([], plan.activeTools);
    const attempt = await escalate(run, prompt, plan);
    if (run.settings.callsOnly) return attempt.calls.length > 0 ? handOver(run, attempt, prompt, hooks.newCallId) : attempt.text;
    if (!hasCalls(attempt)) return attempt.text;
    await runCalls(run, attempt, hooks.newCallId);
  }
  return undefined;
}

/**
 * The answer rounds: no tools rendered, a last user turn telling the model to answer now. A call
 * it writes anyway is run, and it is asked once more.
 */
async function answerRounds(run: AnswerRun, hooks: AnswerHooks): Promise<string | undefined> {
  const answerNow = (await hooks.answerNow?.()) ?? ANSWER_NOW_PROMPT;
  for (let i = 0; i < MAX_ANSWER_ROUNDS; i++) {
    run.record({ kind: 'round', round: run.round + 1, phase: 'answer' });
    const prompt = await run.render([{ role: 'user', content: answerNow }], []);
    const attempt = await attemptInline(run, prompt, 'answer-round', run.settings.toolChoice !== 'none');
    if (!hasCalls(attempt) && attempt.text.trim()) return attempt.text;
    if (hasCalls(attempt)) await runCalls(run, attempt, hooks.newCallId);
  }
  return undefined;
}

/**
 * Goes on writing an answer that was stopped: one answer round, no tools, the earlier text already written
 * after the generation prompt as the model's own, so it continues mid-sentence (and its tokens are reused
 * from the cache). Only the new text streams; the answer is the whole text.
 */
async function continueWriting(run: AnswerRun, from: string): Promise<string> {
  run.record({ kind: 'round', round: run.round + 1, phase: 'answer' });
  const prompt = await run.render([], []);
  const filter = new ToolCallStreamFilter();
  let raw = '';
  let written = '';
  const show = (update: { text: string; reasoning: string }) => {
    run.reasoning(update.reasoning);
    // The visible stream drops leading whitespace; mid-sentence, the space before the next word is the model's.
    const text = written === '' && update.text ? `${/^\s*/.exec(raw)?.[0] ?? ''}${update.text}` : update.text;
    written += text;
    run.token(text);
  };
  await run.generate(
    // The earlier text may come from a saved or imported conversation: outside text.
    `${prompt}${outside(from)}`,
    {
      maxNewTokens: run.settings.maxNewTokens,
      onText: (chunk) => {
        raw += chunk;
        show(filter.push(chunk));
      },
      ...(run.settings.sampling ? { sampling: run.settings.sampling } : {}),
    },
    'continue',
    from,
  );
  show(filter.end());
  return `${from}${written}`.trim();
}

/**
 * The caller's opening calls (`ChatOptions.openingCalls`), run as round 1 as if the model had written them:
 * the model then reads them and their results in its own call syntax, and its first generation goes on from there.
 */
async function openingRound(run: AnswerRun, hooks: AnswerHooks, calls: readonly OpeningCall[]): Promise<void> {
  run.record({ kind: 'round', round: run.round + 1, phase: 'tools' });
  const order = calls.map((call) => ({ name: call.name, arguments: { ...call.arguments } }));
  await runCalls(run, { source: 'given', calls: order, unknown: [], order, text: '', raw: '' }, hooks.newCallId);
}

/**
 * Runs one whole answer over `run.messages` (which starts by ending with the user's message); its
 * `finished` step is the final assistant turn. The answer never ends in a tool call or in nothing: when the
 * model keeps calling, or says nothing, the answer rounds ask it to answer, and as a last resort the
 * user reads what the tools returned.
 */
export async function runAnswer(run: AnswerRun, hooks: AnswerHooks): Promise<ChatAnswer> {
  if (run.settings.continueFrom !== undefined) {
    run.finish(await continueWriting(run, run.settings.continueFrom));
    return answerFromSteps(run.log);
  }
  if (run.settings.openingCalls?.length) await openingRound(run, hooks, run.settings.openingCalls);
  let text = (await toolRounds(run, hooks))?.trim();
  // A caller running the tools itself gets this one turn as it came: calls, text, or both.
  if (run.settings.callsOnly) {
    run.finish(text ?? '');
    return answerFromSteps(run.log);
  }
  if (!text) text = (await answerRounds(run, hooks))?.trim();
  if (!text) {
    text = fallbackAnswer(run.calls.filter((c) => c.status === 'ok'));
    run.token(text);
  }
  run.finish(text);
  return answerFromSteps(run.log);
}
