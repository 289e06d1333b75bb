import type { AnswerRun } from './answer-run.ts';
import { needsToolQuestion } from './prompts.ts';

/** The closed answers of the yes/no check, spelled as Qwen-style models naturally start them. */
const YES = 'Yes';
const NO = 'No';

/**
 * Asks, as a closed yes/no question decoded under a constraint, whether the user's request needs
 * `toolName`. Run before a forced call in `'auto'`, so priming cannot turn "hi" or "thanks" into
 * a tool call. The question extends the conversation's prompt, so it costs only its own tokens.
 */
export async function requestNeedsTool(run: AnswerRun, toolName: string): Promise<boolean> {
  const tool = run.offeredTools.find((t) => t.function.name === toolName);
  if (!tool) return false;
  const prompt = await run.render([...run.messages, { role: 'user', content: needsToolQuestion(tool) }]);
  const generated = await run.generate(prompt, { maxNewTokens: 2, choices: [YES, NO] }, 'gate');
  const yes = generated.text === YES;
  run.events.emit('step', 'gate', generated.text, yes ? 'yes' : 'no');
  return yes;
}
