/**
 * What the loop must know about a model family's own dialect: how a call is written and opened,
 * what ends a turn, which special tokens carry calls, how thinking is switched, how results come
 * back. One profile per family (see `families.ts`); the engine picks one from the model's own files
 * (`detect-family.ts`) and the loop and the checks only ever ask the engine for it.
 */

import type { CallSyntax, ReadCalls } from './call-syntax.ts';

/** The families with a profile of their own, and `generic` for everything else. */
export type FamilyId =
  | 'qwen3.5'
  | 'qwen3'
  | 'qwen2.5'
  | 'gemma4'
  | 'mistral3'
  | 'llama3.2'
  | 'granite4'
  | 'granite3'
  | 'lfm2'
  | 'functiongemma'
  | 'smollm3'
  | 'phi4-mini'
  | 'hermes'
  | 'deepseek-r1'
  | 'generic';

/** How a family switches reasoning, and what a reasoning block looks like. */
export interface ThinkingSwitch {
  /** The chat-template variable that turns thinking on and off. */
  readonly kwarg: 'enable_thinking';
  readonly open: string;
  readonly close: string;
  /**
   * With thinking off, the generation prompt ends in an empty block (Qwen3), which the template
   * drops when it re-renders the turn; the engine writes it back so the KV cache keeps matching.
   */
  readonly emptyBlockWhenOff: boolean;
}

/** A model family's profile. Plain data plus pure functions, identical on both sides of the worker. */
export interface ModelFamily {
  readonly id: FamilyId;
  /** How people name it, e.g. "Llama 3.2". */
  readonly label: string;
  /** The call syntax in one line, for tables and messages. */
  readonly syntax: string;
  /** Text written after the assistant header so that only a call can follow (the name comes next). */
  readonly callOpener: string;
  /** The same, with `name` already written (JSON-escaped where the syntax is JSON): only the arguments follow. */
  forcedCallOpener(name: string): string;
  /** Strings that end a call; a primed generation stops right after one. */
  readonly callClosers: readonly string[];
  /** One call, byte for byte as this family writes it (the worked example of the system prompt). */
  formatCall(name: string, args: Record<string, unknown>): string;
  /** Several calls of one turn, as this family writes them together (absent: one {@link formatCall} per line). */
  formatCalls?(calls: readonly { name: string; args: Record<string, unknown> }[]): string;
  /** Tokens that end an assistant turn, besides the model's configured `eos_token_id`. */
  readonly endTokens: readonly string[];
  /** Markers that open a turn in this family's template (`<|im_start|>`), or end one but are not end tokens here; never part of a value. */
  readonly turnMarkers?: readonly string[];
  /**
   * Every marker a value the model writes is cut at: this family's call markers and thinking tags, and
   * the turn markers of every family (a model may end a value with another family's marker it saw in
   * training). Filled in by the registry (`families.ts`) from the profiles.
   */
  readonly valueMarkers: readonly string[];
  /**
   * Special tokens the parser must see: generations are decoded without dropping them (the stream
   * filter still hides them from the reader). Other special tokens are dropped.
   */
  readonly keepTokens: readonly string[];
  readonly thinking?: ThinkingSwitch;
  /** How a tool result is fed back, as the template renders role `tool` (for tables and messages). */
  readonly toolResult: string;
  /** Whether one assistant turn may hold several calls; when not, each call gets its own turn. */
  readonly parallelCalls: boolean;
  /** The line the stepwise strategy completes to pick a tool from the closed list. */
  readonly selectPrefix: string;
  /** The context length the family's model cards document, used only when a model's config gives none. */
  readonly contextLength?: number;
  /**
   * How the stepwise rung asks for one argument inside this family's own call syntax: the text that
   * opens the value (the call, the arguments already chosen, then this one's slot) and what ends it.
   * `quoted`: the value is a string (the slot opens its quote where the syntax has one). Absent, the
   * rung asks in family-neutral lines (`city = "`), which suits the JSON syntaxes.
   */
  argumentSlot?(name: string, chosen: Readonly<Record<string, unknown>>, key: string, quoted: boolean): ArgumentSlot;
  /**
   * The call syntax learned from the model's own chat template, where the profile speaks it
   * (`template-analysis.ts`): the loop reads calls in it first.
   */
  readonly callSyntax?: CallSyntax;
  /** Reads calls written in {@link callSyntax} (absent with it): the calls, and where they stood in the text. */
  readCalls?(text: string): ReadCalls | undefined;
}

/** Where the stepwise rung primes one argument's value: {@link ModelFamily.argumentSlot}. */
export interface ArgumentSlot {
  /** Everything after the prompt up to the value. */
  readonly opener: string;
  /** What ends the value (removed from it). */
  readonly stop: readonly string[];
}

