import { BoundedTemplate } from './bounded-template.ts';
import {
  AutoModelForCausalLM,
  AutoTokenizer,
  DynamicCache,
  InterruptableStoppingCriteria,
  StoppingCriteria,
  Tensor,
  type PreTrainedModel,
  type PreTrainedTokenizer,
} from '@huggingface/transformers';
import { abortError, throwIfAborted } from '../shared/abort.ts';
import { AppendedKvSession, hasAppendedKv, type KvCachePath, type MakeTensor, type OrtSessionLike, type OrtTensorLike } from './appended-kv-session.ts';
import { ChoiceTrie } from './choice-trie.ts';
import { contextBudget, type ContextConfig } from './context-budget.ts';
import type { ChatMessage, Engine, EngineInfo, GenerateOptions, GenerateResult, RenderOptions } from './engine.ts';
import { detectFamily, type DetectedFamily } from './detect-family.ts';
import { cropCache } from './kv-cache.ts';
import { ChoiceLogitsProcessor, NucleusLogitsProcessor, RepetitionPenaltyBesidesResults, withProcessors } from './logits-processors.ts';
import { stopStringWatcher } from './stop-strings.ts';
import { yieldBeforeEachStep } from './yield-to-event-loop.ts';
import { MODEL_FAMILIES } from './families.ts';
import { fixChatTemplate, type FamilyId, type ModelFamily } from './model-family.ts';
import { TOKENIZER_FILES } from './model-source.ts';
import { adoptedFamily, adoptTemplate, refuseTools } from './template-analysis.ts';
import { type RawTemplateRender, renderInDialect, STANDARD_DIALECT, type TemplateDialect } from './template-dialect.ts';
import { piecesAt, TokenGuard } from './token-guard.ts';
import { rememberedTokenizer, type TokenizerSource, tokenizerKey } from './tokenizer-memo.ts';
import { TokenTranscript } from './token-transcript.ts';

/** A transformers.js progress event (`initiate`, `download`, `progress`, `done`, `progress_total`, …). */
export interface LoadProgress {
  /** transformers.js' `initiate`, `download`, `progress`, `done`; ours: `plan` (the files ahead, with sizes) and `warmup`. */
  status: string;
  file?: string;
  name?: string;
  progress?: number;
  loaded?: number;
  total?: number;
  /** With `plan`: every file the load will read and its size, before the first byte of weights. */
  files?: { file: string; total: number }[];
}

/** Where a loaded model lives and how it is named to transformers.js (set up by a model source). */
export interface ResolvedModel {
  /** The id transformers.js resolves through its `env` (hub id, or a folder name under `localModelPath`). */
  id: string;
  /** What the user calls it (shown in `info.model`). */
  label: string;
  revision?: string;
  /** Where its tokenizer's files come from: a tokenizer parsed already in this realm is taken again (tokenizer-memo.ts). */
  tokenizerFrom?: TokenizerSource;
}

/**
 * The tokenizer with each of its chat templates fixed for transformers.js' Jinja (`fixChatTemplate`): done once,
 * before the tokenizer is remembered, so a remembered one is never fixed twice.
 */
function withFixedChatTemplates<T>(tokenizer: T): T {
  const holder = tokenizer as unknown as { chat_template: string | Record<string, string> | null };
  if (typeof holder.chat_template === 'string') holder.chat_template = fixChatTemplate(holder.chat_template);
  else if (holder.chat_template) holder.chat_template = Object.fromEntries(Object.entries(holder.chat_template).map(([k, v]) => [k, fixChatTemplate(v)]));
  return withBoundedTemplates(tokenizer);
}

/**
 * The tokenizer with each of its chat templates compiled as a {@link BoundedTemplate}, in the cache its
 * `apply_chat_template` compiles into: every render of the model's template, at load and for each prompt, is
 * then bounded in steps, time and text (issue 67, L7), with transformers.js still choosing the template and
 * passing its special tokens.
 * @throws Error where this transformers.js keeps no such cache: a render would not be bounded.
 */
