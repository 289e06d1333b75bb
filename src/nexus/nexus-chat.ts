import type { ChatMessage, Engine, EngineInfo } from '../engine/engine.ts';
import { isAbortError } from '../shared/abort.ts';
import { checkLoadOptions } from '../engine/load-options.ts';
import { DEFAULT_MODEL, describeSource, type ModelSource } from '../engine/model-source.ts';
import type { WorkerLoadOptions } from '../worker/worker-client.ts';
import { runSelfCheck, type ToolCallCheck } from '../check/self-check.ts';
import { loadForTools, type LoadForToolsOptions } from '../check/load-for-tools.ts';
import type { ToolVerdict } from '../check/verdict-store.ts';
import type { AnswerRunner } from '../loop/answer-runner.ts';
import { Emitter, type Listener } from '../loop/emitter.ts';
import { emitStep } from '../loop/step-events.ts';
import { memoryOf, messagesOf, type Step } from '../loop/step-log.ts';
import { FULL_MEMORY, type MemoryView } from '../loop/fit-context.ts';
import type { ContextBudget } from '../engine/context-budget.ts';
import { isStopRule, type StopCondition, type StopRule } from '../loop/stop-conditions.ts';
import type { ToolEffects, ToolRunOptions, ToolRunOutcome } from '../loop/toolbox.ts';
import type { ApprovalHandler, ChatEvents, ChatOptions, ChatReply, StoppedConversation } from '../loop/types.ts';
import { evalTools, loadTools, type LoadToolsOptions } from '../tools/load-tools.ts';
import { ToolRegistry, type ToolHandler, type ToolOptions, type ToolRunResult } from '../tools/tool-registry.ts';
import type { Embedder } from '../tools/tool-index.ts';
import type { McpConnectOptions, McpSamplingAnswer, McpSamplingRequest } from '../tools/mcp-options.ts';
import type { SamplingReport } from '../tools/mcp-sampling.ts';
import type { McpConnection } from '../tools/mcp-tools.ts';
import { McpServers } from '../tools/mcp-servers.ts';
import { ToolOffering, type ToolOfferingSettings } from '../loop/tool-offering.ts';
import { ANSWER_DEFAULTS, type ChatDefaults } from '../loop/answer-request.ts';
import { DEFAULT_TOOL_SELECTION, type ToolSelection } from '../tools/tool-selection.ts';
import { assertEmbeddingModel, DEFAULT_EMBEDDING_MODEL, embeddingModelKey, type ToolSearchStatus } from '../engine/embedding-model.ts';
import type { SemanticEncoder, ToolVectorStore } from '../tools/tool-vectors.ts';
import type { ArgsOf, ParameterNames, ParametersInput, ToolSchema } from '../tools/tool-schema.ts';
import { isNode } from './environment.ts';
import { ChatBusyError, ChatDisposedError, InvalidHistoryError } from './errors.ts';
import { inRealmRunner } from './in-realm-runner.ts';
import { loadChatForTools, loadModelRunner } from './loading.ts';
import { runModelTurn, type ModelTurnOptions, type ModelTurnResult } from './model-turn.ts';
import { buildRequest, preambleOf } from './request-setup.ts';

/** Options of {@link NexusChat.load}. */
export interface NexusLoadOptions extends NexusChatOptions, WorkerLoadOptions {}

/**
 * Options of {@link NexusChat.withEngine} and {@link NexusChat.load}: what the chat is built with, and the
 * defaults of every answer (each answer's {@link ChatOptions} may say otherwise for that answer).
 */
