/** The conversation's shapes as the engine, the templates and the loop share them (OpenAI's). */

export type { ChatMessage, ChatToolCall } from '../shared/chat-messages.ts';

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
