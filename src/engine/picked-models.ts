import { NexusError, registerErrorClass } from '../shared/errors.ts';
import type { ModelFile, ModelSource } from './model-source.ts';

const PREFIX = 'picked-model:';

/** What is stored for a picked model: its files, by path. */
interface StoredModel {
  name: string;
  files: ModelFile[];
  savedAt: string;
}

/**
 * Keeps a model the user picked from disk (a folder, or a .zip unpacked with {@link filesFromZip})
 * in IndexedDB, so the next visit loads it without asking again. Blobs are stored as they are.
 */
export async function rememberPickedModel(name: string, files: readonly ModelFile[]): Promise<void> {
  const { set } = await import('idb-keyval');
  const stored: StoredModel = { name, files: files.map((f) => ({ path: f.path, data: f.data })), savedAt: new Date().toISOString() };
  await set(PREFIX + name, stored);
}

/** The source of a remembered picked model, or undefined. */
export async function pickedModel(name: string): Promise<(ModelSource & { files: readonly ModelFile[] }) | undefined> {
  const { get } = await import('idb-keyval');
  const stored = await get<StoredModel>(PREFIX + name);
  return stored ? { files: stored.files, name: stored.name } : undefined;
}

/** The names of the remembered picked models. */
export async function listPickedModels(): Promise<string[]> {
  const { keys } = await import('idb-keyval');
  return (await keys()).filter((k): k is string => typeof k === 'string' && k.startsWith(PREFIX)).map((k) => k.slice(PREFIX.length));
}

/** Forgets a picked model (frees its storage). */
export async function forgetPickedModel(name: string): Promise<void> {
  const { del } = await import('idb-keyval');
  await del(PREFIX + name);
}

/** Limits of {@link filesFromZip}. */
export interface ZipLimits {
  /**
   * Most bytes the archive may inflate to, all entries together. Default: 40 times the archive's size
   * (model weights barely compress; a tokenizer's JSON about 5×), at least 256 MiB and at most 4 GiB.
   */
  maxTotalBytes?: number;
  /** Most entries the archive may hold (default 10,000). */
  maxEntries?: number;
}

/** Why a picked .zip could not be used. */
export type ZipReadFailure = 'not-zip' | 'too-large' | 'too-many-entries' | 'empty';

/** A picked .zip that is not a zip, holds nothing, or would inflate past the limits. */
export class ZipReadError extends NexusError {
  override readonly name = 'ZipReadError';
  /** What went wrong. */
  readonly failure: ZipReadFailure;

  /** @param failure - what went wrong; @param message - the whole sentence. */
  constructor(failure: ZipReadFailure, message: string) {
    super(message);
    this.failure = failure;
  }
}

registerErrorClass(ZipReadError, 'ZipReadError');

const MIB = 1024 * 1024;

/**
 * The default inflated-size limit for an archive of `size` bytes: 40 times its size (model weights
 * barely compress, a tokenizer's JSON about 5×), at least 256 MiB and at most 4 GiB.
 * @param size - the archive's size in bytes.
 */
export function defaultZipLimit(size: number): number {
  return Math.min(4096 * MIB, Math.max(256 * MIB, size * 40));
}
/** How much of the archive is inflated between two yields to the event loop. */
const SLICE_BYTES = 4 * MIB;

/**
 * Unpacks a .zip of a model folder into files with paths relative to the folder (a single top
 * folder inside the archive is dropped), e.g. `onnx/model_q4.onnx`.
 *
 * The archive is read in slices and inflated entry by entry, yielding to the event loop between
 * slices; every inflated byte counts against `maxTotalBytes`, and past it the read stops at once with
 * a {@link ZipReadError} (a zip bomb of a few hundred KB would otherwise inflate to gigabytes in memory).
 *
 * @param zip - the archive (a picked `File`, whose name the errors use).
 * @param limits - the inflated-size and entry caps.
 * @throws ZipReadError when it is not a zip, holds no files, or exceeds a limit.
 */
export async function filesFromZip(zip: Blob, limits: ZipLimits = {}): Promise<ModelFile[]> {
  return (await readZip(zip, limits)).files;
}

