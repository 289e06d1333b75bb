import type { ChatMessage, ChatToolCall } from '../engine/engine.ts';
import type { Attempt } from './attempt.ts';
import type { MemoryView } from './fit-context.ts';
import type { ToolEffects } from './toolbox.ts';
import type { AnswerMetrics, CallSource, ToolCallRecord, ToolChoice } from './call-types.ts';

/** A rung of the escalation ladder. */
export type RungId = 'inline' | 'gate' | 'primed' | 'stepwise';

/**
 * What a rung's attempt means for the round, the one verdict every rung returns: `use` these
 * calls (or this answer); try the `next` rung (keeping `fallback` as the answer if none works);
 * `stop` escalating (a forced call the yes/no check turned down; the first answer stands).
 */
export type RungVerdict = { kind: 'use'; attempt: Attempt } | { kind: 'next'; fallback?: Attempt } | { kind: 'stop' };

/**
 * One thing that happened while answering. An answer is the append-only list of these; every
 * decision of the loop (is this the first round, how many retries, which tools are offered, has
 * a result ended the tool rounds), every metric, the conversation turns the answer adds and every
 * event but `token` are derived from it, never kept beside it.
 */
export type Step =
  /**
   * The first step of every answer: what it ran with — the system message the model read first, the
   * settings (the options with the chat's defaults filled in), the tools offered and, where only some
   * were, why each (the selection; a group the chat model picked is the `group` generation and choice
   * that follow this step, its tokens counted with the answer's).
   */
  | { kind: 'started'; systemPrompt: string; settings: StartedSettings; offered: readonly string[]; selection?: StartedSelection }
  | { kind: 'round'; round: number; phase: 'tools' | 'answer' }
  /** What `prepareStep` changed for this round: the tools it may call, and whether it must call one. */
  | { kind: 'prepared'; round: number; activeTools?: readonly string[]; toolChoice?: ToolChoice }
  | {
      kind: 'generation';
      round: number;
      strategy: string;
      promptTokens: number;
      cachedTokens: number;
      newTokens: number;
      ms: number;
      /** What the model wrote, with the primed part (the opener the loop wrote for it) in front. */
      text: string;
    }
  /** The loop climbs past the free generation to this rung. */
  | { kind: 'escalate'; round: number; rung: Exclude<RungId, 'inline'> }
  /** A closed question the model answered: the stepwise tool (`select`), one argument (`arg:city`), the yes/no check (`gate`). */
  | { kind: 'choice'; round: number; which: string; raw: string; resolved: string }
  | { kind: 'verdict'; round: number; rung: RungId; verdict: RungVerdict['kind'] }
  /** A forced generation that named no registered tool: discarded, never remapped. */
  | { kind: 'forced-failed'; round: number; strategy: 'primed' | 'stepwise'; raw: string; name?: string; reason: string }
  | { kind: 'call'; round: number; record: ToolCallRecord }
  | { kind: 'effects'; round: number; effects: ToolEffects }
  /** A registered tool the selection had not offered, called (`written` is the model's spelling) and offered from then on. */
  | { kind: 'unoffered-call'; round: number; name: string; written: string }
  /**
   * The round's calls written into the conversation, after all of them ran (an abort mid-round leaves
   * none half-written): `text` is the visible text beside them, `split` one call per assistant turn.
   */
  | { kind: 'turn'; round: number; text: string; callIds: readonly string[]; split: boolean }
  /**
   * A prompt did not fit the context budget, so the model's memory of the conversation shrank:
   * history before `from` is no longer in it, tool results before `shortenBefore` are shortened
   * (indices into the stored history, which keeps every message). `promptTokens` is the prompt that
   * did not fit, `budgetTokens` what a prompt may take.
   */
  | {
      kind: 'memory';
      round: number;
      from: number;
      shortenBefore: number;
      dropped: number;
      shortened: number;
      promptTokens: number;
      budgetTokens: number;
    }
  /**
   * The round's calls, handed to the caller unrun (`callsOnly`: the AI SDK runs them): registered
   * tools only, arguments validated and coerced; `dropped` names a call whose arguments never validated.
   */
  | { kind: 'handover'; round: number; text: string; calls: readonly HandedCall[]; dropped: readonly { name: string; message: string }[] }
  /**
   * The answer's end: its text and wall time, and `firstTextMs`, how long after the start its first
   * visible text streamed (the time to first token as the reader sees it; absent when none streamed).
   */
  | { kind: 'finished'; ms: number; text: string; firstTextMs?: number };