export interface NexusChatOptions
  extends Pick<ChatOptions, 'systemPrompt' | 'answerPrompt' | 'maxRounds' | 'maxResultChars' | 'toolSelection' | 'stopWhen' | 'toolEffects' | 'approve'> {
  /** The fetch handed to tool handlers (`context.fetch`); default `globalThis.fetch`. */
  fetch?: typeof globalThis.fetch;
  /**
   * Your own sentence embedder for the tool index's semantic ranking (instead of loading
   * `toolSelection.semantic` beside the chat model). Vectors should be normalised or comparable by cosine.
   */
  embedder?: Embedder;
  /**
   * Where tool vectors are kept between visits; default IndexedDB in a page, memory in Node;
   * `null` keeps none.
   */
  toolVectors?: ToolVectorStore | null;
}

/**
 * A chat with tools over one model. `chat()` runs whole answers: the loop renders the tools into
 * the model's template, escalates from an inline call to a primed and a stepwise one only when
 * needed, runs the handlers, and feeds the results back until the model answers.
 *
 * @example
 * const chat = NexusChat.withEngine(engine)
 *   .tool('get_weather', 'Get current weather for a city', { city: 'string' }, ({ city }) => lookUp(city));
 * chat.on('token', (text) => output.append(text));
 * const { text } = await chat.chat('Weather in Chennai?');
 */
export class NexusChat {
  /** Every answer's defaults, as the chat was built with them (an answer's options may override each). */
  private readonly defaults: AnswerDefaults;
  private readonly offering: ToolOffering;

  /** The system prompt answers use unless their options give one. */
  get systemPrompt(): string {
    return this.defaults.systemPrompt;
  }

  /** How to answer from results, said after the system prompt, unless an answer's options say otherwise. */
  get answerPrompt(): string {
    return this.defaults.answerPrompt;
  }

  /** Tool rounds per answer before the answer rounds, unless an answer's options say otherwise. */
  get maxRounds(): number {
    return this.defaults.maxRounds;
  }

  /** Cap on the characters of one tool result the model reads, unless an answer's options say otherwise. */
  get maxResultChars(): number {
    return this.defaults.maxResultChars;
  }

  /** When answers offer only the best-matching tools, and how many (a copy: give an answer's own in its options). */
  get toolSelection(): Readonly<ToolOfferingSettings> {
    return { ...this.defaults.toolSelection };
  }

  /** Where the semantic tool search stands (the `toolSearch` event says when it changes). */
  get toolSearch(): ToolSearchStatus {
    return this.offering.status;
  }

  /**
   * The sentence encoder the semantic tool search loaded, once it is ready: give it to a `DocumentIndex`
   * (`new DocumentIndex({ semantic: chat.sentenceEncoder })`) and documents rank by meaning as the tools do, with
   * no second model. Undefined while the tool search is off, not yet loaded (it loads for many tools, or with
   * {@link NexusChat.prepareTools}) or failed: the index then ranks by words alone.
   */
  get sentenceEncoder(): SemanticEncoder | undefined {
    return this.offering.encoder;
  }

  /** The tools the last answer offered and why each (undefined when it offered them all). */
  get lastToolSelection(): ToolSelection | undefined {
    return this.offering.lastSelection;
  }
  /** The last self-check of this model, or the verdict remembered from an earlier visit. */
  toolCheck: ToolCallCheck | ToolVerdict | undefined;

  /** The registered tools. */
  readonly tools = new ToolRegistry();
  private readonly events = new Emitter<ChatEvents>();
  private busy = false;
  private disposed = false;
  private readonly fetchForTools: typeof globalThis.fetch | undefined;
  private mcpServers: McpServers | undefined;
  /** Whether {@link NexusChat.mcp} was made here (closed with the chat) or handed in by {@link NexusChat.useMcpServers}. */
  private ownsMcpServers = false;