function withBoundedTemplates<T>(tokenizer: T): T {
  const holder = tokenizer as unknown as { chat_template: string | Record<string, string> | null; _compiled_template_cache?: unknown };
  const cache = holder._compiled_template_cache;
  if (!(cache instanceof Map))
    throw new Error("This transformers.js compiles chat templates where the library cannot bound them (no tokenizer '_compiled_template_cache').");
  const sources = typeof holder.chat_template === 'string' ? [holder.chat_template] : Object.values(holder.chat_template ?? {});
  for (const source of sources) {
    if (typeof source !== 'string' || cache.has(source)) continue;
    let compiled: { render(context: Record<string, unknown>): string };
    try {
      compiled = new BoundedTemplate(source);
    } catch (error) {
      // A template too long, or one that does not parse, fails where it is rendered, as transformers.js' own would.
      compiled = {
        render: () => {
          throw error;
        },
      };
    }
    cache.set(source, compiled);
  }
  return tokenizer;
}

/** The WebGPU adapter's largest storage buffer binding, where this realm has WebGPU: one layer's KV cache must fit it. */
async function adapterBufferLimit(): Promise<number | undefined> {
  const gpu = (globalThis.navigator as { gpu?: { requestAdapter(): Promise<{ limits: { maxStorageBufferBindingSize: number } } | null> } } | undefined)?.gpu;
  const adapter = await gpu?.requestAdapter().catch(() => null);
  return adapter?.limits.maxStorageBufferBindingSize;
}

/** Options of {@link TransformersEngine.load}. */
export interface TransformersLoadOptions {
  dtype: string;
  /** `webgpu`, `wasm` (browser) or `cpu` (Node). */
  device: string;
  onProgress?: (event: LoadProgress) => void;
  /** Use this family's profile instead of the detected one. */
  family?: FamilyId;
  /** ONNX Runtime's intra-op threads on the CPU (Node); default NEXUS_ORT_THREADS, else its own choice. */
  numThreads?: number;
  /**
   * Texts the caller's parser reads (the facade passes the parser's `CALL_MARKERS`): those that are
   * special tokens of this tokenizer stay in generated text instead of being dropped. The family's
   * own markers and thinking tags always do.
   */
  keepMarkers?: readonly string[];
  /**
   * Reuse the KV cache across generations (default true). Off, every prompt is computed from
   * scratch — only useful to measure what the transcript saves.
   */
  reuseCache?: boolean;
  /**
   * Prompt tokens computed per forward pass (default {@link PREFILL_CHUNK}). A long prompt is fed in
   * chunks that extend the KV cache, so the logits and attention scores held at once grow with the
   * chunk, not with the prompt.
   */
  prefillChunk?: number;
}

/**
 * Prompt tokens per prefill pass. In one pass, a model keeps logits for every position (vocabulary ×
 * prompt: 2.3 GB for Qwen3's 151,936 tokens at 4,000 positions) and attention scores for every pair;
 * in chunks of this size, a few hundred MB at most.
 */
const PREFILL_CHUNK = 512;

/** Stops once the generated text contains one of the stop strings, or a choice is complete. */
class TextStoppingCriteria extends StoppingCriteria {
  constructor(
    private readonly done: (generated: number[]) => boolean,
    private readonly promptLength: number,
  ) {
    super();
  }

  override _call(inputIds: (number | bigint)[][]): boolean[] {
    return inputIds.map((ids) => this.done(ids.slice(this.promptLength).map(Number)));
  }
}

/**
 * Streams generated text decoded the way the parser reads it (see {@link TransformersEngine}):
 * the whole generation is decoded again on each step and only the new tail is sent, held back
 * while it ends in half a UTF-8 character.
 */
class GenerationStreamer {
  private ids: number[] = [];
  private sent = 0;
  private promptSeen = false;

  constructor(
    private readonly decode: (ids: number[]) => string,
    private readonly onText: (text: string) => void,
  ) {}

  put(value: bigint[][]): void {
    if (!this.promptSeen) {
      this.promptSeen = true;
      return;
    }
    this.ids.push(...(value[0] ?? []).map(Number));
    this.flush(false);
  }

  end(): void {
    this.flush(true);
  }

  private flush(final: boolean): void {
    const text = this.ids.length ? this.decode(this.ids) : '';
    if (!final && text.endsWith('\uFFFD')) return;
    if (text.length > this.sent) this.onText(text.slice(this.sent));
    this.sent = Math.max(this.sent, text.length);
  }
}

