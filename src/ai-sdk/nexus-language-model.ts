import type {
  LanguageModelV4,
  LanguageModelV4CallOptions,
  LanguageModelV4Content,
  LanguageModelV4FinishReason,
  LanguageModelV4GenerateResult,
  LanguageModelV4StreamPart,
  LanguageModelV4StreamResult,
  LanguageModelV4Usage,
  SharedV4ProviderMetadata,
  SharedV4Warning,
} from '@ai-sdk/provider';
import type { ToolCallCheck } from '../check/self-check.ts';
import type { LoadProgress } from '../engine/transformers-engine.ts';
import type { HandedCall, Step } from '../loop/step-log.ts';
import type { ChatOptions } from '../loop/types.ts';
import type { ModelTurnOptions, ModelTurnResult, NexusChat } from '../nexus/index.ts';
import { NexusError, registerErrorClass } from '../shared/errors.ts';
import { thinkingOf } from '../toolcalls/strip-thinking.ts';
import { convertPrompt } from './prompt-messages.ts';

/** A model whose self-check verdict was not ok, refused by a provider set to `requireToolCalling`. */
export class ModelCannotCallToolsError extends NexusError {
  override readonly name = 'ModelCannotCallToolsError';
  /** The verdict that refused it. */
  readonly verdict: ToolCallCheck | undefined;
  constructor(message: string, verdict?: ToolCallCheck) {
    super(message);
    this.verdict = verdict;
  }
}
registerErrorClass(ModelCannotCallToolsError, 'ModelCannotCallToolsError');

/** Per-model settings of the provider, beside what each SDK call asks. */
export interface NexusModelSettings {
  /**
   * Run the self-check before the first call and refuse the model (`ModelCannotCallToolsError`,
   * the verdict inside) unless it really calls a tool and answers from its result. Default false:
   * `await model.check()` gives the verdict without refusing.
   */
  requireToolCalling?: boolean;
  /**
   * The loop's strategy: `auto` (inline, then the rungs), `inline` only, or `stepwise` first. Unset, a
   * model whose self-check failed (its `chat.toolCheck`) gets `inline`: it is never forced into a call.
   */
  strategy?: ChatOptions['strategy'];
  /** Let a reasoning model think (its thinking streams as reasoning parts). Default off. */
  enableThinking?: boolean;
  /** Output tokens when the SDK call sets no `maxOutputTokens` (default 512). */
  maxOutputTokens?: number;
  /**
   * The project's system prompt, replaced (the SDK's `system` is said after it). Default: the
   * project's, tuned for small models calling tools.
   */
  systemPrompt?: string;
  /** The line said with the tools, replaced (default: the project's). */
  answerPrompt?: string;
}

/** What the provider says about a step, under `providerMetadata.nexus`. */
function stepMetadata(turn: ModelTurnResult): SharedV4ProviderMetadata {
  const rungs = turn.steps.flatMap((s: Step) => (s.kind === 'escalate' ? [s.rung] : []));
  return {
    nexus: {
      rungs: ['inline', ...rungs],
      calls: turn.calls.map((c) => ({ id: c.id, name: c.name, source: c.source, forced: c.source !== 'inline' })),
      forced: turn.calls.some((c) => c.source !== 'inline'),
      dropped: turn.dropped.map((d) => ({ name: d.name, message: d.message })),
      generations: turn.metrics.generations,
    },
  };
}

/** The SDK's usage from a turn's token counts (the cached part read from the KV cache, not computed again). */
function usageOf(turn: ModelTurnResult): LanguageModelV4Usage {
  const { promptTokens, cachedTokens, newTokens } = turn.usage;
  return {
    inputTokens: { total: promptTokens, noCache: promptTokens - cachedTokens, cacheRead: cachedTokens, cacheWrite: undefined },
    outputTokens: { total: newTokens, text: newTokens, reasoning: undefined },
  };
}

function finishReasonOf(turn: ModelTurnResult, maxNewTokens: number): LanguageModelV4FinishReason {
  if (turn.calls.length > 0) return { unified: 'tool-calls', raw: 'tool-calls' };
  const last = turn.steps.filter((s) => s.kind === 'generation').at(-1);
  if (last?.kind === 'generation' && last.newTokens >= maxNewTokens) return { unified: 'length', raw: 'length' };
  return { unified: 'stop', raw: 'stop' };
}

/** The model's reasoning in its free generation this turn (empty unless thinking is on). */
function reasoningOf(turn: ModelTurnResult): string {
  const free = turn.steps.find((s) => s.kind === 'generation');
  return free?.kind === 'generation' ? thinkingOf(free.text) : '';
}

function toolCallPart(call: HandedCall): Extract<LanguageModelV4Content, { type: 'tool-call' }> {
  return { type: 'tool-call', toolCallId: call.id, toolName: call.name, input: JSON.stringify(call.arguments) };
}