  /** Use {@link NexusChat.withEngine} (or `NexusChat.load`, which runs the model in a worker). */
  protected constructor(
    private readonly runner: AnswerRunner,
    options: NexusChatOptions = {},
  ) {
    this.fetchForTools = options.fetch;
    this.defaults = {
      systemPrompt: options.systemPrompt ?? ANSWER_DEFAULTS.systemPrompt,
      answerPrompt: options.answerPrompt ?? ANSWER_DEFAULTS.answerPrompt,
      maxRounds: options.maxRounds ?? ANSWER_DEFAULTS.maxRounds,
      maxResultChars: options.maxResultChars ?? ANSWER_DEFAULTS.maxResultChars,
      toolSelection: { ...DEFAULT_TOOL_SELECTION, ...options.toolSelection },
      stopWhen: [...(options.stopWhen ?? [])],
      toolEffects: { ...options.toolEffects },
      ...(options.approve ? { approve: options.approve } : {}),
    };
    this.offering = new ToolOffering({
      runner,
      embedder: options.embedder,
      vectorStore: options.toolVectors,
      persistentVectors: !isNode(),
      onStatus: (status) => this.events.emit('toolSearch', status),
      describeModel: (model) => describeSource(model.source),
      embeddingModels: { check: assertEmbeddingModel, key: embeddingModelKey },
    });
  }

  /** A chat over any {@link Engine}, in-process. */
  static withEngine(engine: Engine, options?: NexusChatOptions): NexusChat {
    return new NexusChat(inRealmRunner(engine), options);
  }

  /**
   * Loads a model and returns a chat over it. In a browser the model and the loop run in a Web
   * Worker (WebGPU when available, else WASM), and a failed quantization is retried down the
   * ladder in a fresh worker; in Node they run in-process on the CPU.
   *
   * @example
   * const chat = await NexusChat.load({ hub: 'onnx-community/Qwen3-0.6B-ONNX' });
   */
  static async load(source: ModelSource = DEFAULT_MODEL, options: NexusLoadOptions = {}): Promise<NexusChat> {
    checkLoadOptions(options);
    const { chat: built, load: loadOptions } = splitLoadOptions(options);
    const chatOptions: NexusChatOptions = {
      ...built,
      // A loaded model can run the default tool-search model beside it (fetched on first need).
      toolSelection: { ...(built.embedder ? {} : { semantic: { ...DEFAULT_EMBEDDING_MODEL } }), ...built.toolSelection },
    };
    const chat = new NexusChat(await loadModelRunner(source, loadOptions), chatOptions);
    chat.offering.hubUrl = loadOptions.hubUrl;
    return chat;
  }

  /**
   * Loads the first quantization that really calls tools on this machine (see
   * {@link loadForTools}); throws {@link NoToolCallingDtypeError} naming every dtype and why.
   *
   * @example
   * const chat = await NexusChat.loadForTools({ hub: 'onnx-community/Qwen3-0.6B-ONNX' }, { onAttempt: (a) => console.log(a) });
   */
  static async loadForTools(source: ModelSource = DEFAULT_MODEL, options: LoadForToolsOptions & Omit<NexusLoadOptions, 'onAttempt'> = {}): Promise<NexusChat> {
    return loadChatForTools(source, options, (s, loadOptions: Omit<NexusLoadOptions, 'onAttempt'>) => NexusChat.load(s, loadOptions));
  }

  /** A chat over any {@link AnswerRunner} (in-process, or a worker). */
  static withRunner(runner: AnswerRunner, options?: NexusChatOptions): NexusChat {
    return new NexusChat(runner, options);
  }

  /** Which model runs where. */
  get info(): EngineInfo {
    return this.runner.info;
  }

  /** How many tokens a prompt and its answer may take with this model on this device, and why (undefined: unknown, no limit applied). */
  get context(): ContextBudget | undefined {
    return this.runner.info.context;
  }

  /** The OpenAI envelopes of the registered tools. */
  get toolSchemas(): ToolSchema[] {
    return this.tools.schemas;
  }

  /** Registers a tool; see {@link ToolRegistry.tool}. Chains. */
  tool<const S extends ParametersInput, const R extends ParameterNames<S> = ParameterNames<S>>(
    name: string,
    description: string,
    parameters: S,
    handler: ToolHandler<ArgsOf<S, R>>,
    options?: ToolOptions<R>,
  ): this {
    this.tools.tool(name, description, parameters, handler, options);
    return this;
  }