/** What {@link renderWithTokenizer} needs of a tokenizer (structural, so the declarations do not pull in transformers.js' types). */
export interface ChatTemplateTokenizer {
  apply_chat_template(conversation: never, options: never): unknown;
}

/** A tokenizer's chat template as a {@link RawTemplateRender}: transformers.js passes extra arguments (`xml_tools`, `enable_thinking`) to the template. */
export function renderWithTokenizer(tokenizer: ChatTemplateTokenizer): RawTemplateRender {
  return (messages, args) => tokenizer.apply_chat_template(messages as never, { ...args, tokenize: false } as never) as unknown as string;
}

/**
 * Puts an {@link AppendedKvSession} in front of a model whose graph has the appended KV layout, so
 * transformers.js' generation runs it without a cache of its own; undefined for any other model.
 */
function adoptAppendedKv(model: unknown, maxTokens: number | undefined): AppendedKvSession | undefined {
  const sessions = (model as { sessions?: Record<string, OrtSessionLike> }).sessions;
  const session = sessions?.model;
  if (!sessions || !session || !hasAppendedKv(session)) return undefined;
  const makeTensor: MakeTensor = (type, data, dims) => (new Tensor(type, data, dims) as unknown as { ort_tensor: OrtTensorLike }).ort_tensor;
  const appended = new AppendedKvSession(session, makeTensor, maxTokens ? { maxTokens } : {});
  sessions.model = appended.asSession();
  return appended;
}

/**
 * Every added token of a tokenizer (special or not: `<tool_call>` is one in Qwen's), as text. transformers.js
 * 4.3.2 keeps them on its inner tokenizer; older builds and the raw JSON carry them too.
 */
function addedTokenTexts(tokenizer: unknown): string[] {
  type Added = { content?: unknown }[] | undefined;
  const t = tokenizer as { added_tokens?: Added; _tokenizer?: { added_tokens?: Added }; _tokenizerJSON?: { added_tokens?: Added } };
  const list = t._tokenizer?.added_tokens ?? t.added_tokens ?? t._tokenizerJSON?.added_tokens ?? [];
  return list.map((a) => a.content).filter((c): c is string => typeof c === 'string');
}

/** Image and audio inputs a multimodal model's generation step may carry. */
const MODALITY_INPUTS = ['pixel_values', 'pixel_values_videos', 'image_grid_thw', 'video_grid_thw', 'audio_values', 'input_features'] as const;

/**
 * Lets a multimodal model loaded text-only (Qwen3.5) continue a cache with several new tokens.
 * transformers.js 4.3.2's Qwen2-VL family sets `pixel_values: null` once a cache is given, and its
 * forward then counts that null as an image and calls the vision encoder, which a text-only load does
 * not have ("Cannot read properties of undefined (reading 'inputNames')"). Null modality inputs are
 * dropped instead; real images are never passed here.
 */
function withoutNullModalities(model: unknown): void {
  const m = model as { prepare_inputs_for_generation?: (...args: unknown[]) => Record<string, unknown> };
  const prepare = m.prepare_inputs_for_generation?.bind(model);
  if (!prepare) return;
  m.prepare_inputs_for_generation = (...args: unknown[]) => {
    const inputs = prepare(...args);
    for (const name of MODALITY_INPUTS) if (inputs[name] === null) delete inputs[name];
    return inputs;
  };
}

/** Whether a model's decoder takes recurrent state (`past_conv.*`, `past_recurrent.*`, `past_ssm.*`) beside or instead of a KV cache. */
function hasRecurrentState(model: unknown): boolean {
  const sessions = (model as { sessions?: Record<string, { inputNames?: readonly string[] }> }).sessions ?? {};
  const decoder = sessions.decoder_model_merged ?? sessions.model;
  return (decoder?.inputNames ?? []).some((name) => /^past_(conv|recurrent|ssm)\b/.test(name));
}

/** Where a present cache's tensors are: all on the GPU, or (any of them) in JavaScript arrays. */
function presentCachePlace(cache: DynamicCache, known: KvCachePath | undefined): KvCachePath | undefined {
  const tensors = Object.values(cache as unknown as Record<string, Tensor>);
  if (!tensors.length) return known;
  return tensors.every((tensor) => tensor.location === 'gpu-buffer') ? 'present-on-gpu' : 'present-copied';
}

