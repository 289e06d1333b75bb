import { NexusError, registerErrorClass } from '../shared/errors.ts';

/**
 * Where a model comes from:
 * - `{ hub, revision? }`: the Hugging Face hub (cached by the browser's Cache API);
 * - `{ path }`: a local folder (Node);
 * - `{ url }`: a folder served over HTTP (e.g. by the app);
 * - `{ files }`: files the user picked (a folder, with their relative paths).
 */
export type ModelSource = { hub: string; revision?: string } | { path: string } | { url: string } | { files: readonly ModelFile[]; name?: string };

/** One picked file: its path inside the model folder (`onnx/model_q4.onnx`) and its bytes. */
export interface ModelFile {
  path: string;
  data: Blob;
}

/** The default model: Qwen3-0.6B, converted to ONNX by the onnx-community. */
export const DEFAULT_MODEL: ModelSource = { hub: 'onnx-community/Qwen3-0.6B-ONNX' };

/** Thrown when a model cannot be found or loaded; the message names the file and what to do. */
export class ModelLoadError extends NexusError {
  // `string`, so the more specific load errors below can name themselves.
  override readonly name: string = 'ModelLoadError';
}

registerErrorClass(ModelLoadError, 'ModelLoadError');

/** The model does not exist where the source points: a hub id with no model, a folder the server does not have. */
export class ModelNotFoundError extends ModelLoadError {
  override readonly name = 'ModelNotFoundError';
}

registerErrorClass(ModelNotFoundError, 'ModelNotFoundError');

/** The hub or server cannot be reached at all (offline, blocked, not running). */
export class ModelUnreachableError extends ModelLoadError {
  override readonly name = 'ModelUnreachableError';
}

registerErrorClass(ModelUnreachableError, 'ModelUnreachableError');

/** The hub refuses the files (a private or gated model). */
export class ModelAccessError extends ModelLoadError {
  override readonly name = 'ModelAccessError';
}

registerErrorClass(ModelAccessError, 'ModelAccessError');

/** A file every quantization needs (config.json, the tokenizer) failed: no other quantization can do better. */
export class ModelFilesError extends ModelLoadError {
  override readonly name = 'ModelFilesError';
}

registerErrorClass(ModelFilesError, 'ModelFilesError');

/**
 * Failures of the source as a whole: trying the other quantizations would only repeat them, so a
 * load stops at the first and reports it as it is.
 */
export const SOURCE_FAILURES: ReadonlySet<string> = new Set(['ModelNotFoundError', 'ModelUnreachableError', 'ModelAccessError', 'ModelFilesError']);

/** The hub transformers.js downloads from unless told otherwise. */
export const DEFAULT_HUB_URL = 'https://huggingface.co/';

/** The hub's address for a file of a model, as transformers.js builds it. */
export function hubFileAddress(hubUrl: string, id: string, revision: string | undefined, file: string): string {
  return `${hubUrl.replace(/\/*$/, '/')}${id}/resolve/${encodeURIComponent(revision ?? 'main')}/${file}`;
}

/** A readable name for a source, for messages and `info.model`. */
export function describeSource(source: ModelSource): string {
  if ('hub' in source) return source.revision ? `${source.hub}@${source.revision}` : source.hub;
  if ('path' in source) return source.path;
  if ('url' in source) return source.url;
  return source.name ?? 'picked files';
}

/** One load attempt, for messages and narration. */
export interface LoadAttemptRecord {
  device: string;
  dtype: string;
  error?: string;
}

/** The error for a source none of whose candidates loaded, naming each and why. */
export function noCandidateLoaded(source: ModelSource, attempts: readonly LoadAttemptRecord[]): ModelLoadError {
  const lines = attempts.map((a) => `  ${a.dtype} on ${a.device}: ${a.error ?? 'failed'}`);
  return new ModelLoadError(
    `Could not load ${describeSource(source)}. Tried:\n${lines.join('\n')}\nCheck the model files, or pick another model or quantization.`,
  );
}

/** The files `AutoTokenizer` reads from a model folder (and parses before anything else is needed). */
export const TOKENIZER_FILES = ['tokenizer.json', 'tokenizer_config.json'] as const;