  /**
   * Replaces the tools with those a plain `tools.js` registers; returns their names. The MCP servers
   * it names with `mcp(url, …)` connect in the background (see {@link NexusChat.mcp}; `await
   * chat.mcp.ready()` waits for them), and servers still connected keep their tools.
   */
  async loadTools(url: string | URL, options?: LoadToolsOptions): Promise<string[]> {
    const names = await loadTools(this.tools, url, options);
    this.afterToolsFile();
    return names;
  }

  /**
   * Replaces the tools with those `source` registers; returns their names.
   * Caution: runs `source` with the page's privileges. Only pass code the current user wrote.
   */
  async evalTools(source: string): Promise<string[]> {
    const names = await evalTools(this.tools, source);
    this.afterToolsFile();
    return names;
  }

  /**
   * The MCP servers this chat takes tools from, kept connected (reconnecting with backoff, tools
   * offered only while their server answers): those a tools file names, and any you declare with
   * `chat.mcp.declare(source, servers)`. For a single server, {@link NexusChat.connect} is simpler.
   */
  get mcp(): McpServers {
    if (!this.mcpServers) {
      this.mcpServers = new McpServers(this.tools, this.fetchForTools ? { fetch: this.fetchForTools } : {});
      this.ownsMcpServers = true;
    }
    return this.mcpServers;
  }

  /**
   * Takes tools from `servers` (a set of MCP servers kept by the page, which outlives any one chat):
   * their connected tools move into this chat's registry, and the chat's tools file declares into it.
   */
  useMcpServers(servers: McpServers): void {
    if (this.mcpServers && this.ownsMcpServers && this.mcpServers !== servers) void this.mcpServers.close();
    this.mcpServers = servers;
    this.ownsMcpServers = false;
    servers.attach(this.tools);
  }

  /** After a tools file replaced the tool set: its servers declared, and the connected servers' tools put back. */
  private afterToolsFile(): void {
    if (this.tools.mcpServers.length === 0 && !this.mcpServers) return;
    this.mcp.declare('tools.js', this.tools.mcpServers);
    this.mcp.attach(this.tools);
  }

  /**
   * Gets the tool index ready now, not at the first answer: with more tools than
   * `toolSelection.threshold` and a semantic ranking, loads its model (fetched on the first visit)
   * and embeds the tools (or reads their stored vectors). Call it after loading a `tools.js`.
   * Never throws: a failure is in the returned status, and answers then rank by words.
   * @param toolSelection - the selection the answers will give, over the chat's (the index it prepares is theirs).
   */
  prepareTools(toolSelection: Partial<ToolOfferingSettings> = {}): Promise<ToolSearchStatus> {
    return this.offering.prepare(this.tools, { ...this.defaults.toolSelection, ...toolSelection });
  }

  /** Subscribes to an event; returns the unsubscribe function. */
  on<K extends keyof ChatEvents>(event: K, listener: Listener<ChatEvents, K>): () => void {
    return this.events.on(event, listener);
  }

  /** Unsubscribes. */
  off<K extends keyof ChatEvents>(event: K, listener: Listener<ChatEvents, K>): void {
    this.events.off(event, listener);
  }

  /**
   * Answers `prompt`, calling tools as needed, after the conversation in `options.messages` (an earlier
   * reply's `messages`; none: a new conversation). The chat keeps no conversation: the reply gives the
   * conversation after the answer, and its `memory`, to pass to the next answer. With `signal` aborted
   * it rejects with an `AbortError` that carries the conversation as it stands (`messages`, `memory`:
   * the question, whole rounds and the visible text already produced, no half tool call).
   * @throws InvalidHistoryError when a tool message of `options.messages` answers no call before it.
   */
  async chat(prompt: string, givenOptions: ChatOptions = {}): Promise<ChatReply> {
    this.assertIdle();
    checkHistory(givenOptions.messages ?? []);
    // Busy from the first line: choosing the tools awaits, and a second chat() must not slip in.
    this.busy = true;
    try {
      return await this.answer(prompt, givenOptions);
    } finally {
      this.busy = false;
    }
  }