/**
 * A progress callback that forwards to `forward` and settles `read` once every tokenizer file has
 * been read (transformers.js says `done` for each, from the network or the cache alike).
 */
function tokenizerFilesRead(forward?: (event: unknown) => void): { onProgress: (event: unknown) => void; read: Promise<void> } {
  const pending = new Set<string>(TOKENIZER_FILES);
  let settle!: () => void;
  const read = new Promise<void>((resolve) => (settle = resolve));
  const onProgress = (event: unknown) => {
    const { status, file } = (event ?? {}) as { status?: string; file?: string };
    if (status === 'done' && file && pending.delete(file) && pending.size === 0) settle();
    forward?.(event);
  };
  return { onProgress, read };
}

/**
 * The real engine: transformers.js (`AutoTokenizer` + `AutoModelForCausalLM`), the same code in a
 * browser worker (WebGPU or WASM) and in Node (onnxruntime-node, CPU).
 *
 * It keeps the exact token ids its KV cache holds ({@link TokenTranscript}). A prompt that
 * repeats part of what the cache holds reuses it (cut back to the shared prefix if needed) and
 * feeds only the new tokens; anything else is computed from scratch. Decoding is greedy.
 */
export class TransformersEngine implements Engine {
  readonly info: EngineInfo;
  readonly family: ModelFamily;
  /** How this model's chat template wants tools, calls and results (probed at load). */
  private dialect: TemplateDialect = STANDARD_DIALECT;
  private readonly transcript: TokenTranscript;
  private cache: DynamicCache | undefined;
  /** The model's own KV buffers when it has the appended layout (`this.cache` then stays empty). */
  private readonly appended: AppendedKvSession | undefined;
  /**
   * Whether the cache holds recurrent state beside the KV (Qwen3.5's linear-attention layers): such
   * a state cannot be cut back to a prefix, so a prompt reuses it only when it extends it exactly.
   */
  private readonly recurrent: boolean;
  private readonly endTokens: number[];
  /** Special tokens dropped from generated text: all of them except the markers kept. */
  private readonly droppedIds: ReadonlySet<number>;
  /** The special tokens of this tokenizer that stay in generated text, so the parser sees them. */
  readonly keptSpecialTokens: readonly string[];
  private readonly reuseCache: boolean;
  private readonly prefillChunk: number;
  /** Keeps control tokens in untrusted text from becoming tokens. */
  private readonly guard: TokenGuard;
  private busy: Promise<unknown> = Promise.resolve();
  private disposed = false;

  private constructor(
    private readonly tokenizer: PreTrainedTokenizer,
    private readonly model: PreTrainedModel,
    info: Omit<EngineInfo, 'family'>,
    detected: DetectedFamily,
    {
      reuseCache,
      keepMarkers,
      prefillChunk,
      appended,
    }: { reuseCache: boolean; keepMarkers: readonly string[]; prefillChunk: number; appended: AppendedKvSession | undefined },
  ) {
    this.reuseCache = reuseCache;
    this.appended = appended;
    this.guard = new TokenGuard(addedTokenTexts(tokenizer));
    this.recurrent = info.kvCache === 'recurrent';
    this.prefillChunk = prefillChunk;
    this.family = detected.family;
    this.info = { ...info, family: detected.info };
    // A Stop sent to the worker must be seen within a token, not when the generation ends.
    yieldBeforeEachStep(model as unknown as Parameters<typeof yieldBeforeEachStep>[0]);
    this.transcript = new TokenTranscript({
      encode: (text) => this.tokenizer.encode(text, { add_special_tokens: false }),
      decode: (ids) => this.tokenizer.decode([...ids], { skip_special_tokens: false }),
    });
    const eos = (model as unknown as { generation_config?: { eos_token_id?: number | number[] } }).generation_config?.eos_token_id;
    const configured = Array.isArray(eos) ? eos : eos === undefined ? [] : [eos];
    const single = (text: string) => {
      const ids = this.tokenizer.encode(text, { add_special_tokens: false });
      return ids.length === 1 ? ids : [];
    };
    this.endTokens = [...new Set([...configured, ...this.family.endTokens.flatMap(single)])];
    // Call markers that are special tokens (LFM2, FunctionGemma, Llama's <|python_tag|>) must reach
    // the parser: keep the family's own, its thinking tags, and every marker the caller's parser
    // reads (a model may answer in a dialect it was not asked for).
    const thinking = this.family.thinking ? [this.family.thinking.open, this.family.thinking.close] : [];
    const kept = new Set([...this.family.keepTokens, ...thinking, ...keepMarkers].flatMap(single));
    const specialIds = (this.tokenizer as unknown as { all_special_ids?: number[] }).all_special_ids ?? [];
    this.droppedIds = new Set(specialIds.filter((id) => !kept.has(id)));
    this.keptSpecialTokens = specialIds.filter((id) => kept.has(id)).map((id) => this.tokenizer.decode([id], { skip_special_tokens: false }));
  }

