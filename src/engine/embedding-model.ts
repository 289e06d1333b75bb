import { NexusError, registerErrorClass } from '../shared/errors.ts';
import { describeSource, type ModelSource } from './model-source.ts';

/** A sentence-embedding model for the tool index's semantic ranking, run through transformers.js. */
export interface EmbeddingModel {
  /** Where it comes from (the hub by default; a served folder or a local path as for the chat model). */
  source: ModelSource;
  /** Which ONNX file (`q8`: `model_quantized.onnx`, `fp32`: `model.onnx`). */
  dtype?: 'q8' | 'fp32' | 'fp16' | 'q4';
  /** How token vectors become one sentence vector (MiniLM and E5: `mean`; BGE: `cls`). */
  pooling?: 'mean' | 'cls';
  /** Put before a query (E5: `query: `). */
  queryPrefix?: string;
  /** Put before a tool's text (E5: `passage: `). */
  documentPrefix?: string;
}

/**
 * The default: sentence-transformers' all-MiniLM-L6-v2 as converted for transformers.js — 384
 * dimensions, mean pooling, about 23 MB in int8 — small enough to fetch the first time a page
 * registers more tools than the selection threshold. English; a multilingual alternative is
 * `Xenova/paraphrase-multilingual-MiniLM-L12-v2` (about 118 MB).
 */
export const DEFAULT_EMBEDDING_MODEL: Readonly<EmbeddingModel> = Object.freeze({ source: { hub: 'Xenova/all-MiniLM-L6-v2' }, dtype: 'q8', pooling: 'mean' });

/** The key vectors of this model are stored under (model, quantization, pooling, prefixes): vectors of two models never mix. */
export function embeddingModelKey(model: EmbeddingModel): string {
  return [describeSource(model.source), model.dtype ?? 'q8', model.pooling ?? 'mean', model.queryPrefix ?? '', model.documentPrefix ?? ''].join('|');
}

/** What a loaded embedding model reports. */
export interface EmbedderInfo {
  model: string;
  dtype: string;
  /** Length of each vector. */
  dimensions: number;
  /** Milliseconds from the request to a loaded model (downloads included). */
  loadMs: number;
  /** Bytes of the files it read (what a first visit downloads). */
  bytes: number;
}

/** A download's progress while the embedding model loads (transformers.js' progress events). */
export interface EmbedProgress {
  status: string;
  file?: string;
  loaded?: number;
  total?: number;
}

/** One embedding request: which model, which texts, from which hub. Plain data (it crosses the worker boundary). */
export interface EmbedRequest {
  model: EmbeddingModel;
  texts: string[];
  hubUrl?: string;
}

/** The vectors of an {@link EmbedRequest}, and the model that made them. */
export interface EmbedReply {
  vectors: number[][];
  info: EmbedderInfo;
}

/** Where the semantic tool search stands: off, waiting for its first use, loading its model, ready, or failed (ranking by words). */
export interface ToolSearchStatus {
  state: 'off' | 'idle' | 'loading' | 'ready' | 'failed';
  /** The embedding model (or `custom` for an injected embedder). */
  model?: string;
  /** Once loaded: dimensions, load time, bytes read. */
  info?: EmbedderInfo;
  /** While loading: bytes so far and in all (when known). */
  progress?: { loaded: number; total: number };
  /** Why it failed; answers then rank tools by their words alone. */
  error?: string;
  /** Tool vectors computed and reused from the store, so far. */
  vectors: { computed: number; reused: number };
}

/** Thrown for a `toolSelection.semantic` that is neither `false` nor an {@link EmbeddingModel}. */
export class EmbeddingModelError extends NexusError {
  override readonly name = 'EmbeddingModelError';
}

registerErrorClass(EmbeddingModelError, 'EmbeddingModelError');

/** Checks a `toolSelection.semantic` given at run time (plain JS callers write a hub id string, say). */
export function assertEmbeddingModel(value: unknown): asserts value is EmbeddingModel {
  const source = (value as { source?: unknown } | null)?.source;
  const known = typeof source === 'object' && source !== null && ['hub', 'url', 'path', 'files'].some((k) => k in source);
  if (typeof value === 'object' && value !== null && known) return;
  const shown = typeof value === 'string' ? `the string "${value}"` : (JSON.stringify(value) ?? String(value));
  throw new EmbeddingModelError(
    `toolSelection.semantic must be false or an embedding model such as { source: { hub: 'Xenova/all-MiniLM-L6-v2' }, dtype: 'q8' }, got ${shown}. ` +
      'Its source is { hub }, { url }, { path } or { files }, as for the chat model.',
  );
}