  /**
   * Goes on with the answer that was stopped (Continue after Stop): the model writes on from where that
   * answer's text ends, in the same answer, with no tools. `options.messages` must end with that text (as
   * a stopped answer's error carries it). Resolves like `chat()`, its `text` the whole answer, which then
   * ends the reply's `messages`; stopped again, the error's conversation keeps all that was written.
   * @throws InvalidHistoryError when the conversation does not end with an answer's text.
   */
  async continueAnswer(givenOptions: ChatOptions = {}): Promise<ChatReply> {
    this.assertIdle();
    const messages = givenOptions.messages ?? [];
    checkHistory(messages);
    const last = messages.at(-1);
    if (last?.role !== 'assistant' || last.tool_calls?.length || !last.content.trim()) {
      const ends = !last ? 'is empty' : last.role === 'assistant' ? 'ends with tool calls, not text' : `ends with a ${last.role} message`;
      throw new InvalidHistoryError(
        `There is no stopped answer to continue: the conversation ${ends}. Continue goes on from the text of an answer that was stopped (pass the conversation as options.messages); ask with chat() instead.`,
      );
    }
    this.busy = true;
    try {
      return await this.answer(undefined, { ...givenOptions, messages: messages.slice(0, -1), toolChoice: 'none' }, last.content);
    } finally {
      this.busy = false;
    }
  }

  /** One answer (or the continuation of one), the chat already marked busy by {@link NexusChat.chat}. */
  private async answer(prompt: string | undefined, optionsAsGiven: ChatOptions, continueFrom?: string): Promise<ChatReply> {
    // The passage search loads with the first answer over documents, not with every page that answers.
    const givenOptions = optionsAsGiven.documents ? (await import('./answer-documents.ts')).withDocuments(prompt, optionsAsGiven) : optionsAsGiven;
    const given = givenOptions.messages ?? [];
    const memoryBefore = memoryWithin(givenOptions.memory, given.length);
    const selected = await this.offering.select({
      prompt: prompt ?? continueFrom ?? '',
      options: givenOptions,
      registry: this.answerTools(givenOptions),
      history: given,
      settings: { ...this.defaults.toolSelection, ...givenOptions.toolSelection },
    });
    const options = selected.options;
    const registry = selected.registry;
    // A side conversation talks to nobody: its events go to a listener-less emitter.
    const events = options.isolated ? new Emitter<ChatEvents>() : this.events;
    const request = await buildRequest({
      defaults: this.answerDefaults(options),
      info: this.runner.info,
      registry,
      options,
      history: given,
      prompt,
      instructions: options.instructions,
      extra: {
        ...(selected.selection ? { acceptUnoffered: true } : {}),
        memory: memoryBefore,
        ...(continueFrom === undefined ? {} : { continueFrom }),
      },
    });
    const messages = request.messages;
    /** The answer as it happens: its steps (every event but `token` is their projection), and the visible text of the round in progress. */
    const steps: Step[] = [];
    let visibleTextOfRound = '';
    const stopListening = options.onStepFinish ? events.on('stepFinish', options.onStepFinish) : undefined;
    const prepareStep = options.prepareStep;
    const effects = { ...this.defaults.toolEffects, ...options.toolEffects, ...selected.effects, ...options.toolkit?.effects };
    const stopWhen = [...this.defaults.stopWhen, ...(options.stopWhen ?? [])];
    const approve = options.approve ?? this.defaults.approve;
    try {
      const outcome = await this.runner.run(
        {
          ...request,
          preamble: preambleOf(request, selected.selection, stopWhen.filter(isStopRule)),
          asksAnswerNow: Boolean(options.answerNow),
          asksPrepareStep: Boolean(prepareStep),
          ...(stopWhen.some(isStopRule) ? { stopRules: stopWhen.filter(isStopRule) } : {}),
        },
        {
          ...(options.signal ? { signal: options.signal } : {}),
          runTool: (name, args, limits) =>
            this.runTool(registry, name, args, { signal: options.signal, maxResultChars: limits?.maxResultChars }, effects[name], approve),
          onStep: (step) => {
            steps.push(step);
            if (step.kind === 'round') visibleTextOfRound = '';
            emitStep(events, step);
          },
          onToken: (text) => {
            visibleTextOfRound += text;
            events.emit('token', text);
          },
          stopWhen: stopWhen.filter((c): c is StopCondition => !isStopRule(c)),
          ...(options.answerNow ? { answerNowPrompt: async () => options.answerNow?.() } : {}),
          ...(prepareStep ? { prepareStep: async (round) => prepareStep({ round, steps: [...steps], messages: [...messages, ...messagesOf(steps)] }) } : {}),
        },
      );
      // The answer's turns are derived from its steps, whole rounds only: the conversation is consistent either way.
      const after: ChatMessage[] = [...messages.slice(1), ...messagesOf(steps)];
      const memory = memoryOf(steps, memoryBefore);
      if (outcome.ok) return { ...outcome.answer, messages: after, memory };
      // Stopped, the conversation keeps the visible text; a continuation keeps what was written before it either way.
      if (isAbortError(outcome.error)) {
        const partial = `${continueFrom ?? ''}${visibleTextOfRound}`.trim();
        const stopped: StoppedConversation = { messages: partial ? [...after, { role: 'assistant', content: partial }] : after, memory };
        if (outcome.error instanceof Object) Object.assign(outcome.error, stopped);
      }
      throw outcome.error;
    } finally {
      stopListening?.();
    }
  }