/**
 * A Nexus model as an AI SDK `LanguageModelV4`: each SDK step is one model turn of this project's
 * loop — the free generation, and when a call is expected and missing, the yes/no check, the
 * primed call and the stepwise call — whose calls go back to the SDK unrun (it executes them and
 * calls again with their results). Only calls to the step's tools, arguments validated, ever reach
 * the SDK; a hallucinated name never does.
 *
 * Calls are served one at a time (one model, one KV cache): concurrent SDK calls wait their turn.
 */
export class NexusLanguageModel implements LanguageModelV4 {
  readonly specificationVersion = 'v4';
  readonly provider = 'nexus';
  readonly modelId: string;
  /** Text models take no URLs for the SDK to pass through undownloaded. */
  readonly supportedUrls: Record<string, RegExp[]> = {};
  readonly #load: (onProgress?: (event: LoadProgress) => void) => Promise<NexusChat>;
  readonly #settings: NexusModelSettings;
  #queue: Promise<unknown> = Promise.resolve();
  #verdict: Promise<ToolCallCheck> | undefined;

  /**
   * @param modelId - the model's name, as the SDK reports it.
   * @param load - gives the loaded chat (loaded once, on first use), telling `onProgress` how the load goes.
   * @param settings - per-model settings.
   */
  constructor(modelId: string, load: (onProgress?: (event: LoadProgress) => void) => Promise<NexusChat>, settings: NexusModelSettings = {}) {
    this.modelId = modelId;
    this.#load = load;
    this.#settings = settings;
  }

  /** The per-model settings (whether the check is required, the strategy…). */
  get settings(): Readonly<NexusModelSettings> {
    return this.#settings;
  }

  /**
   * Loads the model now (once; later calls share the load) and tells `onProgress` how the download
   * and warm-up go, for a page that shows them before the first answer.
   */
  ready(onProgress?: (event: LoadProgress) => void): Promise<NexusChat> {
    return this.#load(onProgress);
  }

