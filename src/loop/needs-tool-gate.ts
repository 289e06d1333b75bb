import type { ToolSchema } from '../engine/engine.ts';
import type { AnswerRun } from './answer-run.ts';
import { needsToolQuestion } from './prompts.ts';

/** The closed answers of the yes/no check, spelled as Qwen-style models naturally start them. */
const YES = 'Yes';
const NO = 'No';

/**
 * Asks, as a closed yes/no question decoded under a constraint, whether the user's request needs
 * one of `tools`. Run before any call is forced in `'auto'` — before priming, so small talk costs
 * this one two-token generation instead of a primed call and then the question — and it keeps
 * priming from turning "hi" or "thanks" into a tool call. The question extends the conversation's
 * prompt, so it costs only its own tokens.
 */
export async function requestNeedsTool(run: AnswerRun, tools: readonly ToolSchema[]): Promise<boolean> {
  if (tools.length === 0) return false;
  const prompt = await run.render([{ role: 'user', content: needsToolQuestion(tools) }]);
  const generated = await run.generate(prompt, { maxNewTokens: 2, choices: [YES, NO] }, 'gate');
  const yes = generated.text === YES;
  run.record({ kind: 'choice', round: run.round, which: 'gate', raw: generated.text, resolved: yes ? 'yes' : 'no' });
  return yes;
}
