import type { EmbeddingModel, ToolSearchStatus } from '../engine/embedding-model.ts';
import type { ToolSelectionSettings } from '../tools/tool-selection.ts';
import type { StopCondition, StopRule } from './stop-conditions.ts';
import type { Sampling } from '../engine/engine.ts';
import type { ApprovalRequest } from '../tools/tool-context.ts';
import type { ToolRegistry, ToolRunResult } from '../tools/tool-registry.ts';
import type { PassageIndex } from '../tools/document-index.ts';
import type { ChatMessage } from '../engine/engine.ts';
import type { Step, TokenUsage } from './step-log.ts';
import type { ToolEffects } from './toolbox.ts';
import type { MemoryView } from './fit-context.ts';

/**
 * The tools of one answer, passed with it instead of being swapped into the chat's own registry:
 * the chat's tools are untouched, so a `tools.js` reload while the answer runs is kept.
 */
export interface Toolkit {
  /** The tools this answer offers (with `withChatTools`, next to the chat's own). */
  tools: ToolRegistry;
  /** Also offer the chat's registered tools; a toolkit tool wins a name both have. Default false. */
  withChatTools?: boolean;
  /** What a tool's outcome does to the rest of this answer (withdraw or offer tools, end the tool rounds). */
  effects?: Readonly<Record<string, (outcome: ToolRunResult) => ToolEffects | undefined>>;
}

export type {
  AnswerMetrics,
  CallSource,
  CallStatus,
  ForcedCallEvent,
  OpeningCall,
  RoundInfo,
  Strategy,
  ToolCallRecord,
  ToolChoice,
} from './call-types.ts';
import type { AnswerMetrics, ForcedCallEvent, OpeningCall, RoundInfo, Strategy, ToolCallRecord, ToolChoice } from './call-types.ts';

/** The result of `chat.chat()`. */
export interface ChatAnswer {
  /** What the user reads. Never empty and never a tool call. */
  text: string;
  /** Every call handled while answering, in order. */
  calls: ToolCallRecord[];
  metrics: AnswerMetrics;
  /**
   * Everything that happened, in order: one frozen step per generation (with what the model wrote),
   * per tool call, per round and per decision. `text`, `calls`, `metrics` and `totalUsage` are folds
   * over them (`answerFromSteps`), so a saved answer is its steps.
   */
  steps: readonly Step[];
  /** Tokens over every generation of the answer. */
  totalUsage: TokenUsage;
}

/**
 * What `chat.chat()` and `chat.continueAnswer()` resolve with: the answer, and the conversation after it,
 * to hand the next answer (the chat keeps none: the caller owns the conversation).
 */
export interface ChatReply extends ChatAnswer {
  /** The conversation after this answer: the `messages` it was given, the question, and the turns its steps added (`messagesOf(steps)`). */
  messages: readonly ChatMessage[];
  /** Where the model's memory of `messages` begins (`{ from: 0, shortenBefore: 0 }` until a prompt outgrew the context budget). */
  memory: MemoryView;
}

/**
 * What a stopped answer's `AbortError` carries besides its name: the conversation as it stands (the
 * given messages, the question, the whole rounds, and the visible text), for `continueAnswer()` or the next question.
 */
export interface StoppedConversation {
  messages: readonly ChatMessage[];
  memory: MemoryView;
}

/** When an answer offers only some tools, and the semantic ranking's model (`NexusChatOptions.toolSelection`, `ChatOptions.toolSelection`). */
export type ToolOfferingSettings = ToolSelectionSettings & {
  /**
   * The sentence-embedding model of the semantic ranking, loaded beside the chat model the first
   * time an answer has more tools than `threshold`; `false` ranks by words alone. Default for
   * `NexusChat.load`: `DEFAULT_EMBEDDING_MODEL` (from the same hub); for `withEngine`: off unless an
   * `embedder` is given.
   */
  semantic?: EmbeddingModel | false;
};

/** Asked before a `confirm` tool runs; resolve true to run it. The model has no say. */
export type ApprovalHandler = (request: ApprovalRequest) => boolean | Promise<boolean>;

