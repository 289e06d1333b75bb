import type { ChatMessage, Engine, GenerateOptions, GenerateResult, Sampling, ToolSchema } from '../engine/engine.ts';
import { ContextOverflowError, FULL_MEMORY, historyInView, smallerView, viewCounts, type MemoryView } from './fit-context.ts';
import { callsOf, currentRound, memoryOf, messagesOf, metricsOf, offeredNames, roundToolsOf, withdrawnNames, type Step } from './step-log.ts';
import type { Toolbox } from './toolbox.ts';
import type { AnswerMetrics, OpeningCall, Strategy, ToolChoice, ToolCallRecord } from './call-types.ts';

/**
 * Where an answer goes as it happens: every step as it is appended, and the visible text as it is
 * produced (the one thing streamed between steps). Every other event is a projection of the steps.
 */
export interface AnswerSink {
  step(step: Step): void;
  token(text: string): void;
  /** The model's reasoning as it is written (a thinking model's `<think>` text), where a caller streams it. */
  reasoning?(text: string): void;
}

/** Settings of one answer, defaults applied. */
export interface AnswerSettings {
  toolChoice: ToolChoice;
  strategy: Strategy;
  maxRounds: number;
  repetitionPenalty: number;
  /** For generations where no call is expected (answers from results, answer rounds): off when undefined. */
  sampling?: Sampling;
  enableThinking: boolean;
  maxNewTokens: number;
  maxResultChars: number;
  /**
   * Tokens a prompt may take: the model's context budget minus `maxNewTokens`. A prompt over it
   * shrinks the model's view of the history (see `fit-context.ts`); undefined applies no limit.
   */
  promptBudget?: number;
  /** The part of the history the model saw at the end of the last answer (default: all of it). */
  memory?: MemoryView;
  /** Names of the tools offered when the answer starts (default: every registered tool). */
  tools?: string[];
  /**
   * With `tools`: a call to any other registered tool is still accepted (the selection left it out,
   * but it exists), reported, and offered from then on. Off, only offered tools can be called.
   */
  acceptUnoffered?: boolean;
  /**
   * The first round that writes calls ends the answer with them unrun (a `handover` step), for a
   * caller that runs tools itself (the AI SDK provider). Calls to names that are not registered are
   * never handed over, nor fed back: the forced rungs are asked instead.
   */
  callsOnly?: boolean;
  /**
   * The text of an answer that was stopped, which this one goes on from (Continue): the messages end where
   * that answer began, the model writes on after this text with no tools, and the answer is the whole text.
   */
  continueFrom?: string;
  /** Calls run before the model's first generation as round 1, as if it had written them (`ChatOptions.openingCalls`). */
  openingCalls?: OpeningCall[];
  signal?: AbortSignal;
}

/** What stop conditions and round plans read of an answer: its steps, its settings, and what derives from them. */
export interface AnswerView {
  /** Every step so far, oldest first. Append-only. */
  readonly log: readonly Step[];
  readonly settings: AnswerSettings;
  /** Derived from the log. */
  readonly metrics: AnswerMetrics;
  /** Every call handled so far; derived from the log. */
  readonly calls: readonly ToolCallRecord[];
  /** The conversation the answer started from ends with tool results (a caller that runs tools asks again with them). */
  readonly continuesAfterResults: boolean;
}

/**
 * One answer: the engine, the tools, where it reports, the conversation it started from, and the
 * append-only log of its steps. Nothing else is kept: the round, the retries, the offered tools,
 * the turns it adds to the conversation and every metric are read off the log. Every generation
 * goes through {@link AnswerRun.generate} so its step is never skipped.
 */
export class AnswerRun implements AnswerView {
  private readonly steps: Step[] = [];
  private readonly initialTools: readonly string[];
  private readonly startedAt = performance.now();
  /** When the first visible text streamed, from {@link AnswerRun.startedAt}: the reader's time to first token. */
  private firstTextMs: number | undefined;

  constructor(
    readonly engine: Engine,
    readonly toolbox: Toolbox,
    private readonly sink: AnswerSink,
    readonly settings: AnswerSettings,
    /** The conversation as the template will render it (system prompt first), ending with the user's message. */
    private readonly conversation: readonly ChatMessage[],
  ) {
    this.initialTools = settings.tools ?? toolbox.schemas.map((t) => t.function.name);
  }

  get continuesAfterResults(): boolean {
    return this.conversation.at(-1)?.role === 'tool';
  }

  get log(): readonly Step[] {
    return this.steps;
  }

  /** Appends a step, frozen; the only way the answer's state changes. Reported to the sink. */
  record(step: Step): void {
    if (step.kind === 'call') Object.freeze(step.record);
    const frozen = Object.freeze(step);
    this.steps.push(frozen);
    this.sink.step(frozen);
  }

  /** Streams visible answer text (never call markup or thinking). */
  token(text: string): void {
    if (!text) return;
    if (this.firstTextMs === undefined && text.trim()) this.firstTextMs = performance.now() - this.startedAt;
    this.sink.token(text);
  }

  /** Streams the model's reasoning as it is written, apart from the answer text. */
  reasoning(text: string): void {
    if (text) this.sink.reasoning?.(text);
  }

  /** The system prompt the conversation starts with, if any. */
  private get system(): ChatMessage[] {
    return this.conversation[0]?.role === 'system' ? [this.conversation[0]] : [];
  }

  /** The conversation as it will be stored: the history, the message being answered, this answer's turns. The memory view indexes it. */
  private get stored(): ChatMessage[] {
    return [...this.conversation.slice(this.system.length), ...messagesOf(this.steps)];
  }

  /** Where the message being answered sits in {@link AnswerRun.stored}: nothing from there on is ever dropped. */
  private get current(): number {
    return this.conversation.length - this.system.length - 1;
  }