  #chat(): Promise<NexusChat> {
    return this.#load();
  }

  /**
   * Whether this model and quantization really call a tool and answer from its result, on this
   * machine (the project's self-check, run once and kept).
   */
  check(): Promise<ToolCallCheck> {
    this.#verdict ??= this.#serve(async () => (await this.#chat()).selfCheck());
    return this.#verdict;
  }

  async doGenerate(options: LanguageModelV4CallOptions): Promise<LanguageModelV4GenerateResult> {
    const { turnOptions, messages, warnings, maxNewTokens } = this.#prepare(options);
    const turn = await this.#turn(messages, turnOptions);
    const content: LanguageModelV4Content[] = [];
    const reasoning = reasoningOf(turn);
    if (reasoning) content.push({ type: 'reasoning', text: reasoning });
    if (turn.text) content.push({ type: 'text', text: turn.text });
    content.push(...turn.calls.map(toolCallPart));
    return {
      content,
      finishReason: finishReasonOf(turn, maxNewTokens),
      usage: usageOf(turn),
      providerMetadata: stepMetadata(turn),
      warnings,
      response: { modelId: this.modelId, timestamp: new Date() },
    };
  }

  async doStream(options: LanguageModelV4CallOptions): Promise<LanguageModelV4StreamResult> {
    const { turnOptions, messages, warnings, maxNewTokens } = this.#prepare(options);
    let controller!: ReadableStreamDefaultController<LanguageModelV4StreamPart>;
    const stream = new ReadableStream<LanguageModelV4StreamPart>({
      start: (c) => {
        controller = c;
      },
    });
    controller.enqueue({ type: 'stream-start', warnings });
    controller.enqueue({ type: 'response-metadata', modelId: this.modelId, timestamp: new Date() });
    const textId = 'text-0';
    const reasoningId = 'reasoning-0';
    let textOpen = false;
    let reasoningOpen = false;
    let reasoningStreamed = false;
    const endReasoning = () => {
      if (reasoningOpen) controller.enqueue({ type: 'reasoning-end', id: reasoningId });
      reasoningOpen = false;
    };
    this.#turn(messages, {
      ...turnOptions,
      // The reasoning streams as the model writes it, before the text it comes before.
      onReasoning: (delta) => {
        if (!reasoningOpen) controller.enqueue({ type: 'reasoning-start', id: reasoningId });
        reasoningOpen = true;
        reasoningStreamed = true;
        controller.enqueue({ type: 'reasoning-delta', id: reasoningId, delta });
      },
      onToken: (delta) => {
        endReasoning();
        if (!textOpen) controller.enqueue({ type: 'text-start', id: textId });
        textOpen = true;
        controller.enqueue({ type: 'text-delta', id: textId, delta });
      },
    }).then(
      (turn) => {
        endReasoning();
        if (textOpen) controller.enqueue({ type: 'text-end', id: textId });
        // A runner that does not stream reasoning (an older worker) still gives it, read off the turn, once.
        const reasoning = reasoningStreamed ? '' : reasoningOf(turn);
        if (reasoning) {
          controller.enqueue({ type: 'reasoning-start', id: reasoningId });
          controller.enqueue({ type: 'reasoning-delta', id: reasoningId, delta: reasoning });
          controller.enqueue({ type: 'reasoning-end', id: reasoningId });
        }
        for (const call of turn.calls) {
          const input = JSON.stringify(call.arguments);
          controller.enqueue({ type: 'tool-input-start', id: call.id, toolName: call.name });
          controller.enqueue({ type: 'tool-input-delta', id: call.id, delta: input });
          controller.enqueue({ type: 'tool-input-end', id: call.id });
          controller.enqueue(toolCallPart(call));
        }
        controller.enqueue({ type: 'finish', usage: usageOf(turn), finishReason: finishReasonOf(turn, maxNewTokens), providerMetadata: stepMetadata(turn) });
        controller.close();
      },
      (error: unknown) => {
        controller.enqueue({ type: 'error', error });
        controller.close();
      },
    );
    return { stream };
  }

  /** The turn's options from the SDK call, with a warning for each setting it cannot honour. */
  #prepare(options: LanguageModelV4CallOptions): {
    turnOptions: ModelTurnOptions;
    messages: ReturnType<typeof convertPrompt>['messages'];
    warnings: SharedV4Warning[];
    maxNewTokens: number;
  } {
    const { instructions, messages, warnings } = convertPrompt(options.prompt);
    const unsupported = (feature: string, details: string) => warnings.push({ type: 'unsupported', feature, details });
    if (options.responseFormat?.type === 'json')
      unsupported('responseFormat', 'JSON output is not constrained by this provider: ask for JSON in the prompt, or use a tool');
    if (options.seed !== undefined) unsupported('seed', 'generation here is greedy unless temperature is set, and sampling takes no seed');
    if (options.topK !== undefined) unsupported('topK', 'only temperature and topP shape sampling here');
    if (options.presencePenalty !== undefined || options.frequencyPenalty !== undefined) {
      unsupported('presencePenalty / frequencyPenalty', 'this provider applies a repetition penalty of its own (1.1)');
    }
    if (options.stopSequences?.length) unsupported('stopSequences', 'generation stops at the end of the turn or at maxOutputTokens');
    const tools: { name: string; description?: string | undefined; parameters: Record<string, unknown> }[] = [];
    for (const tool of options.tools ?? []) {
      if (tool.type === 'function') tools.push({ name: tool.name, description: tool.description, parameters: tool.inputSchema as Record<string, unknown> });
      else unsupported(`provider tool ${tool.name}`, `provider-defined tools (${tool.id}) run on their provider's servers, not here; it is not offered`);
    }
    const choice = options.toolChoice;
    const toolChoice: ModelTurnOptions['toolChoice'] =
      choice === undefined || choice.type === 'auto' ? 'auto' : choice.type === 'tool' ? { name: choice.toolName } : choice.type;
    const maxNewTokens = options.maxOutputTokens ?? this.#settings.maxOutputTokens ?? 512;
    const thinking =
      this.#settings.enableThinking ?? (options.reasoning !== undefined && options.reasoning !== 'none' && options.reasoning !== 'provider-default');
    return {
      turnOptions: {
        tools,
        toolChoice: tools.length ? toolChoice : 'none',
        maxNewTokens,
        ...(options.temperature !== undefined && options.temperature > 0
          ? { sampling: { temperature: options.temperature, ...(options.topP !== undefined ? { topP: options.topP } : {}) } }
          : {}),
        ...(this.#settings.strategy ? { strategy: this.#settings.strategy } : {}),
        ...(this.#settings.systemPrompt !== undefined ? { systemPrompt: this.#settings.systemPrompt } : {}),
        ...(this.#settings.answerPrompt !== undefined ? { answerPrompt: this.#settings.answerPrompt } : {}),
        enableThinking: thinking,
        ...(instructions ? { instructions } : {}),
        ...(options.abortSignal ? { signal: options.abortSignal } : {}),
      },
      messages,
      warnings,
      maxNewTokens,
    };
  }

  /** One turn, after the check when it is required, one at a time. */
  async #turn(messages: ReturnType<typeof convertPrompt>['messages'], options: ModelTurnOptions): Promise<ModelTurnResult> {
    if (this.#settings.requireToolCalling) {
      const verdict = await this.check();
      if (!verdict.ok) {
        throw new ModelCannotCallToolsError(
          `${this.modelId} did not pass the tool-calling check on this machine (${verdict.detail}), so this provider refuses it (requireToolCalling). Try another quantization or model, or set requireToolCalling: false to use it anyway.`,
          verdict,
        );
      }
    }
    return this.#serve(async () => {
      const chat = await this.#chat();
      // The page's rule: a model whose check failed on this machine is never forced into a call (the
      // forced rungs would make a call of junk arguments the SDK then runs); it answers or calls as it
      // will. A strategy the caller set is theirs.
      const failed = chat.toolCheck !== undefined && !chat.toolCheck.ok;
      const unforced = failed && !this.#settings.strategy ? { ...options, strategy: 'inline' as const } : options;
      return chat.modelTurn(messages, unforced);
    });
  }

  /** Runs `work` after every call before it has settled. */
  #serve<T>(work: () => Promise<T>): Promise<T> {
    const result = this.#queue.then(work, work);
    this.#queue = result.catch(() => undefined);
    return result;
  }
}
