import type { ObjectSchema } from '../tools/tool-schema.ts';
import { validateArguments } from '../tools/validate-arguments.ts';
import type { AnswerRun } from './answer-run.ts';
import type { Attempt } from './attempt.ts';
import type { HandedCall } from './step-log.ts';
import { attemptStepwise } from './strategy-stepwise.ts';

/**
 * Ends the tool rounds with this round's calls unrun, for a caller that runs tools itself (the AI
 * SDK provider: the SDK executes them and asks again with their results). Only calls to registered
 * tools go, with arguments validated and coerced as the registry would before running them; a call
 * whose arguments do not validate is written again argument by argument (the stepwise rung, each
 * argument decoded under its type), and dropped, named in the step, if it still does not — a
 * broken call is never handed over. Returns the visible text beside the calls.
 */
export async function handOver(run: AnswerRun, attempt: Attempt, prompt: string, newCallId: () => string): Promise<string> {
  const calls: HandedCall[] = [];
  const dropped: { name: string; message: string }[] = [];
  for (const call of attempt.calls) {
    let checked = validated(run, call.name, call.arguments);
    let source = attempt.source;
    if (!checked.ok) {
      const again = await attemptStepwise(run, prompt, call.name);
      const retry = again.calls.find((c) => c.name === call.name);
      if (retry) {
        checked = validated(run, call.name, retry.arguments);
        source = again.source;
      }
    }
    if (checked.ok) calls.push({ id: newCallId(), name: call.name, arguments: checked.arguments, source });
    else dropped.push({ name: call.name, message: checked.message });
  }
  run.record({ kind: 'handover', round: run.round, text: attempt.text, calls, dropped });
  return attempt.text;
}

function validated(run: AnswerRun, name: string, args: unknown): ReturnType<typeof validateArguments> {
  const schema = run.toolbox.schemas.find((t) => t.function.name === name);
  if (!schema) return { ok: false, message: `${name} is not a registered tool.` };
  return validateArguments({ name, parameters: schema.function.parameters as unknown as ObjectSchema }, args);
}