  /** The part of the history the model sees now (derived from the log). */
  get memory(): MemoryView {
    return memoryOf(this.steps, this.settings.memory ?? FULL_MEMORY);
  }

  /**
   * The conversation as the template renders it: the system prompt, then the history, the message
   * being answered and this answer's turns (derived from the log), seen through the memory view.
   */
  get messages(): ChatMessage[] {
    return [...this.system, ...historyInView(this.stored, this.memory)];
  }

  get metrics(): AnswerMetrics {
    return metricsOf(this.steps);
  }

  get calls(): ToolCallRecord[] {
    return callsOf(this.steps);
  }

  /** The round in progress (1-based); answer rounds continue the count. */
  get round(): number {
    return currentRound(this.steps);
  }

  /** Ends the answer: its text and wall time go into the log. */
  finish(text: string): void {
    const firstText = this.firstTextMs === undefined ? {} : { firstTextMs: this.firstTextMs };
    this.record({ kind: 'finished', ms: performance.now() - this.startedAt, text, ...firstText });
  }

  /** The tools callable now: the answer's offer as its results changed it, narrowed by `prepareStep` for this round. */
  private get offered(): Set<string> {
    const offered = offeredNames(this.steps, this.initialTools, (name) => this.toolbox.resolveName(name) === name);
    const narrowed = roundToolsOf(this.steps);
    return narrowed ? new Set([...offered].filter((name) => narrowed.includes(name))) : offered;
  }

  /** The tools rendered into this answer's prompts (none for `toolChoice: 'none'`). */
  get offeredTools(): readonly ToolSchema[] {
    if (this.settings.toolChoice === 'none') return [];
    const offered = this.offered;
    return this.toolbox.schemas.filter((t) => offered.has(t.function.name));
  }

  /** The registered spelling of `name` if that tool is offered right now; a withdrawn tool is not available. */
  resolveOffered(name: string): string | undefined {
    const resolved = this.toolbox.resolveName(name);
    return resolved && this.offered.has(resolved) ? resolved : undefined;
  }

  /**
   * For a call the model wrote: an offered tool, or (with `acceptUnoffered`) a registered one the
   * selection left out — logged, reported as a step, and offered from then on. A withdrawn tool
   * and a made-up name never resolve.
   */
  resolveCall(name: string): string | undefined {
    const offered = this.resolveOffered(name);
    if (offered || !this.settings.acceptUnoffered || this.settings.toolChoice === 'none') return offered;
    const resolved = this.toolbox.resolveName(name);
    if (!resolved || withdrawnNames(this.steps).has(resolved)) return undefined;
    this.record({ kind: 'unoffered-call', round: this.round, name: resolved, written: name });
    return resolved;
  }

  /**
   * Renders the conversation, then `extra` turns, with the chat template and a generation prompt.
   * A prompt over the budget shrinks the model's view of the history (old tool results shortened,
   * then the oldest half of the blocks dropped, each recorded as a `memory` step) until it fits;
   * when nothing older is left, a {@link ContextOverflowError} says the sizes before any generation.
   */
  async render(extra: readonly ChatMessage[] = [], tools: readonly ToolSchema[] = this.offeredTools): Promise<string> {
    const options = { tools: tools.length ? tools : undefined, addGenerationPrompt: true, enableThinking: this.settings.enableThinking };
    const budget = this.settings.promptBudget;
    for (;;) {
      const prompt = await this.engine.render([...this.messages, ...extra], options);
      // Every token is at least one character: a prompt no longer than the budget in characters fits without counting.
      if (budget === undefined || prompt.length <= budget) return prompt;
      const tokens = this.engine.countTokens(prompt);
      if (tokens <= budget) return prompt;
      const stored = this.stored;
      const view = smallerView(stored, this.memory, this.current);
      if (!view) throw this.overflow(tokens, budget);
      this.record({ kind: 'memory', round: this.round, ...view, ...viewCounts(stored, view), promptTokens: tokens, budgetTokens: budget });
    }
  }

  /** The error for a prompt that cannot fit even with the whole history out of the model's memory. */
  private overflow(tokens: number, budget: number): ContextOverflowError {
    const question = this.conversation.at(-1)?.content ?? '';
    const own = this.engine.countTokens(question);
    const reserve = this.settings.maxNewTokens;
    return new ContextOverflowError(
      `This prompt takes ${tokens.toLocaleString('en-US')} tokens, more than the ${budget.toLocaleString('en-US')} a prompt may take with this model ` +
        `(its context budget less the ${reserve.toLocaleString('en-US')} kept for the answer), and no earlier message is left to drop. ` +
        `The message itself is ${own.toLocaleString('en-US')} tokens: shorten it or send it in parts; a long system prompt, many tools ` +
        'or large tool results take room too (offer fewer tools, lower maxResultChars or maxNewTokens). Nothing was generated and the conversation is kept.',
      { promptTokens: tokens, budgetTokens: budget },
    );
  }

  /** One generation, logged with what the model wrote (with `prefix`, the primed part, in front). */
  async generate(prompt: string, options: Omit<GenerateOptions, 'signal' | 'repetitionPenalty'>, strategy: string, prefix = ''): Promise<GenerateResult> {
    const started = performance.now();
    const result = await this.engine.generate(prompt, {
      ...options,
      repetitionPenalty: this.settings.repetitionPenalty,
      signal: this.settings.signal,
    });
    const { promptTokens, cachedTokens, newTokens } = result;
    this.record({
      kind: 'generation',
      round: this.round,
      strategy,
      promptTokens,
      cachedTokens,
      newTokens,
      ms: performance.now() - started,
      text: prefix + result.text,
    });
    return result;
  }
}
