import type { ContextBudget } from '../engine/context-budget.ts';
import type { ChatMessage, EngineInfo, ToolSchema } from '../engine/engine.ts';
import type { ModelFamily } from '../engine/model-family.ts';
import { checkOption, InvalidOptionError, NexusError, registerErrorClass } from '../shared/errors.ts';
import type { ToolRegistry } from '../tools/tool-registry.ts';
import type { AnswerSettings } from './answer-run.ts';
import { DEFAULT_MAX_RESULT_CHARS } from './cap-result.ts';
import { ContextOverflowError } from './fit-context.ts';
import { DEFAULT_ANSWER_PROMPT, DEFAULT_SYSTEM_PROMPT, systemPromptFor } from './prompts.ts';
import type { ChatOptions } from './types.ts';
import { outside } from '../shared/outside-text.ts';

/** The values of `chat()`'s `strategy` option. */
export const STRATEGIES = ['auto', 'inline', 'stepwise'] as const;

/** The values of `chat()`'s `toolChoice` option, as an error lists them. */
export const TOOL_CHOICES = ['auto', 'required', 'none', '{ name }'] as const;

/** Thrown for a `toolChoice: { name }` that names no registered tool. */
export class UnknownToolError extends NexusError {
  override readonly name = 'UnknownToolError';
}

registerErrorClass(UnknownToolError, 'UnknownToolError');

/**
 * Thrown when tools are offered to a model whose chat template cannot hold a tool conversation
 * (it ignores tools, or raises on a tool turn, as Gemma 3's does).
 */
export class ToolTemplateError extends NexusError {
  override readonly name = 'ToolTemplateError';
}

registerErrorClass(ToolTemplateError, 'ToolTemplateError');

/** The chat's own settings that every answer starts from (`NexusChat`'s public fields). */
export interface ChatDefaults {
  systemPrompt: string;
  answerPrompt: string;
  maxRounds: number;
  maxResultChars: number;
}

/** What an answer runs with when neither its options nor the chat say otherwise: the chat's defaults, then each answer's own. */
export interface AnswerDefaults extends ChatDefaults {
  toolChoice: 'auto';
  strategy: 'auto';
  repetitionPenalty: number;
  maxNewTokens: number;
  enableThinking: boolean;
}

/**
 * Every default of an answer, in one place: the facade's, the loop's and the page's "Reset to defaults" read
 * them here.
 */
export const ANSWER_DEFAULTS: Readonly<AnswerDefaults> = Object.freeze({
  systemPrompt: DEFAULT_SYSTEM_PROMPT,
  answerPrompt: DEFAULT_ANSWER_PROMPT,
  maxRounds: 4,
  maxResultChars: DEFAULT_MAX_RESULT_CHARS,
  toolChoice: 'auto',
  strategy: 'auto',
  repetitionPenalty: 1.1,
  maxNewTokens: 512,
  enableThinking: false,
});

/** The fewest tokens an answer's `maxNewTokens` must leave for the prompt in the model's context budget. */
export const MIN_PROMPT_TOKENS = 256;

/** Tokens a prompt may take: the budget less what is kept for the answer; a `maxNewTokens` that leaves too little is refused. */
function promptBudgetOf(context: ContextBudget, maxNewTokens: number): number {
  const left = context.tokens - maxNewTokens;
  if (left >= MIN_PROMPT_TOKENS) return left;
  throw new ContextOverflowError(
    `maxNewTokens ${maxNewTokens.toLocaleString('en-US')} leaves ${Math.max(0, left).toLocaleString('en-US')} tokens for the prompt in this model's ` +
      `context budget of ${context.detail}. Use a maxNewTokens of at most ${(context.tokens - MIN_PROMPT_TOKENS).toLocaleString('en-US')}.`,
    { promptTokens: MIN_PROMPT_TOKENS, budgetTokens: Math.max(0, left) },
  );
}

/**
 * An answer's settings from `chat()`'s options and the chat's defaults, already merged with them (the facade
 * merges once: `defaults` are this answer's). An unknown `strategy` or
 * `toolChoice` is refused naming the valid values; a forced `{ name }` must name a registered tool;
 * with the model's context budget, a `maxNewTokens` that leaves no room for a prompt is refused.
 */