/** Options of `chat.chat()`. */
export interface ChatOptions {
  toolChoice?: ToolChoice;
  strategy?: Strategy;
  /** Tool rounds before the answer rounds; default the chat's (4). */
  maxRounds?: number;
  /**
   * The system prompt when tools are offered (default the chat's); `{tool_call_example}` becomes a real call
   * to an offered tool (`WORKED_EXAMPLE_SYSTEM_PROMPT` is such a prompt).
   */
  systemPrompt?: string;
  /** How to answer from results, said after the system prompt whenever tools are offered (default the chat's); `''` leaves it out. */
  answerPrompt?: string;
  /** Cap on the characters of one tool result the model reads (default the chat's: 16,000). */
  maxResultChars?: number;
  /** When this answer offers only the best-matching tools, and how many: over the chat's (see `ToolSelectionSettings`). */
  toolSelection?: Partial<ToolOfferingSettings>;
  /**
   * Extra conditions that end the tool rounds early, after the chat's: `StopRule` data (works in the model
   * worker too) or functions (in-process engines only; a worker answer fails saying so).
   */
  stopWhen?: ReadonlyArray<StopCondition | StopRule>;
  /** What a tool's results do to the rest of the answer (withdraw or offer tools, end the tool rounds), by tool name, over the chat's. */
  toolEffects?: Readonly<Record<string, (outcome: ToolRunResult) => ToolEffects | undefined>>;
  /** Asked before a `confirm` tool runs (default the chat's); without one such tools are refused. */
  approve?: ApprovalHandler;
  /** Applied to every generation; default 1.1. */
  repetitionPenalty?: number;
  /**
   * Sampling (temperature > 0) for every free generation of the answer — the first, where the model
   * chooses between a call and an answer, the answer after tool results, the answer rounds — so a new
   * sample differs wherever the model writes freely. A call it writes is checked as any call is; the
   * forced rungs (the primed opener, the stepwise choices and arguments) stay greedy and constrained.
   * Default: greedy everywhere.
   */
  sampling?: Sampling;
  /** Let a reasoning model think (its `<think>` is still stripped from the answer). Default false. */
  enableThinking?: boolean;
  /** Stops the current generation and the answer; `chat()` then rejects with an `AbortError`. */
  signal?: AbortSignal;
  /** Cap on one answer generation; default 512. */
  maxNewTokens?: number;
  /** Only these registered tools are offered when the answer starts (default: all). */
  tools?: string[];
  /** Extra system instructions for this answer, after the system prompt. */
  instructions?: string;
  /** The last user turn if the answer rounds are reached (called then, so it can list what was found). */
  answerNow?: () => string | Promise<string>;
  /**
   * Called with each step of this answer as it is appended (the records `ChatAnswer.steps` returns),
   * as the AI SDK's `onStepFinish`; works for a side conversation and across the model worker.
   */
  onStepFinish?: (step: Step) => void;
  /**
   * Called before each tool round, as the AI SDK's `prepareStep`, with the steps and the conversation
   * so far: return the tools this round may call (`activeTools`, names among those offered) and/or a
   * `toolChoice` that binds this round as the answer's binds its first; nothing keeps the plan. Works
   * across the model worker. Names that are not offered are refused with an `UnknownToolError`.
   */
  prepareStep?: (info: PrepareStepInfo) => PrepareStepResult | undefined | Promise<PrepareStepResult | undefined>;
  /** This answer's own tools and their effects, instead of the chat's registered ones. */
  toolkit?: Toolkit;
  /** A side conversation (a check): the chat's listeners hear nothing of it. */
  isolated?: boolean;
  /**
   * The conversation before this question, without the system prompt: an earlier reply's `messages`
   * (default: none, a new conversation). Every tool message must answer a call of the assistant turn
   * before it; system messages stay where they stand.
   */
  messages?: readonly ChatMessage[];
  /** Where the model's memory of `messages` begins: the earlier reply's `memory` (default: all of them). */
  memory?: MemoryView;
  /**
   * Calls run before the model writes anything, as its first round, as if it had written them: the model reads
   * them and their results in its own call syntax and goes on from there (it may call more, or answer). For
   * context the answer should start from whatever the model would choose, such as a search of attached
   * documents with the question. Each must name a registered tool (or one of the answer's toolkit); its arguments are
   * validated as any call's.
   */
  openingCalls?: readonly OpeningCall[];
  /**
   * Documents too long for the model's context, cut into passages and indexed on this device: the answer offers
   * `search_attachments` over them, and searches them with the question before the model writes (unless
   * `searchDocumentsFirst` is false); the passages come back numbered, and the answer cites them as `[n]`.
   */
  documents?: PassageIndex;
  /**
   * With `documents`: search them before the model's first generation (default true), with the question, or with
   * the words given here (the user's own, where the question also carries attachments).
   */
  searchDocumentsFirst?: boolean | string;
}