/**
 * A picked .zip as a model source: {@link filesFromZip}'s files, named by the archive's single top
 * folder, or else by the file's name without `.zip`.
 *
 * @param zip - the picked archive.
 * @param limits - the inflated-size and entry caps.
 * @throws ZipReadError as {@link filesFromZip} does.
 */
export async function modelSourceFromZip(zip: File, limits: ZipLimits = {}): Promise<{ files: readonly ModelFile[]; name: string }> {
  const { files, top } = await readZip(zip, limits);
  return { files, name: top || zip.name.replace(/\.zip$/i, '') || 'picked .zip' };
}

async function readZip(zip: Blob, limits: ZipLimits): Promise<{ files: ModelFile[]; top: string }> {
  const label = zip instanceof File && zip.name ? zip.name : 'the .zip';
  const maxTotal = limits.maxTotalBytes ?? defaultZipLimit(zip.size);
  const maxEntries = limits.maxEntries ?? 10_000;
  const head = new Uint8Array(await zip.slice(0, 4).arrayBuffer());
  if (head[0] !== 0x50 || head[1] !== 0x4b || !((head[2] === 3 && head[3] === 4) || (head[2] === 5 && head[3] === 6))) {
    throw new ZipReadError('not-zip', `${label} is not a readable .zip: it does not start with a zip signature.`);
  }

  const { Unzip, UnzipInflate } = await import('fflate');
  const files: ModelFile[] = [];
  let total = 0;
  let entries = 0;
  let failure: Error | undefined;
  const fail = (error: Error): void => {
    failure ??= error;
  };
  const tooLarge = (): ZipReadError =>
    new ZipReadError(
      'too-large',
      `${label} inflates to more than ${Math.round(maxTotal / MIB)} MiB, the limit for an archive of ${formatMiB(zip.size)}; unzip it yourself and pick the folder instead.`,
    );

  const unzip = new Unzip((file) => {
    if (failure || file.name.endsWith('/') || file.name.startsWith('__MACOSX/')) return;
    entries += 1;
    if (entries > maxEntries)
      return fail(new ZipReadError('too-many-entries', `${label} holds more than ${maxEntries} files; a model folder holds a few dozen.`));
    if (file.originalSize !== undefined && total + file.originalSize > maxTotal) return fail(tooLarge());
    const parts: Uint8Array<ArrayBuffer>[] = [];
    file.ondata = (error, chunk, final) => {
      if (failure) return;
      if (error) return fail(new ZipReadError('not-zip', `${label} is not a readable .zip: ${error.message}.`));
      total += chunk.length;
      if (total > maxTotal) {
        file.terminate();
        return fail(tooLarge());
      }
      parts.push(chunk as Uint8Array<ArrayBuffer>);
      if (final) files.push({ path: file.name, data: new Blob(parts) });
    };
    try {
      file.start();
    } catch (error) {
      fail(new ZipReadError('not-zip', `${label} is not a readable .zip: ${(error as Error).message}.`));
    }
  });
  unzip.register(UnzipInflate);

  for (let offset = 0; offset < zip.size && !failure; offset += SLICE_BYTES) {
    const slice = new Uint8Array(await zip.slice(offset, offset + SLICE_BYTES).arrayBuffer());
    try {
      unzip.push(slice, offset + SLICE_BYTES >= zip.size);
    } catch (error) {
      fail(new ZipReadError('not-zip', `${label} is not a readable .zip: ${(error as Error).message}.`));
    }
    // Let the page paint and answer between slices.
    await new Promise((resume) => setTimeout(resume, 0));
  }
  if (failure) throw failure;
  if (files.length === 0) throw new ZipReadError('empty', `${label} holds no files.`);

  const paths = files.map((f) => f.path);
  const tops = new Set(paths.map((p) => p.split('/')[0]));
  const strip = tops.size === 1 && paths.every((p) => p.includes('/'));
  const top = strip ? (paths[0]?.split('/')[0] ?? '') : '';
  return { files: files.map((file) => ({ path: strip ? file.path.slice(file.path.indexOf('/') + 1) : file.path, data: file.data })), top };
}

function formatMiB(bytes: number): string {
  return bytes >= MIB ? `${Math.round(bytes / MIB)} MiB` : `${Math.max(1, Math.round(bytes / 1024))} KB`;
}