export function answerSettings(
  options: ChatOptions,
  registry: ToolRegistry,
  defaults: Pick<ChatDefaults, 'maxRounds' | 'maxResultChars'>,
  context?: ContextBudget,
): Omit<AnswerSettings, 'signal'> {
  let toolChoice = options.toolChoice ?? ANSWER_DEFAULTS.toolChoice;
  const named = typeof toolChoice === 'object' && toolChoice !== null && typeof (toolChoice as { name?: unknown }).name === 'string';
  if (!named && !(['auto', 'required', 'none'] as unknown[]).includes(toolChoice)) throw new InvalidOptionError('toolChoice', toolChoice, TOOL_CHOICES);
  const strategy = checkOption('strategy', options.strategy ?? ANSWER_DEFAULTS.strategy, STRATEGIES);
  if (typeof toolChoice === 'object') {
    const name = registry.resolveName(toolChoice.name);
    if (!name) {
      throw new UnknownToolError(`toolChoice names '${toolChoice.name}', which is not registered. Available tools: ${registry.names.join(', ') || 'none'}.`);
    }
    toolChoice = { name };
  }
  const maxNewTokens = options.maxNewTokens ?? ANSWER_DEFAULTS.maxNewTokens;
  const openingCalls = options.openingCalls?.map((call) => {
    const name = registry.resolveName(call.name);
    if (!name)
      throw new UnknownToolError(`openingCalls names '${call.name}', which is not registered. Available tools: ${registry.names.join(', ') || 'none'}.`);
    return { name, arguments: structuredClone({ ...call.arguments }) };
  });
  return {
    toolChoice,
    strategy,
    ...(context ? { promptBudget: promptBudgetOf(context, maxNewTokens) } : {}),
    maxRounds: defaults.maxRounds,
    repetitionPenalty: options.repetitionPenalty ?? ANSWER_DEFAULTS.repetitionPenalty,
    ...(options.sampling && options.sampling.temperature > 0 ? { sampling: options.sampling } : {}),
    enableThinking: options.enableThinking ?? ANSWER_DEFAULTS.enableThinking,
    maxNewTokens,
    maxResultChars: defaults.maxResultChars,
    ...(options.tools ? { tools: options.tools.map((n) => registry.resolveName(n) ?? n) } : {}),
    ...(openingCalls?.length ? { openingCalls } : {}),
  };
}

/** What {@link answerMessages} assembles an answer's prompt from. */
export interface AnswerPromptParts {
  defaults: Pick<ChatDefaults, 'systemPrompt' | 'answerPrompt'>;
  settings: Pick<AnswerSettings, 'toolChoice' | 'tools'>;
  /** Every tool the answer may call (the offered ones are `settings.tools`, or all). */
  schemas: readonly ToolSchema[];
  /** The model, as the engine reports it (its template's problem, when it has one). */
  info: Pick<EngineInfo, 'model' | 'family'>;
  /** The model's family profile: calls in a worked example are written in its syntax. */
  family: Pick<ModelFamily, 'formatCall'>;
  /** The families with a profile of their own, for the message when tools cannot be offered. */
  supportedFamilies: string;
  history: readonly ChatMessage[];
  /** The question; undefined when the history already ends where the model goes on (after tool results). */
  prompt: string | undefined;
  /** Said after the system prompt for this answer only (per-conversation instructions). */
  instructions?: string | undefined;
}

/**
 * The messages an answer starts from: one system message (the system prompt, and the answer prompt
 * when tools are offered), the history, the question. Offering tools to a model whose template
 * cannot hold a tool conversation is refused here, before the first generation.
 */
export function answerMessages(parts: AnswerPromptParts): ChatMessage[] {
  const { settings, info } = parts;
  const offered = settings.tools ? parts.schemas.filter((s) => settings.tools?.includes(s.function.name)) : parts.schemas;
  const schemas = settings.toolChoice === 'none' ? [] : offered;
  if (schemas.length > 0 && info.family?.templateProblem) {
    throw new ToolTemplateError(
      `The chat template of ${info.model} ${info.family.templateProblem}, so it cannot be offered tools ` +
        `(profile: ${info.family.label}). Chat without tools (toolChoice: 'none'), or use a model of a family with tool support: ${parts.supportedFamilies}.`,
    );
  }
  const system = systemPromptFor({ ...parts.defaults, offered: schemas, family: parts.family });
  return [
    // Instructions come from the person, an imported file or an MCP server's sampling request: outside text.
    { role: 'system', content: parts.instructions ? `${system}\n\n${outside(parts.instructions)}` : system },
    ...parts.history,
    ...(parts.prompt === undefined ? [] : [{ role: 'user' as const, content: parts.prompt }]),
  ];
}
