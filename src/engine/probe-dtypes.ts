import { DTYPE_FILES, dtypesInFiles } from './device-ladder.ts';
import type { ModelSource } from './model-source.ts';

/** The hub's file address, as transformers.js builds it. */
export function hubFileUrl(id: string, revision: string | undefined, file: string): string {
  return `https://huggingface.co/${id}/resolve/${encodeURIComponent(revision ?? 'main')}/${file}`;
}

/**
 * The quantizations a source serves, found without loading transformers.js: from the file names
 * when the files are at hand, else by asking for each candidate file's headers. Undefined when the
 * source cannot be asked (then every candidate is tried, and a missing file fails its attempt).
 */
export async function probeDtypes(source: ModelSource, fetchImpl: typeof fetch = globalThis.fetch?.bind(globalThis)): Promise<string[] | undefined> {
  if ('files' in source) return dtypesInFiles(source.files.map((f) => f.path));
  if ('path' in source) {
    const { readdir } = await import('node:fs/promises');
    try {
      return dtypesInFiles(await readdir(`${source.path.replace(/\/+$/, '')}/onnx`));
    } catch {
      return [];
    }
  }
  const address = (file: string) => ('hub' in source ? hubFileUrl(source.hub, source.revision, file) : `${source.url.replace(/\/+$/, '')}/${file}`);
  try {
    const found: string[] = [];
    for (const [dtype, file] of Object.entries(DTYPE_FILES)) {
      const response = await fetchImpl(address(`onnx/${file}`), { method: 'HEAD' });
      if (response.ok && !(response.headers.get('content-type') ?? '').includes('text/html')) found.push(dtype);
    }
    return found;
  } catch {
    return undefined;
  }
}