  /**
   * One model turn over a conversation given whole, its calls handed back unrun: what the AI SDK
   * provider runs per SDK step (the SDK executes the tools and asks again with their results). The
   * turn climbs the same rungs as {@link chat} (inline, the yes/no check, primed, stepwise) as
   * `toolChoice` asks; it hands over calls to the given tools only, their arguments validated and
   * coerced (a call whose arguments do not validate is asked again argument by argument, else
   * dropped). The chat's own conversation, tools and listeners are not touched.
   *
   * @param messages - the conversation so far, without a system message (give that as `instructions`).
   * @param options - the tools, how to choose, limits, and where the turn streams.
   * @throws ToolDefinitionError naming a tool whose schema cannot be used; the option errors of {@link chat}.
   */
  async modelTurn(messages: readonly ChatMessage[], options: ModelTurnOptions): Promise<ModelTurnResult> {
    this.assertIdle();
    this.busy = true;
    try {
      return await this.turn(messages, options);
    } finally {
      this.busy = false;
    }
  }

  /**
   * Answers an MCP server's sampling request (`sampling/createMessage`) with this model: the request's
   * messages through the model's own chat template, no tools, its `maxTokens` (at most
   * {@link MAX_SAMPLING_TOKENS}), stop sequences and temperature honoured; model preferences cannot pick
   * another model and are declined by name in `report`. It may run while an answer waits on the tool
   * whose server asks (the engine takes one generation at a time). Ask the user first: pass it as
   * `sample` to `connect()` behind your approval.
   * @param request - the server's request.
   * @param options - `signal` stops it.
   * @throws McpSamplingError for a request without messages or with a role MCP does not have;
   * ContextOverflowError when the messages do not fit the model's context.
   */
  async sampleForMcp(request: McpSamplingRequest, options: { signal?: AbortSignal } = {}): Promise<McpSamplingAnswer & { report: SamplingReport }> {
    if (this.disposed) throw new ChatDisposedError('This chat was disposed. Load the model again to keep chatting.');
    // Loaded with the first request: a page whose servers never ask does not carry it.
    const { answerSampling } = await import('../tools/mcp-sampling.ts');
    return answerSampling(
      request,
      async (turn) => {
        const result = await this.turn(turn.messages, {
          tools: [],
          toolChoice: 'none',
          instructions: turn.instructions,
          maxNewTokens: turn.maxNewTokens,
          ...(turn.temperature ? { sampling: { temperature: turn.temperature } } : {}),
          signal: turn.signal,
          onToken: turn.onToken,
        });
        return { text: result.text, outputTokens: result.usage.newTokens };
      },
      this.runner.info.model,
      options.signal,
    );
  }