/** The settings an answer ran with, as its `started` step records them (data only: it crosses the worker and is saved). */
export interface StartedSettings {
  toolChoice: ToolChoice;
  strategy: string;
  maxRounds: number;
  maxNewTokens: number;
  maxResultChars: number;
  repetitionPenalty: number;
  enableThinking: boolean;
  sampling?: { temperature: number; topP?: number };
  /** Tokens a prompt may take (the context budget less `maxNewTokens`); none: no limit. */
  promptBudget?: number;
  /** The turn hands its calls over unrun (the AI SDK's step). */
  callsOnly?: boolean;
  /** The tool rounds' extra stop conditions given as data (functions are not recorded). */
  stopRules?: readonly unknown[];
}

/** Why an answer offered only some tools: each offered tool's reason, how sure the rankings were, a group the model picked. */
interface StartedSelection {
  reasons: Readonly<Record<string, string>>;
  ranking: { lexicalTop: number; semanticTop?: number; semanticError?: string; confident: boolean };
  group?: { chosen: string; among: number };
}

/** A call handed over unrun: its id, registered name, validated arguments and the rung that wrote it. */
export interface HandedCall {
  id: string;
  name: string;
  arguments: Record<string, unknown>;
  source: CallSource;
}

/** The steps of one kind. */
function stepsOf<K extends Step['kind']>(log: readonly Step[], kind: K): Extract<Step, { kind: K }>[] {
  return log.filter((step): step is Extract<Step, { kind: K }> => step.kind === kind);
}

/** The round in progress (1-based; answer rounds continue the count), 0 before the first. */
export function currentRound(log: readonly Step[]): number {
  return stepsOf(log, 'round').length;
}

/** Every call handled so far, in order. */
export function callsOf(log: readonly Step[]): ToolCallRecord[] {
  return stepsOf(log, 'call').map((step) => step.record);
}

/**
 * Tool rounds in which every call named a missing tool: feedback retries, which are bounded on
 * their own and do not count as rounds.
 */
export function feedbackRetries(log: readonly Step[]): number {
  const toolRounds = new Set(
    stepsOf(log, 'round')
      .filter((s) => s.phase === 'tools')
      .map((s) => s.round),
  );
  const byRound = new Map<number, ToolCallRecord[]>();
  for (const { round, record } of stepsOf(log, 'call')) if (toolRounds.has(round)) byRound.set(round, [...(byRound.get(round) ?? []), record]);
  return [...byRound.values()].filter((records) => records.every((r) => r.status === 'unknown')).length;
}

/** Tool rounds that count: started, minus the feedback retries. */
export function toolRoundsRun(log: readonly Step[]): number {
  return stepsOf(log, 'round').filter((s) => s.phase === 'tools').length - feedbackRetries(log);
}

/** Whether a tool result asked for the tool rounds to end (a spent search budget). */
export function toolRoundsEnded(log: readonly Step[]): boolean {
  return stepsOf(log, 'effects').some((s) => s.effects.endToolRounds);
}

/** The tools offered now: the initial ones, with every result's withdrawals and offers applied in order. */
export function offeredNames(log: readonly Step[], initial: readonly string[], isRegistered: (name: string) => boolean): Set<string> {
  const offered = new Set(initial);
  for (const { effects } of stepsOf(log, 'effects')) {
    for (const name of effects.withdraw ?? []) offered.delete(name);
    for (const name of effects.offer ?? []) if (isRegistered(name)) offered.add(name);
  }
  for (const { name } of stepsOf(log, 'unoffered-call')) offered.add(name);
  return offered;
}

/** The tools `prepareStep` narrowed the round in progress to, if it did. */
export function roundToolsOf(log: readonly Step[]): readonly string[] | undefined {
  const round = currentRound(log);
  return stepsOf(log, 'prepared').find((step) => step.round === round)?.activeTools;
}

/** The part of the stored conversation the model sees after this log: the last `memory` step's view, else `initial`. */
export function memoryOf(log: readonly Step[], initial: MemoryView): MemoryView {
  const last = stepsOf(log, 'memory').at(-1);
  return last ? { from: last.from, shortenBefore: last.shortenBefore } : initial;
}

/** Tools an effect withdrew during the answer (and did not offer again): not callable, even if registered. */
export function withdrawnNames(log: readonly Step[]): Set<string> {
  const withdrawn = new Set<string>();
  for (const { effects } of stepsOf(log, 'effects')) {
    for (const name of effects.withdraw ?? []) withdrawn.add(name);
    for (const name of effects.offer ?? []) withdrawn.delete(name);
  }
  return withdrawn;
}

const FORCED: ReadonlySet<CallSource> = new Set<CallSource>(['primed', 'stepwise']);

