import type { ContextBudget } from './context-budget.ts';
import type { FamilyInfo, ModelFamily } from './model-family.ts';
import type { KvCachePath } from './appended-kv-session.ts';

/**
 * The contract between the tool loop and a model runtime. The loop only ever talks to this
 * interface, so it runs the same over transformers.js (browser worker or Node) and over the
 * scripted engine that replays recorded outputs in tests.
 */

export type { ChatMessage, ChatToolCall, RenderOptions, ToolSchema } from './chat-types.ts';
import type { ChatMessage, RenderOptions } from './chat-types.ts';

/** Options of {@link Engine.generate}. */
/** Sampling for prose: a temperature above 0 turns it on; `topP` keeps the smallest set of tokens with that much probability. */
export interface Sampling {
  temperature: number;
  topP?: number;
}

export interface GenerateOptions {
  /** Hard cap on generated tokens. */
  maxNewTokens: number;
  /** Stop right after the first of these strings appears in the output (it is kept). */
  stop?: string[];
  /** Constrained decoding: the output is exactly one of these strings. */
  choices?: string[];
  /** Divides the logits of tokens already emitted; 1 is off. */
  repetitionPenalty?: number;
  /** Sample instead of decoding greedily (prose only: the loop never samples where a call may come). */
  sampling?: Sampling;
  /** Receives decoded text as it is produced (already-streamed text is never repeated). */
  onText?: (text: string) => void;
  /** Aborting stops generation; the promise then rejects with an `AbortError`. */
  signal?: AbortSignal;
}

/** What one generation cost and produced. */
export interface GenerateResult {
  /**
   * The generated text: end-of-turn and other special tokens removed, except the family's call
   * markers ({@link ModelFamily.keepTokens}), which the parser needs.
   */
  text: string;
  /** Tokens in the prompt. */
  promptTokens: number;
  /** Prompt tokens whose KV cache was reused rather than computed again. */
  cachedTokens: number;
  /** Tokens generated. */
  newTokens: number;
}

/** Which model runs where. */
export interface EngineInfo {
  model: string;
  device: string;
  dtype: string;
  /** The model-family profile the loop speaks to this model with, and what chose it. */
  family: FamilyInfo;
  /** CPU threads ONNX Runtime computes with (WASM and Node); absent on WebGPU and where unknown. */
  threads?: number;
  /** How many tokens a prompt and its answer may take on this device, and why; absent where unknown (no limit is applied). */
  context?: ContextBudget;
  /**
   * How the KV cache travels between decode steps (see {@link KvCachePath}): appended in place by
   * the engine, kept on the GPU, or copied out per token. Absent for engines without a cache.
   */
  kvCache?: KvCachePath;
}

/** A loaded model the loop can render prompts with and generate from. */
export interface Engine {
  readonly info: EngineInfo;
  /** The family's dialect: call syntax, openers, end tokens, thinking switch (see `families.ts`). */
  readonly family: ModelFamily;
  /**
   * The model's own chat template: messages (+ tools, rendered in) → prompt text. Every message field
   * but the role, every tool schema, and the spans of a system message between the outside marks
   * (`outside()`) are text the loop did not write: an engine with a tokenizer keeps control tokens in
   * them from becoming control (the transformers.js engine does); one that has none removes the marks.
   */
  render(messages: ChatMessage[], options: RenderOptions): Promise<string>;
  /**
   * Continue `prompt`. With `choices`, the output is exactly one of those strings. The prompt may hold
   * outside marks (from `render`, or text the loop appended after it): they are not text to feed, so an
   * engine guards what they enclose or drops them (`withoutOutsideMarks`).
   */
  generate(prompt: string, options: GenerateOptions): Promise<GenerateResult>;
  /** Tokens `text` takes in this model's tokenizer (a prompt as rendered, special tokens included). */
  countTokens(text: string): number;
  /** Frees the model and any cache it holds (GPU memory in the browser). */
  dispose(): Promise<void>;
}
