import type { ChatMessage, Engine, GenerateOptions, GenerateResult, ToolSchema } from '../engine/engine.ts';
import type { Emitter } from './emitter.ts';
import type { ToolEffects, Toolbox } from './toolbox.ts';
import type { AnswerMetrics, ChatEvents, Strategy, ToolChoice, ToolCallRecord } from './types.ts';

/** Fresh counters for one answer. */
export function emptyMetrics(): AnswerMetrics {
  return {
    rounds: 0,
    answerRounds: 0,
    generations: 0,
    promptTokens: 0,
    cachedTokens: 0,
    newTokens: 0,
    toolCalls: 0,
    forcedCalls: 0,
    tool_calls_force_failed: 0,
    rescues: 0,
    duplicateCalls: 0,
    unknownToolCalls: 0,
    ms: 0,
    tokensPerSecond: 0,
  };
}

/** Settings of one answer, defaults applied. */
export interface AnswerSettings {
  toolChoice: ToolChoice;
  strategy: Strategy;
  maxRounds: number;
  repetitionPenalty: number;
  enableThinking: boolean;
  maxNewTokens: number;
  maxResultChars: number;
  answerPrompt: string;
  /** Names of the tools offered when the answer starts (default: every registered tool). */
  tools?: string[];
  signal?: AbortSignal;
}

/**
 * Everything one answer shares across its rounds: the engine, the tools, the events, the counters,
 * and the calls made so far. Every generation goes through {@link AnswerRun.generate} so the
 * counters and the `raw` event are never skipped.
 */
export class AnswerRun {
  readonly metrics = emptyMetrics();
  readonly calls: ToolCallRecord[] = [];
  /** The tool round in progress (1-based); answer rounds continue the count. */
  round = 0;
  /** Rounds in which every call named a missing tool; bounded separately from `maxRounds`. */
  unknownToolRetries = 0;
  /** The answer prompt goes in once per answer, after the first results. */
  answerPromptAdded = false;
  /** A tool result ended the tool rounds (e.g. a spent search budget). */
  endToolRounds = false;
  private readonly offered: Set<string>;
  private generationMs = 0;

  constructor(
    readonly engine: Engine,
    readonly toolbox: Toolbox,
    readonly events: Emitter<ChatEvents>,
    readonly settings: AnswerSettings,
    /** The conversation as the template will render it (system prompt first), grown by the loop. */
    readonly messages: ChatMessage[],
  ) {
    this.offered = new Set(settings.tools ?? toolbox.schemas.map((t) => t.function.name));
  }

  /** The tools rendered into this answer's prompts (none for `toolChoice: 'none'`). */
  get offeredTools(): readonly ToolSchema[] {
    return this.settings.toolChoice === 'none' ? [] : this.toolbox.schemas.filter((t) => this.offered.has(t.function.name));
  }

  /** The registered spelling of `name` if that tool is offered right now; a withdrawn tool is not available. */
  resolveOffered(name: string): string | undefined {
    const resolved = this.toolbox.resolveName(name);
    return resolved && this.offered.has(resolved) ? resolved : undefined;
  }

  /** Applies what a tool result asks for: tools withdrawn or offered, the tool rounds ended. */
  applyEffects(effects: ToolEffects | undefined): void {
    for (const name of effects?.withdraw ?? []) this.offered.delete(name);
    for (const name of effects?.offer ?? []) if (this.toolbox.resolveName(name) === name) this.offered.add(name);
    if (effects?.endToolRounds) this.endToolRounds = true;
  }

  /** Renders `messages` (default: the conversation) with the chat template and a generation prompt. */
  render(messages: ChatMessage[] = this.messages, tools: readonly ToolSchema[] = this.offeredTools): Promise<string> {
    return this.engine.render(messages, {
      tools: tools.length ? tools : undefined,
      addGenerationPrompt: true,
      enableThinking: this.settings.enableThinking,
    });
  }

  /** One generation, counted and reported as `raw` (with `prefix`, the primed part, in front). */
  async generate(
    prompt: string,
    options: Omit<GenerateOptions, 'signal' | 'repetitionPenalty'>,
    strategy: string,
    prefix = '',
  ): Promise<GenerateResult> {
    const started = performance.now();
    const result = await this.engine.generate(prompt, {
      ...options,
      repetitionPenalty: this.settings.repetitionPenalty,
      signal: this.settings.signal,
    });
    this.generationMs += performance.now() - started;
    const m = this.metrics;
    m.generations++;
    m.promptTokens += result.promptTokens;
    m.cachedTokens += result.cachedTokens;
    m.newTokens += result.newTokens;
    m.tokensPerSecond = this.generationMs > 0 ? (m.newTokens * 1000) / this.generationMs : 0;
    this.events.emit('raw', prefix + result.text, { round: this.round, strategy });
    return result;
  }
}