/** A profile as a family module writes it; the registry adds what it derives from every family. */
export type FamilyProfile = Omit<ModelFamily, 'valueMarkers'>;

/** What a loaded model reports about its profile (it crosses the worker boundary as data). */
export interface FamilyInfo {
  id: FamilyId;
  label: string;
  /** What chose it, e.g. "chat template markers <|start_header_id|>, ipython". */
  detectedBy: string;
  /**
   * Why this model's chat template cannot hold a tool conversation, when it cannot (e.g. "fails
   * to render a tool call and its result (Conversation roles must alternate …)").
   */
  templateProblem?: string;
  /**
   * How the chat template wants tools, calls and results, as probing it at load found (see
   * `template-dialect.ts`); absent where the template was not probed.
   */
  dialect?: TemplateDialect;
  /** Each shape of a tool conversation the probe rendered, and its outcome (`ok`, or why not). */
  templateShapes?: Readonly<Record<string, string>>;
  /**
   * The call syntax learned from the chat template, where the loop speaks it instead of the family
   * profile's own (the profile does not match what the template writes, or no profile knew the template).
   */
  callSyntax?: CallSyntax;
  /** How calls are written for this model, in one line ("calls written as …"), for reports and the model panel. */
  calls?: string;
}

/**
 * Template fix-ups that the Jinja in transformers.js needs: it rejects the `{% generation %}` /
 * `{%- generation -%}` blocks some templates use to mark trainable spans (transformers.js issue
 * #1724). They only mark text, so removing the tags renders the same prompt.
 */
export function fixChatTemplate(template: string): string {
  return template.replace(/\{%-?\s*(?:end)?generation\s*-?%\}/g, '');
}

/**
 * How one chat template wants a tool conversation written, found by rendering probes at load
 * rather than assumed from the family: real templates of one family differ (LiquidAI's LFM2 template
 * ignores `tool_calls` and expects the call in the turn's text; SmolLM3's reads `xml_tools`;
 * Phi-4-mini's reads the system message's `tools` field; FunctionGemma's loops over `tools` even when
 * there are none).
 */
export interface TemplateDialect {
  /**
   * Where the tool list goes: the `tools` argument, the `xml_tools` argument, the system message's
   * `tools` field (a JSON string), or written into the system text by the loop (the last resort).
   */
  readonly tools: 'tools' | 'xml_tools' | 'system-field' | 'system-text';
  /** How a call in history is written: the OpenAI `tool_calls` field, or the family's own syntax as the turn's text. */
  readonly calls: 'tool_calls' | 'content';
  /** The role a tool result comes back in: `tool`, or `user` where the template has no tool role. */
  readonly results: 'tool' | 'user';
  /** What the `tools` argument is in a round that offers none: left out (null), or an empty list. */
  readonly noTools: 'null' | 'empty';
  /**
   * With thinking off, whether the generation prompt ends in an empty think block (Qwen3 does, the
   * Qwen3-2507 Instruct line does not). Where it does, the loop writes the block back into the turns
   * the model generated after it, so the next prompt extends the last and the KV cache is reused.
   * Found by the probe; absent, the family's profile says.
   */
  readonly emptyThinkBlock?: boolean;
  /**
   * What a call turn's text is when it has none: `''`, or `null` where the template writes its native
   * calls only for a null content (DeepSeek-R1's) or adds an empty turn after them for `''`. Absent: `''`.
   */
  readonly callContent?: 'empty' | 'null';
  /** A call's arguments as the template takes them: an object, or a JSON string (absent: an object). */
  readonly callArguments?: 'object' | 'json';
  /**
   * Where a user turn the loop adds goes — the answer rounds' "answer now" after a result, the tool
   * gate's question after the user's message: its own user turn; folded into the turn before it
   * (templates that insist user and assistant turns alternate); the system message; or nowhere.
   * Absent: a user turn.
   */
  readonly addedUserTurn?: 'user' | 'fold' | 'system' | 'none';
  /** Give every tool and parameter a description, `''` where it has none (Hermes' template trims each one). */
  readonly emptyDescriptions?: boolean;
  /** Whether the template thinks when `enable_thinking` is not given (Qwen3.5 4B does, 0.8B does not); probed. */
  readonly thinksByDefault?: boolean;
  /**
   * The call ids the template accepts: any text (absent), or nine letters and digits (Mistral's templates
   * raise on others), which the loop's ids are mapped to, the same id always to the same nine.
   */
  readonly callIds?: 'any' | 'alnum9';
}