/** The answer's metrics, derived from its steps. `ms` is the answer's wall time when it finished. */
export function metricsOf(log: readonly Step[]): AnswerMetrics {
  const generations = stepsOf(log, 'generation');
  const calls = callsOf(log);
  const sum = (pick: (g: (typeof generations)[number]) => number) => generations.reduce((n, g) => n + pick(g), 0);
  const newTokens = sum((g) => g.newTokens);
  const generationMs = sum((g) => g.ms);
  const finished = stepsOf(log, 'finished').at(-1);
  return {
    rounds: toolRoundsRun(log),
    answerRounds: stepsOf(log, 'round').filter((s) => s.phase === 'answer').length,
    generations: generations.length,
    promptTokens: sum((g) => g.promptTokens),
    cachedTokens: sum((g) => g.cachedTokens),
    newTokens,
    toolCalls: calls.length,
    forcedCalls: calls.filter((c) => FORCED.has(c.source)).length,
    forcedCallsFailed: stepsOf(log, 'forced-failed').length,
    tool_calls_force_failed: stepsOf(log, 'forced-failed').length,
    rescues: stepsOf(log, 'verdict').filter((s) => s.rung !== 'inline' && s.verdict === 'use').length,
    duplicateCalls: calls.filter((c) => c.status === 'duplicate').length,
    unknownToolCalls: calls.filter((c) => c.status === 'unknown').length,
    unofferedCalls: stepsOf(log, 'unoffered-call').length,
    ms: finished?.ms ?? 0,
    ...(finished?.firstTextMs === undefined ? {} : { firstTextMs: finished.firstTextMs }),
    tokensPerSecond: generationMs > 0 ? (newTokens * 1000) / generationMs : 0,
  };
}

/**
 * A round's calls as conversation turns: one assistant turn with every call and then the results,
 * or, `split`, a call and its result per turn (Llama 3.2's template raises on two calls in one turn).
 */
function turnMessages(text: string, records: readonly ToolCallRecord[], split: boolean): ChatMessage[] {
  const call = (r: ToolCallRecord): ChatToolCall => ({ id: r.id, type: 'function', function: { name: r.name, arguments: r.arguments } });
  const result = (r: ToolCallRecord): ChatMessage => ({ role: 'tool', content: r.result, tool_call_id: r.id, name: r.name });
  if (!split) return [{ role: 'assistant', content: text, tool_calls: records.map(call) }, ...records.map(result)];
  return records.flatMap((r, i) => [{ role: 'assistant', content: i === 0 ? text : '', tool_calls: [call(r)] } as ChatMessage, result(r)]);
}

/**
 * The turns the answer adds to the conversation, derived from its steps: each round's calls with
 * their results, then the answer. Only whole rounds are there, so the conversation stays consistent
 * when an answer is stopped half-way.
 */
export function messagesOf(log: readonly Step[]): ChatMessage[] {
  const records = new Map(callsOf(log).map((record) => [record.id, record]));
  const handedOver = log.some((step) => step.kind === 'handover');
  return log.flatMap((step): ChatMessage[] => {
    // An answer that handed its calls over ends with them: the caller adds their results and asks again.
    if (step.kind === 'finished') return handedOver ? [] : [{ role: 'assistant', content: step.text }];
    if (step.kind === 'handover') {
      const calls = step.calls.map((c) => ({ id: c.id, type: 'function' as const, function: { name: c.name, arguments: c.arguments } }));
      return [{ role: 'assistant', content: step.text, ...(calls.length ? { tool_calls: calls } : {}) }];
    }
    if (step.kind !== 'turn') return [];
    const calls = step.callIds.map((id) => records.get(id)).filter((r): r is ToolCallRecord => r !== undefined);
    return turnMessages(step.text, calls, step.split);
  });
}

/** Tokens over every generation of an answer. */
export interface TokenUsage {
  promptTokens: number;
  cachedTokens: number;
  newTokens: number;
}

/** The tokens of every generation in the log, summed. */
function totalUsageOf(log: readonly Step[]): TokenUsage {
  const usage = { promptTokens: 0, cachedTokens: 0, newTokens: 0 };
  for (const g of stepsOf(log, 'generation')) {
    usage.promptTokens += g.promptTokens;
    usage.cachedTokens += g.cachedTokens;
    usage.newTokens += g.newTokens;
  }
  return usage;
}

/**
 * A whole answer read back from its steps alone (a saved answer, one that crossed the worker):
 * the text, the calls, the metrics and the usage are folds over the log, so the steps are the record.
 */
export function answerFromSteps(log: readonly Step[]): {
  text: string;
  calls: ToolCallRecord[];
  metrics: AnswerMetrics;
  steps: readonly Step[];
  totalUsage: TokenUsage;
} {
  return { text: stepsOf(log, 'finished').at(-1)?.text ?? '', calls: callsOf(log), metrics: metricsOf(log), steps: log, totalUsage: totalUsageOf(log) };
}