  /** Generated ids as text: special tokens dropped, except the call markers the parser needs. */
  private decodeGenerated(ids: number[]): string {
    const visible = ids.filter((id) => !this.droppedIds.has(id));
    return visible.length ? this.tokenizer.decode(visible, { skip_special_tokens: false }) : '';
  }

  /**
   * Loads tokenizer and model. The source must already be set up in transformers.js' `env`
   * (see `model-source.ts`); this only names it.
   */
  static async load(model: ResolvedModel, options: TransformersLoadOptions): Promise<TransformersEngine> {
    const common = {
      ...(model.revision ? { revision: model.revision } : {}),
      ...(options.onProgress ? { progress_callback: options.onProgress as (event: unknown) => void } : {}),
    };
    const threads = options.device === 'cpu' ? (options.numThreads ?? cpuThreads()) : undefined;
    // The runtime's start-up (compiling its WASM, creating the session) overlaps the tokenizer's
    // parsing, most of a load from the cache. The weights are asked for only once the tokenizer's
    // files are in: a folder without them fails before hundreds of megabytes start downloading.
    const tokenizerFiles = tokenizerFilesRead(common.progress_callback);
    const { tokenizer: tokenizerLoad, remembered } = rememberedTokenizer(model.tokenizerFrom ? await tokenizerKey(model.tokenizerFrom) : undefined, () =>
      AutoTokenizer.from_pretrained(model.id, { ...common, progress_callback: tokenizerFiles.onProgress }).then(withFixedChatTemplates),
    );
    // Its files are read already: a progress display that listed them sees them done.
    if (remembered) for (const file of TOKENIZER_FILES) common.progress_callback?.({ status: 'done', name: model.id, file });
    const modelLoad = Promise.race([tokenizerFiles.read, tokenizerLoad]).then(() =>
      AutoModelForCausalLM.from_pretrained(model.id, {
        ...common,
        dtype: options.dtype as 'q4',
        device: options.device as 'cpu',
        ...(threads !== undefined ? { session_options: { intraOpNumThreads: threads, interOpNumThreads: 1 } } : {}),
      }),
    );
    // A model that finishes loading after its tokenizer failed is released, not left holding memory.
    tokenizerLoad.catch(() =>
      modelLoad.then(
        (orphan) => orphan.dispose(),
        () => undefined,
      ),
    );
    const [tokenizer, loaded] = await Promise.all([tokenizerLoad, modelLoad]);
    const holder = tokenizer as unknown as { chat_template: string | Record<string, string> | null };
    const config = (loaded as unknown as { config?: ContextConfig & { model_type?: string; architectures?: string[] } }).config ?? {};
    const found = detectFamily({
      ...(config.model_type ? { modelType: config.model_type } : {}),
      ...(config.architectures ? { architectures: config.architectures } : {}),
      chatTemplate: holder.chat_template,
    });
    const chosen = options.family && options.family !== found.family.id ? chosenFamily(options.family, found) : found;
    // The call syntax is learned from the template, unless the caller chose the profile.
    const adopted = await adoptTemplate(renderWithTokenizer(tokenizer), chosen.family, { learn: !options.family });
    const detected = adoptedFamily(chosen, adopted);
    const cores = threads ?? nodeCores();
    const cpu = options.device === 'cpu' && cores !== undefined ? { threads: cores } : {};
    const maxBufferBytes = options.device === 'webgpu' ? await adapterBufferLimit() : undefined;
    const context = contextBudget({
      config,
      familyContextLength: detected.family.contextLength,
      device: options.device,
      dtype: options.dtype,
      maxBufferBytes,
    });
    withoutNullModalities(loaded);
    const appended = adoptAppendedKv(loaded, context?.tokens);
    // A present cache's place is known once a step has returned one (the warm-up's): see generateNow.
    const kvCache: KvCachePath = hasRecurrentState(loaded)
      ? 'recurrent'
      : appended
        ? 'appended'
        : options.device === 'webgpu'
          ? 'present-on-gpu'
          : 'present-copied';
    const engine = new TransformersEngine(
      tokenizer,
      loaded,
      { model: model.label, device: options.device, dtype: options.dtype, ...cpu, context, kvCache },
      detected,
      {
        reuseCache: options.reuseCache ?? true,
        keepMarkers: options.keepMarkers ?? [],
        prefillChunk: options.prefillChunk && options.prefillChunk > 0 ? options.prefillChunk : PREFILL_CHUNK,
        appended,
      },
    );
    engine.dialect = adopted.probe.dialect;
    // The generic profile's end tokens are guesses; a learned syntax brings the template's own end of turn.
    const missing = engine.family.id === 'generic' && !engine.family.callSyntax ? undefined : engine.missingMarkers();
    if (!adopted.problem && missing) refuseTools(engine.info.family, missing);
    return engine;
  }

