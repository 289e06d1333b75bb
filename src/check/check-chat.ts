import type { FamilyInfo } from '../engine/model-family.ts';
import type { ChatAnswer, ChatOptions } from '../loop/types.ts';
import type { ToolCallCheck } from './tool-call-check.ts';
import type { ToolVerdict } from './verdict-store.ts';

/**
 * What the checks need of a chat: which model it runs, and answers with their own tools in a side
 * conversation (`toolkit`, `isolated`). `NexusChat` is one; the checks do not depend on the facade.
 */
export interface CheckChat {
  readonly info: { readonly model: string; readonly device: string; readonly dtype: string; readonly family?: FamilyInfo };
  chat(prompt: string, options?: ChatOptions): Promise<ChatAnswer>;
}

/** A chat `loadForTools` can check, keep and free. */
export interface CheckedChat extends CheckChat {
  selfCheck(): Promise<ToolCallCheck>;
  /** The verdict it was kept on. */
  toolCheck: ToolCallCheck | ToolVerdict | undefined;
  dispose(): Promise<void>;
}
