/**
 * How many tokens a loaded model can hold in one prompt and its answer: the model's context length,
 * lowered where the device's memory for the KV cache runs out first.
 */

/** The context length assumed when neither the model's config nor its family says one: small enough for any model run in a tab. */
export const DEFAULT_CONTEXT_LENGTH = 4096;

/**
 * Bytes of KV cache a WASM page may hold: a quarter of the 4 GiB a 32-bit WASM memory can address,
 * which also holds the weights and the activations.
 */
export const WASM_KV_BYTES = 1024 ** 3;

/** Where a model's context length came from. */
export type ContextSource = 'config' | 'family' | 'default';

/** The tokens a model can attend over on this device, and why. */
export interface ContextBudget {
  /** The model's context length (tokens it was trained to attend over). */
  contextLength: number;
  /** Where {@link ContextBudget.contextLength} came from. */
  source: ContextSource;
  /** KV cache bytes per token of context (keys and values of every attention layer), when the config tells. */
  kvBytesPerToken?: number;
  /** Tokens of KV cache the device's memory budget holds, when that is a limit here. */
  memoryTokens?: number;
  /** What a prompt and its answer may take together: the smaller of the two. */
  tokens: number;
  /** The same in words, for the diagnostics. */
  detail: string;
}

/** The fields of a Hugging Face `config.json` that size a context (top level, or under `text_config`). */
export interface ContextConfig {
  max_position_embeddings?: number;
  n_positions?: number;
  max_sequence_length?: number;
  seq_length?: number;
  num_hidden_layers?: number;
  num_attention_heads?: number;
  num_key_value_heads?: number;
  head_dim?: number;
  hidden_size?: number;
  /** Hybrid models (LFM2, Qwen3.5): only the attention layers keep a KV cache. */
  layer_types?: readonly string[];
  text_config?: ContextConfig;
}

/** What {@link contextBudget} reads. */
export interface ContextBudgetInput {
  /** The model's `config.json` (what transformers.js loaded). */
  config: ContextConfig | undefined;
  /** The context length the model family documents, used when the config has none. */
  familyContextLength?: number | undefined;
  /** `wasm`, `webgpu` or `cpu` (Node). */
  device: string;
  /** The quantization: the KV cache is fp16 for the `*f16` dtypes, fp32 otherwise. */
  dtype: string;
  /** On WebGPU, the adapter's `maxStorageBufferBindingSize`: one layer's keys must fit one buffer. */
  maxBufferBytes?: number | undefined;
}

/** The `layer_types` that keep a KV cache. */
const KV_LAYER_TYPES: ReadonlySet<string> = new Set(['full_attention', 'sliding_attention', 'attention']);

const positive = (value: unknown): number | undefined => (typeof value === 'number' && Number.isFinite(value) && value > 0 ? Math.floor(value) : undefined);

/** The model's own context length and where it came from. */
function contextLengthOf(config: ContextConfig, familyContextLength: number | undefined): { length: number; source: ContextSource } {
  const configured =
    positive(config.max_position_embeddings) ?? positive(config.n_positions) ?? positive(config.max_sequence_length) ?? positive(config.seq_length);
  if (configured) return { length: configured, source: 'config' };
  const documented = positive(familyContextLength);
  if (documented) return { length: documented, source: 'family' };
  return { length: DEFAULT_CONTEXT_LENGTH, source: 'default' };
}

/** Bytes of KV cache per token, and of one layer's keys: undefined when the config does not give the shape. */
function kvShape(config: ContextConfig, dtype: string): { perToken: number; perLayerKeys: number } | undefined {
  const heads = positive(config.num_attention_heads);
  const kvHeads = positive(config.num_key_value_heads) ?? heads;
  const headDim = positive(config.head_dim) ?? (heads && positive(config.hidden_size) ? Math.floor((config.hidden_size as number) / heads) : undefined);
  // Hybrid models: only the attention layers keep keys and values (not LFM2's convolutions, nor
  // Qwen3.5's `linear_attention` layers, whose state has a fixed size).
  const layers = config.layer_types?.length ? config.layer_types.filter((type) => KV_LAYER_TYPES.has(type)).length : positive(config.num_hidden_layers);
  if (!kvHeads || !headDim || !layers) return undefined;
  const bytes = /f16$/.test(dtype) ? 2 : 4;
  const perLayerKeys = kvHeads * headDim * bytes;
  return { perToken: 2 * layers * perLayerKeys, perLayerKeys };
}

/**
 * A loaded model's context budget: its context length (the config's, else the family's documented
 * one, else {@link DEFAULT_CONTEXT_LENGTH}), lowered by what the device can keep of the KV cache —
 * {@link WASM_KV_BYTES} on WASM, one storage buffer per layer's keys on WebGPU — and nothing else in
 * Node, where the process has the machine's memory.
 */
export function contextBudget(input: ContextBudgetInput): ContextBudget {
  const config = input.config?.text_config ?? input.config ?? {};
  const { length, source } = contextLengthOf(config, input.familyContextLength);
  const shape = kvShape(config, input.dtype);
  let memoryTokens: number | undefined;
  let limit = '';
  if (shape && input.device === 'wasm') {
    memoryTokens = Math.floor(WASM_KV_BYTES / shape.perToken);
    limit = `WASM keeps at most ${mib(WASM_KV_BYTES)} of KV cache, ${memoryTokens.toLocaleString('en-US')} tokens at ${kib(shape.perToken)} a token`;
  } else if (shape && input.device === 'webgpu' && positive(input.maxBufferBytes)) {
    memoryTokens = Math.floor((input.maxBufferBytes as number) / shape.perLayerKeys);
    limit = `a WebGPU buffer of ${mib(input.maxBufferBytes as number)} holds one layer's keys for ${memoryTokens.toLocaleString('en-US')} tokens`;
  }
  const tokens = Math.min(length, memoryTokens ?? length);
  const from = {
    config: "from the model's config",
    family: "the family's documented length (the config gives none)",
    default: 'a conservative default (neither the config nor the family gives one)',
  }[source];
  const detail =
    `${tokens.toLocaleString('en-US')} tokens: context length ${length.toLocaleString('en-US')}, ${from}` +
    (memoryTokens !== undefined && memoryTokens < length ? `; lowered because ${limit}` : '');
  return {
    contextLength: length,
    source,
    ...(shape ? { kvBytesPerToken: shape.perToken } : {}),
    ...(memoryTokens !== undefined ? { memoryTokens } : {}),
    tokens,
    detail,
  };
}

function mib(bytes: number): string {
  return `${Math.round(bytes / 1024 ** 2).toLocaleString('en-US')} MiB`;
}

function kib(bytes: number): string {
  return `${Math.round(bytes / 1024).toLocaleString('en-US')} KiB`;
}
