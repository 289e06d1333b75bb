/**
 * The one request builder of the facade: what an answer (`chat()`) and a model turn (`modelTurn()`, the
 * AI SDK's step, MCP sampling) hand the runner — the settings from the options, the messages as the
 * model's family takes them, the tools' schemas, and where call numbering goes on.
 */
import type { ChatMessage, EngineInfo } from '../engine/engine.ts';
import { familyById, TOOL_FAMILIES } from '../engine/families.ts';
import { answerMessages, answerSettings, type ChatDefaults } from '../loop/answer-request.ts';
import type { AnswerRequest } from '../loop/answer-runner.ts';
import type { ChatOptions } from '../loop/types.ts';
import type { ToolRegistry } from '../tools/tool-registry.ts';

/** What one request is built from. */
export interface RequestParts {
  /** The chat's prompts and limits (its defaults unless the options say otherwise). */
  defaults: ChatDefaults;
  /** The model, as its runner reports it (family, template problems, context budget). */
  info: EngineInfo;
  /** Every tool the request may call. */
  registry: ToolRegistry;
  options: ChatOptions;
  /** The conversation before the request (without a system message). */
  history: readonly ChatMessage[];
  /** The user's new message; undefined when the history already ends where the model goes on. */
  prompt: string | undefined;
  /** The caller's own system text, said after the system prompt. */
  instructions: string | undefined;
  /** Settings the caller adds: a turn that hands its calls over (`callsOnly`), tools chosen from more (`acceptUnoffered`), the memory view. */
  extra?: Partial<AnswerRequest['settings']>;
}

/** A request to the runner, its host-side flags left to the caller. */
export type BuiltRequest = Omit<AnswerRequest, 'asksAnswerNow' | 'asksPrepareStep' | 'stopRules'>;

/** Builds the request both `chat()` and `modelTurn()` send. */
export function buildRequest(parts: RequestParts): BuiltRequest {
  const settings = { ...answerSettings(parts.options, parts.registry, parts.defaults, parts.info.context), ...parts.extra };
  const messages = answerMessages({
    defaults: parts.defaults,
    settings,
    schemas: parts.registry.schemas,
    info: parts.info,
    family: familyById(parts.info.family?.id),
    supportedFamilies: TOOL_FAMILIES,
    history: parts.history,
    prompt: parts.prompt,
    instructions: parts.instructions,
  });
  return { messages, settings, schemas: parts.registry.schemas, firstCallNumber: countToolCalls(parts.history) + 1 };
}

/** Tool calls the conversation already holds, so a new call's number follows them. */
function countToolCalls(messages: readonly ChatMessage[]): number {
  return messages.reduce((n, m) => n + (m.role === 'assistant' ? (m.tool_calls?.length ?? 0) : 0), 0);
}