  /** One model turn (see {@link modelTurn}), whether or not an answer is running. */
  private turn(messages: readonly ChatMessage[], options: ModelTurnOptions): Promise<ModelTurnResult> {
    return runModelTurn(this.runner, this.answerDefaults(options), messages, options);
  }

  /**
   * Connects an MCP server (Streamable HTTP, or the older HTTP+SSE): its tools join this chat's,
   * namespaced where a name is taken; one not marked read-only asks for approval unless `trust` is
   * set; a stopped answer cancels its call on the server. `close()` on the result removes them.
   * @param url - the server's MCP endpoint.
   * @param options - headers, trust, timeouts.
   * @throws McpConnectError naming the address when it is not an MCP server or does not answer in time.
   */
  async connect(url: string, options: McpConnectOptions = {}): Promise<McpConnection> {
    const { connectMcp } = await import('../tools/mcp-tools.ts');
    return connectMcp(url, this.tools, { ...(this.fetchForTools ? { fetch: this.fetchForTools } : {}), ...options });
  }

  /** The registry an answer runs with: the chat's own, the toolkit's, or both (the toolkit's winning a shared name). */
  private answerTools(options: ChatOptions): ToolRegistry {
    const toolkit = options.toolkit;
    if (!toolkit) return this.tools;
    if (!toolkit.withChatTools) return toolkit.tools;
    const merged = new ToolRegistry();
    const own = this.tools.snapshot().tools.filter((tool) => toolkit.tools.resolveName(tool.name) === undefined);
    merged.restore({ tools: [...own, ...toolkit.tools.snapshot().tools] });
    return merged;
  }

  /**
   * Verifies that this model and quantization really call a tool and answer from its result, on
   * this machine. Safe right after `load()`: the chat's tools and listeners are untouched.
   *
   * @param options - `random`: the source of the question and the fresh token (default
   * `Math.random`); pass a seeded one to make a check reproducible. `signal`: cancels the check
   * (it rejects with an `AbortError` and leaves `toolCheck` as it was).
   */
  async selfCheck(options: { random?: () => number; signal?: AbortSignal } = {}): Promise<ToolCallCheck> {
    const check = await runSelfCheck(this, options.random, options.signal);
    this.toolCheck = check;
    return check;
  }

  /** Frees the model. The chat cannot be used afterwards. */
  async dispose(): Promise<void> {
    if (this.disposed) return;
    this.disposed = true;
    if (this.ownsMcpServers) await this.mcpServers?.close();
    await this.runner.dispose();
  }

  private assertIdle(): void {
    if (this.disposed) throw new ChatDisposedError('This chat was disposed. Load the model again to keep chatting.');
    if (this.busy) throw new ChatBusyError('An answer is still running on this chat. Wait for it, or abort it with the signal you passed to chat().');
  }

