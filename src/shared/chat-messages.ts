/** The conversation's shapes, as every layer shares them (OpenAI's): the engine renders them, the loop writes them, the web layer reads them. */

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
