/** The words an answer's calls and counters are described in: shared by the steps, the run and the options. */
import type { ToolRunFailure } from '../tools/tool-registry.ts';

/**
 * Whether and which tool the model must call.
 * - `'auto'`: the model decides; on the first round of an answer a missing call is forced
 *   (primed, then stepwise) only after a yes/no check that the request needs that tool.
 * - `'required'`: the first round of the answer must call a tool (no yes/no check); later rounds are `'auto'`.
 * - `'none'`: no tools are offered and call markup is stripped from the answer.
 * - `{ name }`: the first round must call that tool.
 */
export type ToolChoice = 'auto' | 'required' | 'none' | { name: string };

/** How far the loop may escalate to get a call: `'auto'` as far as needed, `'inline'` never, `'stepwise'` straight to stepwise. */
export type Strategy = 'auto' | 'inline' | 'stepwise';

/** Which strategy produced a call. */
export type CallSource = (typeof CALL_SOURCES)[number];

/** A call the caller makes for the model at the start of an answer (see `ChatOptions.openingCalls`). */
export interface OpeningCall {
  name: string;
  arguments: Readonly<Record<string, unknown>>;
}

/**
 * Every {@link CallSource}, as a stored answer may hold them: `given` is a call the caller made for the model
 * before it wrote anything (`ChatOptions.openingCalls`).
 */
export const CALL_SOURCES = ['inline', 'primed', 'stepwise', 'answer-round', 'given'] as const;

/** What became of one call: the registry's outcome vocabulary, plus `duplicate` (not run again). */
export type CallStatus = 'ok' | 'duplicate' | ToolRunFailure;

/** A call the loop handled, with its outcome. */
export interface ToolCallRecord {
  /** Unique within the conversation; the tool message carries it as `tool_call_id`. */
  id: string;
  name: string;
  arguments: Record<string, unknown>;
  source: CallSource;
  /** The tool round (1-based) in which the call was made; answer rounds continue the count. */
  round: number;
  status: CallStatus;
  /** Exactly what the model was shown as the result (capped, marked when an error). */
  result: string;
  /** The handler's own return value when it ran (not capped); undefined otherwise. */
  value?: unknown;
  /** What the handler gave the page beside its result (a web search's findings, parts meant for the user): never shown to the model. */
  details?: Readonly<Record<string, unknown>>;
  ms: number;
}

/** A forced call that could not be used (a name that is not registered). */
export interface ForcedCallEvent {
  strategy: 'primed' | 'stepwise';
  /** The raw generation, prefix included. */
  raw: string;
  /** The name the model wrote, if any. */
  name?: string;
  reason: string;
}

/** Announced at the start of each round. */
export interface RoundInfo {
  round: number;
  /** `'tools'` while tools are offered, `'answer'` in the tool-less answer rounds. */
  kind: 'tools' | 'answer';
}

/** Per-answer counters; `chat.metrics` holds those of the last answer. */
export interface AnswerMetrics {
  /** Tool rounds run (answer rounds not included). */
  rounds: number;
  /** Answer rounds run after the round limit. */
  answerRounds: number;
  /** Every generation: inline, primed, stepwise steps, yes/no checks. */
  generations: number;
  /** Prompt tokens the engine was asked to process, summed over generations. */
  promptTokens: number;
  /** Of those, tokens whose KV cache was reused. */
  cachedTokens: number;
  /** Tokens generated. */
  newTokens: number;
  /** Calls handed to a handler (or refused/duplicate/invalid), all sources. */
  toolCalls: number;
  /** Calls produced by priming or stepwise and then run. */
  forcedCalls: number;
  /** Forced generations whose tool name was not registered and was discarded. */
  forcedCallsFailed: number;
  /**
   * The same count under the name the design documents (`tool_calls_force_failed`): an alias of
   * {@link AnswerMetrics.forcedCallsFailed}, kept so code written against that name still reads it.
   */
  tool_calls_force_failed: number;
  /** Rounds in which only forcing produced the call. */
  rescues: number;
  /** Calls identical to one already run in this answer, not run again. */
  duplicateCalls: number;
  /** Calls naming a tool that does not exist. */
  unknownToolCalls: number;
  /** Calls to a registered tool that was not offered (many tools: only the best matches are); accepted, since it exists. */
  unofferedCalls: number;
  /** Wall-clock time of the answer. */
  ms: number;
  /**
   * Time to first token as the reader sees it: milliseconds from the answer's start to its first
   * visible text (after any tool rounds and thinking). Absent when no text streamed.
   */
  firstTextMs?: number;
  /** Generated tokens per second of generation time. */
  tokensPerSecond: number;
}