  /** The prompts and limits of one answer: its options over the chat's defaults. */
  private answerDefaults(options: Pick<ChatOptions, 'systemPrompt' | 'answerPrompt' | 'maxRounds' | 'maxResultChars'>): ChatDefaults {
    return {
      systemPrompt: options.systemPrompt ?? this.defaults.systemPrompt,
      answerPrompt: options.answerPrompt ?? this.defaults.answerPrompt,
      maxRounds: options.maxRounds ?? this.defaults.maxRounds,
      maxResultChars: options.maxResultChars ?? this.defaults.maxResultChars,
    };
  }

  private async runTool(
    registry: ToolRegistry,
    name: string,
    args: Record<string, unknown>,
    { signal, maxResultChars }: ToolRunOptions,
    effectOf: ((outcome: ToolRunResult) => ToolEffects | undefined) | undefined,
    approve: ApprovalHandler | undefined,
  ): Promise<ToolRunOutcome> {
    const fetch = this.fetchForTools;
    const outcome = await registry.runTool(name, args, {
      ...(fetch ? { fetch } : {}),
      ...(signal ? { signal } : {}),
      ...(approve ? { approve } : {}),
      ...(maxResultChars ? { maxResultChars } : {}),
    });
    const effects = effectOf?.(outcome);
    if (outcome.ok) return { ok: true, value: outcome.result, ...(outcome.details ? { details: outcome.details } : {}), ...(effects ? { effects } : {}) };
    return { ok: false, kind: outcome.failure, message: outcome.error, ...(effects ? { effects } : {}) };
  }
}

/** What every answer of a chat starts from: its prompts and limits, tool selection, stop conditions, tool effects and approver. */
interface AnswerDefaults extends ChatDefaults {
  toolSelection: ToolOfferingSettings;
  stopWhen: ReadonlyArray<StopCondition | StopRule>;
  toolEffects: Readonly<Record<string, (outcome: ToolRunResult) => ToolEffects | undefined>>;
  approve?: ApprovalHandler;
}

/** The options a chat is built with, told from those that load its model: every key of {@link NexusChatOptions}, so none is forgotten. */
const CHAT_OPTION_KEYS: Readonly<Record<keyof NexusChatOptions, true>> = {
  fetch: true,
  approve: true,
  embedder: true,
  toolVectors: true,
  systemPrompt: true,
  answerPrompt: true,
  maxRounds: true,
  maxResultChars: true,
  toolSelection: true,
  stopWhen: true,
  toolEffects: true,
};

/** `load()`'s options, split once into the chat's and the loader's (an option left undefined is left out). */
function splitLoadOptions(options: NexusLoadOptions): { chat: NexusChatOptions; load: WorkerLoadOptions } {
  const chat: Record<string, unknown> = {};
  const load: Record<string, unknown> = {};
  for (const [key, value] of Object.entries(options)) {
    if (value === undefined) continue;
    (Object.hasOwn(CHAT_OPTION_KEYS, key) ? chat : load)[key] = value;
  }
  return { chat: chat as NexusChatOptions, load: load as WorkerLoadOptions };
}

/** Refuses a conversation in which a tool message answers no call of the assistant turn before it. */
function checkHistory(messages: readonly ChatMessage[]): void {
  const pending = new Set<string>();
  for (const [i, m] of messages.entries()) {
    if (m.role === 'assistant') {
      pending.clear();
      for (const call of m.tool_calls ?? []) pending.add(call.id);
    } else if (m.role === 'tool' && !pending.delete(m.tool_call_id)) {
      throw new InvalidHistoryError(`Message ${i} answers tool call '${m.tool_call_id}', which the assistant turn before it did not make.`);
    } else if (m.role === 'user') pending.clear();
  }
}

/** A memory view handed with `messages`, kept inside the history it indexes (none: the whole history). */
function memoryWithin(view: MemoryView | undefined, length: number): MemoryView {
  if (!view) return FULL_MEMORY;
  const clamp = (n: unknown) => (typeof n === 'number' && Number.isInteger(n) ? Math.min(Math.max(n, 0), length) : 0);
  return { from: clamp(view.from), shortenBefore: clamp(view.shortenBefore) };
}