  /**
   * Why this tokenizer cannot speak its family's dialect, when it cannot: none of the family's end
   * tokens is one token of it (a template of one family over another family's tokenizer), so no
   * turn could be told to have ended.
   */
  private missingMarkers(): string | undefined {
    const single = (text: string) => this.tokenizer.encode(text, { add_special_tokens: false }).length === 1;
    if (this.family.endTokens.some(single)) return undefined;
    return `has a ${this.family.label} template, but its tokenizer has none of that family's end tokens (${this.family.endTokens.join(', ')}) as one token`;
  }

  /**
   * Renders through the model's own template. Outside text (results, pages, MCP results and schemas,
   * user and imported messages, reasoning, call arguments, marked spans of the system message) is
   * guarded: the prompt carries marks around any control token in it, and the encoder reads those as
   * ordinary text ({@link TokenGuard}).
   */
  async render(messages: ChatMessage[], options: RenderOptions): Promise<string> {
    const tools = this.guard.tools(options.tools);
    const rendered = await renderInDialect(renderWithTokenizer(this.tokenizer), this.dialect, this.family, this.guard.messages(messages), {
      ...options,
      ...(tools ? { tools } : {}),
    });
    return this.guard.reveal(rendered);
  }

  /** The token ids `prompt` is fed as, outside text guarded (for tests and diagnostics). */
  tokenize(prompt: string): number[] {
    const { text, cuts } = this.guard.split(prompt);
    return piecesAt(text, cuts).flatMap((piece) => this.tokenizer.encode(piece, { add_special_tokens: false }));
  }

  countTokens(text: string): number {
    return this.tokenize(text).length;
  }

  generate(prompt: string, options: GenerateOptions): Promise<GenerateResult> {
    // One generation at a time: the KV cache and ONNX Runtime's session are shared state.
    const run = this.busy.then(() => this.generateNow(prompt, options));
    this.busy = run.catch(() => undefined);
    return run;
  }

