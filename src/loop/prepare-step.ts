import type { ToolSchema } from '../engine/engine.ts';
import { InvalidOptionError } from '../shared/errors.ts';
import type { AnswerRun } from './answer-run.ts';
import { TOOL_CHOICES, UnknownToolError } from './answer-request.ts';
import type { PrepareStepResult, ToolChoice } from './types.ts';

export type { PrepareStepInfo, PrepareStepResult } from './types.ts';

/** A round as `prepareStep` shaped it: the tools rendered, and the choice when it set one. */
export interface PreparedRound {
  activeTools: readonly ToolSchema[];
  toolChoice?: ToolChoice;
}

function checkChoice(choice: unknown, active: readonly ToolSchema[]): ToolChoice {
  if (choice === 'auto' || choice === 'required' || choice === 'none') return choice;
  const name = typeof choice === 'object' && choice !== null ? (choice as { name?: unknown }).name : undefined;
  if (typeof name !== 'string') throw new InvalidOptionError('prepareStep toolChoice', choice, TOOL_CHOICES);
  const schema = active.find((t) => t.function.name === name);
  if (!schema) {
    const names = active.map((t) => t.function.name);
    throw new UnknownToolError(`prepareStep's toolChoice names '${name}', which this round does not offer. Offered: ${names.join(', ') || 'none'}.`);
  }
  return { name: schema.function.name };
}

/**
 * Applies what `prepareStep` returned to the round about to run, and records it as a `prepared` step
 * so the log says what the round was allowed. Names that are not offered now are refused, naming
 * those that are: a round can narrow the tools, never reach one the answer withheld.
 */
export function prepareRound(run: AnswerRun, result: PrepareStepResult | undefined): PreparedRound {
  const offered = run.offeredTools;
  if (!result || (result.activeTools === undefined && result.toolChoice === undefined)) return { activeTools: offered };
  let activeTools = offered;
  if (result.activeTools !== undefined) {
    const missing = result.activeTools.filter((name) => run.resolveOffered(name) === undefined);
    if (missing.length > 0) {
      const names = offered.map((t) => t.function.name);
      throw new UnknownToolError(
        `prepareStep's activeTools names ${missing.map((n) => `'${n}'`).join(', ')}, not offered in this answer. Offered: ${names.join(', ') || 'none'}.`,
      );
    }
    const wanted = new Set(result.activeTools.map((name) => run.resolveOffered(name)));
    activeTools = offered.filter((t) => wanted.has(t.function.name));
  }
  const toolChoice = result.toolChoice === undefined ? undefined : checkChoice(result.toolChoice, activeTools);
  // Recorded before the round runs: the run's offered tools are narrowed from this step on.
  run.record({
    kind: 'prepared',
    round: run.round,
    ...(result.activeTools === undefined ? {} : { activeTools: activeTools.map((t) => t.function.name) }),
    ...(toolChoice === undefined ? {} : { toolChoice }),
  });
  return { activeTools: toolChoice === 'none' ? [] : run.offeredTools, ...(toolChoice === undefined ? {} : { toolChoice }) };
}
