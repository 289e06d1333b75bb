import { throwIfAborted } from '../shared/abort.ts';
import type { ToolCall } from '../toolcalls/types.ts';
import type { AnswerRun } from './answer-run.ts';
import type { Attempt } from './attempt.ts';
import { formatToolResult } from './cap-result.ts';
import { duplicateCallResult, unknownToolResult } from './prompts.ts';
import type { CallStatus, ToolCallRecord } from './types.ts';

/** Key under which two calls count as the same: the name and the arguments with keys sorted. */
function callKey(call: ToolCall): string {
  const canonical = (value: unknown): unknown => {
    if (Array.isArray(value)) return value.map(canonical);
    if (value && typeof value === 'object') {
      return Object.fromEntries(
        Object.keys(value)
          .sort()
          .map((k) => [k, canonical((value as Record<string, unknown>)[k])]),
      );
    }
    return value;
  };
  return `${call.name}:${JSON.stringify(canonical(call.arguments))}`;
}

/** Characters a token takes at the least, in the text models read: a result cut to this many per token fits in tokens too. */
const MIN_CHARS_PER_TOKEN = 3;

/**
 * What one result of a round of `calls` may put into the prompt: `maxResultChars`, and with a
 * context budget no more than its share of half of what a prompt may take — so a page read in
 * research mode, or a tool that returns megabytes, leaves room for the question and the answer.
 */
export function resultCharsFor(settings: Pick<AnswerRun['settings'], 'maxResultChars' | 'promptBudget'>, calls: number): number {
  if (settings.promptBudget === undefined) return settings.maxResultChars;
  const share = Math.floor(settings.promptBudget / (2 * Math.max(calls, 1)));
  return Math.min(settings.maxResultChars, Math.max(share, 64) * MIN_CHARS_PER_TOKEN);
}

async function runOne(
  run: AnswerRun,
  call: ToolCall,
  known: boolean,
  maxChars: number,
): Promise<{ status: CallStatus; result: string; value?: unknown; details?: Readonly<Record<string, unknown>> }> {
  if (!known) {
    return {
      status: 'unknown',
      result: unknownToolResult(
        call.name,
        run.offeredTools.map((t) => t.function.name),
      ),
    };
  }
  const key = callKey(call);
  if (run.calls.some((done) => done.status !== 'unknown' && callKey(done) === key)) {
    return { status: 'duplicate', result: duplicateCallResult(call.name) };
  }
  const outcome = await run.toolbox.run(call.name, call.arguments, { signal: run.settings.signal, maxResultChars: maxChars });
  throwIfAborted(run.settings.signal);
  if (outcome.effects) run.record({ kind: 'effects', round: run.round, effects: outcome.effects });
  if (outcome.ok)
    return { status: 'ok', result: formatToolResult(outcome.value, maxChars), value: outcome.value, ...(outcome.details ? { details: outcome.details } : {}) };
  const status: CallStatus = outcome.kind;
  return { status, result: formatToolResult(`Error: ${outcome.message}`, maxChars) };
}

/**
 * Runs every call of a round in order, each with its own id, then records the round's `turn`: the
 * assistant turn and all results enter the conversation together, so an abort mid-round leaves no
 * half tool call in it.
 * A call identical to one already run in this answer is answered with a reminder instead of being
 * run again; a missing tool gets one feedback line listing the available ones.
 */
export async function runCalls(run: AnswerRun, attempt: Attempt, newCallId: () => string): Promise<ToolCallRecord[]> {
  const ordered = attempt.order.map((call) => ({ call, known: !attempt.unknown.includes(call) }));
  const records: ToolCallRecord[] = [];
  for (const { call, known } of ordered) {
    const started = performance.now();
    const { status, result, value, details } = await runOne(run, call, known, resultCharsFor(run.settings, ordered.length));
    const record: ToolCallRecord = {
      id: newCallId(),
      name: call.name,
      arguments: call.arguments,
      source: attempt.source,
      round: run.round,
      status,
      result,
      ...(value === undefined ? {} : { value }),
      ...(details ? { details } : {}),
      ms: performance.now() - started,
    };
    records.push(record);
    run.record({ kind: 'call', round: run.round, record });
  }
  run.record({ kind: 'turn', round: run.round, text: attempt.text, callIds: records.map((r) => r.id), split: !run.engine.family.parallelCalls });
  return records;
}
