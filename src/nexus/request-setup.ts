/**
 * The one request builder of the facade: what an answer (`chat()`) and a model turn (`modelTurn()`, the
 * AI SDK's step, MCP sampling) hand the runner — the settings from the options, the messages as the
 * model's family takes them, the tools' schemas, and where call numbering goes on.
 */
import type { ChatMessage, EngineInfo } from '../engine/engine.ts';
import { familyOf, TOOL_FAMILIES } from '../engine/families.ts';
import { answerMessages, answerSettings, type ChatDefaults } from '../loop/answer-request.ts';
import type { AnswerRequest } from '../loop/answer-runner.ts';
import type { StartedSettings, Step } from '../loop/step-log.ts';
import type { StopRule } from '../loop/stop-conditions.ts';
import type { ToolSelection } from '../tools/tool-selection.ts';
import type { ChatOptions } from '../loop/types.ts';
import type { ToolRegistry } from '../tools/tool-registry.ts';
import { withoutOutsideMarks } from '../shared/outside-text.ts';

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
export async function buildRequest(parts: RequestParts): Promise<BuiltRequest> {
  const settings = { ...answerSettings(parts.options, parts.registry, parts.defaults, parts.info.context), ...parts.extra };
  const messages = answerMessages({
    defaults: parts.defaults,
    settings,
    schemas: parts.registry.schemas,
    info: parts.info,
    family: await familyOf(parts.info.family),
    supportedFamilies: TOOL_FAMILIES,
    history: parts.history,
    prompt: parts.prompt,
    instructions: parts.instructions,
  });
  return { messages, settings, schemas: parts.registry.schemas, firstCallNumber: countToolCalls(parts.history) + 1 };
}

/**
 * The steps an answer's log begins with: `started` (the system message as rendered, the settings, the tools
 * offered and why), then, where the rankings were unsure and the chat model picked a group of tools, that
 * generation (its tokens count with the answer's) and its choice.
 */
export function preambleOf(request: BuiltRequest, selection: ToolSelection | undefined, stopRules: readonly StopRule[] = []): Step[] {
  const s = request.settings;
  const settings: StartedSettings = {
    toolChoice: s.toolChoice,
    strategy: s.strategy,
    maxRounds: s.maxRounds,
    maxNewTokens: s.maxNewTokens,
    maxResultChars: s.maxResultChars,
    repetitionPenalty: s.repetitionPenalty,
    enableThinking: s.enableThinking,
    ...(s.sampling ? { sampling: { ...s.sampling } } : {}),
    ...(s.promptBudget === undefined ? {} : { promptBudget: s.promptBudget }),
    ...(s.callsOnly ? { callsOnly: true } : {}),
    ...(stopRules.length ? { stopRules: structuredClone([...stopRules]) } : {}),
  };
  const offered = s.toolChoice === 'none' ? [] : [...(s.tools ?? request.schemas.map((schema) => schema.function.name))];
  // As the model reads it: the outside marks say where the guard cuts, they are not text.
  const system = request.messages[0]?.role === 'system' ? withoutOutsideMarks(request.messages[0].content) : '';
  const group = selection?.group;
  const started: Step = {
    kind: 'started',
    systemPrompt: system,
    settings,
    offered,
    ...(selection
      ? {
          selection: {
            reasons: { ...selection.reasons },
            ranking: { ...selection.ranking },
            ...(group ? { group: { chosen: group.chosen, among: group.among } } : {}),
          },
        }
      : {}),
  };
  if (!group) return [started];
  return [
    started,
    {
      kind: 'generation',
      round: 0,
      strategy: 'group',
      promptTokens: group.promptTokens,
      cachedTokens: 0,
      newTokens: group.newTokens,
      ms: group.ms,
      text: group.chosen,
    },
    { kind: 'choice', round: 0, which: 'group', raw: group.chosen, resolved: group.chosen },
  ];
}

/** Tool calls the conversation already holds, so a new call's number follows them. */
function countToolCalls(messages: readonly ChatMessage[]): number {
  return messages.reduce((n, m) => n + (m.role === 'assistant' ? (m.tool_calls?.length ?? 0) : 0), 0);
}