  private async generateNow(prompt: string, options: GenerateOptions): Promise<GenerateResult> {
    if (this.disposed) throw new Error('This engine was disposed.');
    throwIfAborted(options.signal);
    // The marks in the prompt say where outside text is; they are not fed.
    const guarded = this.guard.split(prompt);
    let text = guarded.text;
    let choices = options.choices;
    // A trailing space would make the model continue after a lone space token, which it rarely saw
    // in training; move it into the choices so each choice starts with its usual " word" token.
    if (choices?.length && text.endsWith(' ')) {
      text = text.slice(0, -1);
      choices = choices.map((c) => ` ${c}`);
    }

    if (!this.reuseCache) await this.resetCache();
    const cuts = guarded.cuts.filter((cut) => cut < text.length);
    // The tokens of the tool results the answer copies from: no repetition penalty on them.
    const exempt = new Set(guarded.results.flatMap((result) => this.tokenizer.encode(result, { add_special_tokens: false })));
    const planned = this.transcript.plan(text, cuts);
    const plan = { ...planned, keep: await this.prepareCache(planned.keep) };
    const promptLength = plan.ids.length;
    const trie = choices?.length ? new ChoiceTrie(choices.map((c) => this.tokenizer.encode(c, { add_special_tokens: false }))) : undefined;

    const interrupt = new InterruptableStoppingCriteria();
    const onAbort = () => interrupt.interrupt();
    options.signal?.addEventListener('abort', onAbort, { once: true });
    const stops = options.stop?.filter(Boolean) ?? [];
    const decodeNew = (ids: number[]) => this.decodeGenerated(ids);
    const criteria: StoppingCriteria[] = [interrupt];
    if (stops.length) criteria.push(new TextStoppingCriteria(stopStringWatcher(decodeNew, stops), promptLength));
    if (trie)
      criteria.push(
        new TextStoppingCriteria((ids) => {
          const n = trie.next(ids);
          return n.complete && n.allowed.size === 0;
        }, promptLength),
      );

    const streamer = options.onText ? new GenerationStreamer(decodeNew, (t) => options.onText?.(t)) : undefined;
    const inputIds = new Tensor('int64', BigInt64Array.from(plan.ids.map(BigInt)), [1, promptLength]);
    const attentionMask = new Tensor('int64', new BigInt64Array(promptLength).fill(1n), [1, promptLength]);
    let cache = this.cache ?? new DynamicCache();
    const sampled = options.sampling && options.sampling.temperature > 0 && !trie ? options.sampling : undefined;
    try {
      cache = await this.prefillInChunks(plan.ids, plan.keep, cache, options.signal);
      const output = (await this.model.generate({
        input_ids: inputIds,
        attention_mask: attentionMask,
        past_key_values: cache,
        max_new_tokens: trie ? trie.maxLength + 1 : this.roomAfter(promptLength, options.maxNewTokens),
        // Constrained choices are always greedy; sampling only when the caller asks (prose).
        ...(sampled ? { do_sample: true, temperature: sampled.temperature, top_k: 0 } : { do_sample: false }),
        // With tool results in the prompt, their tokens are left out of the penalty (see RepetitionPenaltyBesidesResults).
        repetition_penalty: exempt.size ? 1 : (options.repetitionPenalty ?? 1),
        ...withProcessors([
          ...(exempt.size && (options.repetitionPenalty ?? 1) !== 1
            ? [new RepetitionPenaltyBesidesResults(options.repetitionPenalty ?? 1, plan.ids, exempt)]
            : []),
          ...(trie ? [new ChoiceLogitsProcessor(trie, promptLength, this.endTokens)] : []),
          ...(!trie && sampled?.topP !== undefined && sampled.topP < 1 ? [new NucleusLogitsProcessor(sampled.topP)] : []),
        ]),
        stopping_criteria: criteria,
        ...(streamer ? { streamer } : {}),
        return_dict_in_generate: true,
      } as never)) as unknown as { sequences: Tensor; past_key_values: DynamicCache };
      this.cache = output.past_key_values ?? cache;
      if (!this.appended && !this.recurrent) this.info.kvCache = presentCachePlace(this.cache, this.info.kvCache);
      const sequence = Array.from(output.sequences.data as BigInt64Array, Number);
      const generated = sequence.slice(promptLength);
      this.transcript.record(plan.ids, generated, { length: text.length, cuts });
      if (options.signal?.aborted) throw abortError(options.signal);

      let out = decodeNew(generated);
      if (trie && choices) out = out.slice(choices === options.choices ? 0 : 1);
      for (const stop of stops) {
        const at = out.indexOf(stop);
        if (at >= 0) out = out.slice(0, at + stop.length);
      }
      return { text: out, promptTokens: promptLength, cachedTokens: plan.keep, newTokens: generated.length };
    } catch (error) {
      if (!options.signal?.aborted) await this.resetCache();
      throw error;
    } finally {
      options.signal?.removeEventListener('abort', onAbort);
    }
  }

