import type { ChatOptions } from '../loop/types.ts';
import { SEARCH_ATTACHMENTS, registerDocumentSearch } from '../tools/document-tool.ts';
import { ToolRegistry } from '../tools/tool-registry.ts';

/**
 * An answer's options with its documents (`ChatOptions.documents`) in play: `search_attachments` offered beside
 * the answer's other tools, and, for a question, a search with the question's words run before the model writes
 * (an opening call), so even a model that would not call finds the passages in front of it and cites them.
 * Options without documents, or with an empty index, come back as they were.
 */
export function withDocuments(prompt: string | undefined, options: ChatOptions): ChatOptions {
  const index = options.documents;
  if (!index?.documents.length) return options;
  const tools = new ToolRegistry();
  if (options.toolkit) tools.restore(options.toolkit.tools.snapshot());
  registerDocumentSearch(tools, index);
  const first = options.searchDocumentsFirst;
  const question = (typeof first === 'string' ? first : prompt)?.trim();
  return {
    ...options,
    toolkit: { ...options.toolkit, tools, withChatTools: options.toolkit?.withChatTools ?? true },
    ...(options.tools ? { tools: [...options.tools.filter((name) => name !== SEARCH_ATTACHMENTS), SEARCH_ATTACHMENTS] } : {}),
    ...(question && first !== false ? { openingCalls: [...(options.openingCalls ?? []), { name: SEARCH_ATTACHMENTS, arguments: { query: question } }] } : {}),
  };
}
