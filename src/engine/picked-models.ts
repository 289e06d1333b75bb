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

/**
 * Unpacks a .zip of a model folder into files with paths relative to the folder (a single top
 * folder inside the archive is dropped), e.g. `onnx/model_q4.onnx`.
 */
export async function filesFromZip(zip: Blob): Promise<ModelFile[]> {
  const { unzipSync } = await import('fflate');
  const entries = unzipSync(new Uint8Array(await zip.arrayBuffer()));
  const paths = Object.keys(entries).filter((p) => !p.endsWith('/'));
  const tops = new Set(paths.map((p) => p.split('/')[0]));
  const strip = tops.size === 1 && paths.every((p) => p.includes('/'));
  return paths.map((path) => ({
    path: strip ? path.slice(path.indexOf('/') + 1) : path,
    data: new Blob([entries[path] as Uint8Array<ArrayBuffer>]),
  }));
}
