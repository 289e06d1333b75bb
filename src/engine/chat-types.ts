/** The conversation's shapes as the engine, the templates and the loop share them (OpenAI's). */

/** One tool call as stored in the conversation (OpenAI shape). */
export interface ChatToolCall {
  /** Unique within the conversation; a tool message answers it through `tool_call_id`. */
  id: string;
  type: 'function';
  function: {
    name: string;
    /** The decoded arguments object (templates render it with `tojson`). */
    arguments: Record<string, unknown>;
  };
}

/**
 * A conversation message in the OpenAI shape. `content` is always a string — never null —
 * because Qwen3's chat template throws on null content.
 */
export type ChatMessage =
  | { role: 'system'; content: string }
  | { role: 'user'; content: string }
  | { role: 'assistant'; content: string; tool_calls?: ChatToolCall[]; reasoning_content?: string }
  | { role: 'tool'; content: string; tool_call_id: string; name?: string };

/** A tool as a chat template renders it: the standard OpenAI function envelope. */
export interface ToolSchema {
  readonly type: 'function';
  readonly function: {
    readonly name: string;
    readonly description: string;
    readonly parameters: {
      readonly type: 'object';
      readonly properties: { readonly [name: string]: { readonly [keyword: string]: unknown } };
      readonly required?: readonly string[];
    };
  };
}

/** Options of {@link Engine.render}. */
export interface RenderOptions {
  /** Tools to render into the prompt; omitted or empty renders none. */
  tools?: readonly ToolSchema[];
  /** End with the assistant header so that generation continues as the assistant. */
  addGenerationPrompt?: boolean;
  /** Let a reasoning model think; `false` renders the empty think block Qwen3 expects. */
  enableThinking?: boolean;
}
