/** One tool call recovered from model output. */
export interface ToolCall {
  /** The tool name as the model wrote it (or the registered spelling, when matched case-insensitively). */
  name: string;
  /** Decoded arguments; always an object (a JSON string is decoded, a missing value becomes `{}`). */
  arguments: Record<string, unknown>;
}

/**
 * Why something shaped like a call was not returned as one.
 *
 * - `unregistered`: `tools` was given and the name is not one of them (never remapped).
 * - `placeholder`: the name is template filler copied from a prompt (`function_name`, `<function-name>`, …).
 * - `invalid-name`: the name is not a string that looks like an identifier.
 * - `invalid-arguments`: arguments are neither an object nor a string holding one.
 * - `tool-definition`: the object is a tool's schema echoed back, not a call.
 * - `truncated`: the output stopped inside a string, so a value would be a fragment.
 * - `unparseable`: explicit call markup whose content could not be read at all.
 */
export type RejectReason = 'unregistered' | 'placeholder' | 'invalid-name' | 'invalid-arguments' | 'tool-definition' | 'truncated' | 'unparseable';

/**
 * A call attempt that was dropped. Reported so the loop can tell the model what went wrong
 * ("Tool 'X' is not available") instead of silently ignoring it.
 */
export interface RejectedCall {
  /** The name as written, when one could be read. */
  name: string | null;
  /** Why it was dropped. */
  reason: RejectReason;
  /** The raw text of the call block, markup included. */
  source: string;
}

/** What {@link parseToolCalls} returns. */
export interface ParseResult {
  /** Calls in the order they appear in the text. */
  calls: ToolCall[];
  /** The prose left over, with the call markup removed and whitespace trimmed. */
  text: string;
  /**
   * Call attempts that were dropped, in text order. Always set by this module; optional so that
   * code building a `ParseResult` by hand (tests, other strategies) need not invent it.
   */
  rejected?: RejectedCall[];
}

/** A registered tool as the parser needs to see it: a bare name or an OpenAI envelope. */
export type ToolNameSource = string | { name: string } | { function: { name: string } };

/** Options shared by the parser and the streaming filter. */
export interface ParseOptions {
  /**
   * Registered tools. When given, calls naming anything else are dropped (never remapped),
   * and a name matching a registered one case-insensitively takes the registered spelling.
   */
  tools?: readonly ToolNameSource[];
}

/** Options of {@link ToolCallStreamFilter}. */
export interface StreamFilterOptions extends ParseOptions {
  /**
   * Set when the prompt already opened a thinking block (templates that end the generation
   * prompt with `<think>\n`), so the output begins mid-thought and closes with an orphan
   * `</think>`. {@link stripThinking} removes such a preamble after the fact, but a stream has
   * already released it by the time the orphan tag shows it was thinking — unless told up front.
   */
  startsInThinking?: boolean;
}

/** What one {@link ToolCallStreamFilter.push} or {@link ToolCallStreamFilter.end} releases. */
export interface StreamUpdate {
  /** Text the user may see now; concatenating every update gives the final visible text. */
  text: string;
  /** Calls completed by this chunk, in text order. */
  calls: ToolCall[];
  /** Call attempts completed by this chunk that were dropped. */
  rejected: RejectedCall[];
  /** Reasoning settled by this chunk (the text of a `<think>`-like block, tags left out), for a caller that streams it. */
  reasoning: string;
}

/** Hold-back measurements of a {@link ToolCallStreamFilter}, in UTF-16 code units. */
export interface StreamStats {
  /**
   * Most characters ever held at once while undecided: a possible marker prefix, a bare JSON
   * object not yet known to be a call or data, and a whitespace run that may turn out to be
   * trailing. Characters inside a block already known to be call markup, thinking or a code
   * fence are not counted: they never become visible in any case.
   */
  maxHeldBack: number;
  /** Like `maxHeldBack`, but counting only the undecided-marker phase (no bare JSON bodies). */
  maxMarkerHeld: number;
  /** Characters held right now (same accounting as `maxHeldBack`). */
  heldBack: number;
}
