import type { ChatMessage } from './chat-types.ts';

/**
 * Makes the chat template re-render this answer's assistant turns exactly as they were generated.
 *
 * With thinking off, Qwen3's generation prompt ends in an empty `<think>\n\n</think>\n\n`, but the
 * template drops that block when it re-renders an earlier assistant turn of the same answer — so
 * the next round's prompt would stop matching the tokens in the KV cache right there, and the cache
 * would be refilled every round. An empty reasoning of `'\n'` makes the template write the same
 * empty block back (it strips the newlines, and only renders the block for a non-empty reasoning).
 * Turns before the last user message are left alone: the template drops their thinking on purpose.
 * Templates that do not know `reasoning_content` ignore it.
 */
export function keepGeneratedThinkBlocks(messages: ChatMessage[], enableThinking: boolean | undefined): ChatMessage[] {
  if (enableThinking !== false) return messages;
  let lastQuery = -1;
  messages.forEach((m, i) => {
    if (m.role === 'user' && !(m.content.startsWith('<tool_response>') && m.content.endsWith('</tool_response>'))) lastQuery = i;
  });
  return messages.map((m, i) =>
    m.role === 'assistant' && i > lastQuery && m.reasoning_content === undefined && !m.content.includes('</think>') ? { ...m, reasoning_content: '\n' } : m,
  );
}
