/**
 * The chat facade, in parts: the chat (`nexus-chat.ts`), loading a model for it (`loading.ts`), one model
 * turn with its calls handed back (`model-turn.ts`), the request both build (`request-setup.ts`), and its
 * errors (`errors.ts`).
 */
export { NexusChat, type NexusChatOptions, type NexusLoadOptions } from './nexus-chat.ts';
export { ChatBusyError, ChatDisposedError, InvalidHistoryError } from './errors.ts';
export type { ModelTurnOptions, ModelTurnResult } from './model-turn.ts';