  /**
   * Extends `cache` (holding the first `from` tokens of `ids`) chunk by chunk until at most one chunk
   * of the prompt is left for the generation itself. Each pass is a one-token generation whose token is
   * dropped: the cache it returns holds the chunk's keys and values, not the token's.
   */
  private async prefillInChunks(ids: readonly number[], from: number, cache: DynamicCache, signal: AbortSignal | undefined): Promise<DynamicCache> {
    let done = from;
    let current = cache;
    while (ids.length - done > this.prefillChunk) {
      throwIfAborted(signal);
      const end = done + this.prefillChunk;
      const output = (await this.model.generate({
        input_ids: new Tensor('int64', BigInt64Array.from(ids.slice(0, end).map(BigInt)), [1, end]),
        attention_mask: new Tensor('int64', new BigInt64Array(end).fill(1n), [1, end]),
        past_key_values: current,
        max_new_tokens: 1,
        do_sample: false,
        return_dict_in_generate: true,
      } as never)) as unknown as { past_key_values: DynamicCache };
      current = output.past_key_values ?? current;
      this.cache = current;
      done = end;
    }
    return current;
  }

  /**
   * New tokens a generation may add after a prompt of `promptLength`: what was asked, within the
   * context budget (a primed or stepwise rung extends a prompt the loop fitted, so it may not
   * overrun the model's context either); at least one.
   */
  private roomAfter(promptLength: number, asked: number): number {
    const budget = this.info.context?.tokens;
    return budget === undefined ? asked : Math.max(1, Math.min(asked, budget - promptLength));
  }

  /**
   * Makes the cache hold exactly the first `keep` tokens of the transcript, and returns how many it
   * holds: `keep`, or 0 where a recurrent state would have to be cut back (it cannot: it is computed again).
   */
  private async prepareCache(keep: number): Promise<number> {
    if (!this.cache) return keep;
    if (keep === 0 || (this.recurrent && this.cache.get_seq_length() > keep)) {
      await this.resetCache();
      return 0;
    }
    if (this.cache.get_seq_length() > keep) this.cache = await cropCache(this.cache, keep);
    return keep;
  }

  /**
   * Forgets the KV cache and what it held, so the next generation computes its whole prompt, as the
   * first one after a load does (a benchmark's cold start; a test that must not see another's cache).
   */
  async forgetCache(): Promise<void> {
    await this.busy;
    await this.resetCache();
  }

  private async resetCache(): Promise<void> {
    const cache = this.cache;
    this.cache = undefined;
    this.appended?.reset();
    this.transcript.clear();
    await cache?.dispose();
  }

  async dispose(): Promise<void> {
    if (this.disposed) return;
    this.disposed = true;
    await this.busy;
    await this.resetCache();
    await this.model.dispose();
  }
}

/** A profile the caller chose over the detected one; `detectedBy` keeps both, so a verdict says so. */
function chosenFamily(id: FamilyId, found: DetectedFamily): DetectedFamily {
  const family = MODEL_FAMILIES[id];
  return { family, info: { id, label: family.label, detectedBy: `chosen by the caller (its files suggest ${found.info.label}: ${found.info.detectedBy})` } };
}

/** The threads onnxruntime-node uses by default: one per physical core, which Node cannot tell apart; say the logical count. */
function nodeCores(): number | undefined {
  const nav = (globalThis as { navigator?: { hardwareConcurrency?: number } }).navigator;
  return nav?.hardwareConcurrency;
}

/**
 * ONNX Runtime's CPU threads in Node, from `NEXUS_ORT_THREADS` when set (a whole number ≥ 1).
 * The tests pin it to 1: with several threads a reduction's summation order may change from run to
 * run, and on a near-tie a greedy decode then picks another token, so a check can differ between runs.
 */
function cpuThreads(): number | undefined {
  const raw = typeof process !== 'undefined' ? process.env?.NEXUS_ORT_THREADS : undefined;
  if (raw === undefined || raw.trim() === '') return undefined;
  const n = Number(raw);
  return Number.isInteger(n) && n >= 1 ? n : undefined;
}