/** Events a chat emits, with their arguments. */
export interface ChatEvents {
  /** Visible answer text as it is produced (never call markup or thinking). */
  token: [text: string];
  /** A call was handled. */
  toolCall: [call: ToolCallRecord, result: string];
  /** One stepwise or yes/no generation: which (`select`, `arg:city`, `gate`), its raw text, what it resolved to. */
  step: [which: string, raw: string, resolved: string];
  /** A forced call was discarded. */
  forced: [event: ForcedCallEvent];
  /** Every generation's raw text. */
  raw: [raw: string, info: { round: number; strategy: string }];
  /** A round starts. Visible text of an earlier round that ended in calls was a preamble, not the answer. */
  round: [info: RoundInfo];
  /**
   * The free generation gave no usable call and the loop asks for one in a forced form: the text
   * streamed so far is a draft that a tool's result may replace (show it as such, never swap it silently).
   */
  escalate: [info: EscalateInfo];
  /** The semantic tool search changed state (its model loading, ready, failed); from the chat, not the loop. */
  toolSearch: [status: ToolSearchStatus];
  /** A step was appended to the answer's log (the same frozen records `ChatAnswer.steps` holds). */
  stepFinish: [step: Step];
  /** The conversation outgrew the context budget: older messages left the model's memory (they stay stored). */
  memory: [trim: MemoryTrim];
}

/** What a `memory` step says: where the model's memory now begins, what was dropped or shortened, and the sizes. */
export type MemoryTrim = Omit<Extract<Step, { kind: 'memory' }>, 'kind'>;

/** Every event name, checked exhaustive by the compiler: relays (runner, worker) forward exactly these. */
const EVENT_NAME_SET: Record<keyof ChatEvents, true> = {
  token: true,
  toolCall: true,
  step: true,
  forced: true,
  raw: true,
  round: true,
  escalate: true,
  stepFinish: true,
  toolSearch: true,
  memory: true,
};

/** The names of {@link ChatEvents}, for code that forwards every event. */
export const CHAT_EVENT_NAMES = Object.keys(EVENT_NAME_SET) as (keyof ChatEvents)[];

/** Which rung past the free generation the loop climbs to, in which round (`gate`: the yes/no check before any forced call). */
export interface EscalateInfo {
  round: number;
  rung: 'gate' | 'primed' | 'stepwise';
}

/** What `prepareStep` is told before a tool round. */
export interface PrepareStepInfo {
  /** The tool round about to run (1-based; feedback retries for missing tools count too). */
  round: number;
  /** Every step of this answer so far. */
  steps: readonly Step[];
  /** The conversation so far, system prompt first, as stored (before any trim to the context budget). */
  messages: readonly ChatMessage[];
}

/**
 * What `prepareStep` may change for one round, as the AI SDK's `prepareStep` does: the tools it may
 * call (names among those offered now) and the tool choice, which binds this round the way the
 * answer's `toolChoice` binds its first.
 */
export interface PrepareStepResult {
  activeTools?: readonly string[];
  toolChoice?: ToolChoice;
}
