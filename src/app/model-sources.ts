import { describeSource, type ModelFile, type ModelSource } from '../index.ts';

/** A model the picker offers by name. */
export interface KnownModel {
  /** Hugging Face hub id. */
  id: string;
  label: string;
  /** Why one would pick it, in a few words. */
  note: string;
}

/**
 * The picker's shortlist. Qwen3-0.6B first: it is the smallest model that reliably picks a tool
 * from a list; the others are for comparison, and any hub id can be typed instead.
 */
export const KNOWN_MODELS: readonly KnownModel[] = [
  { id: 'onnx-community/Qwen3-0.6B-ONNX', label: 'Qwen3-0.6B', note: 'default · calls tools reliably' },
  { id: 'onnx-community/Qwen2.5-0.5B-Instruct', label: 'Qwen2.5-0.5B-Instruct', note: 'smaller · older tool format' },
  { id: 'onnx-community/Qwen3-1.7B-ONNX', label: 'Qwen3-1.7B', note: 'smarter · about 3× the download' },
];

/** A short name for a source: the hub id, or the last folder of an address. */
export function modelLabel(source: ModelSource): string {
  if ('url' in source) {
    const path = new URL(source.url, 'http://x').pathname.replace(/\/+$/, '');
    return decodeURIComponent(path.split('/').pop() || source.url);
  }
  return describeSource(source);
}

/** What `?model=` would say for this source, so a reload or a shared link opens the same model. */
export function modelAddress(source: ModelSource, origin: string): string | undefined {
  if ('hub' in source) return source.revision ? `${source.hub}@${source.revision}` : source.hub;
  if ('url' in source) {
    const url = new URL(source.url, origin);
    return url.origin === origin ? url.pathname : url.href;
  }
  return undefined;
}

/**
 * Files picked with `<input webkitdirectory>` as a model source: paths relative to the picked
 * folder (its own name removed), so `onnx/model_q4.onnx` is where transformers.js looks.
 */
export function sourceFromFolder(files: readonly File[]): ModelSource {
  const picked = files.map((file) => ({ path: file.webkitRelativePath || file.name, data: file as Blob }));
  const top = commonTopFolder(picked.map((f) => f.path));
  return { files: stripTop(picked, top), name: top || 'picked folder' };
}

/** A picked `.zip` as a model source; unzipped off the main thread so the page stays responsive. */
export async function sourceFromZip(file: File): Promise<ModelSource> {
  // fflate is loaded only when someone picks a .zip.
  const [{ unzip }, bytes] = await Promise.all([import('fflate'), file.arrayBuffer().then((b) => new Uint8Array(b))]);
  const entries = await new Promise<Record<string, Uint8Array>>((resolve, reject) => {
    unzip(bytes, (error, data) => (error ? reject(new Error(`${file.name} is not a readable .zip: ${error.message}`)) : resolve(data)));
  });
  const picked: ModelFile[] = Object.entries(entries)
    .filter(([path]) => !path.endsWith('/') && !path.startsWith('__MACOSX/'))
    .map(([path, data]) => ({ path, data: new Blob([data as Uint8Array<ArrayBuffer>]) }));
  if (picked.length === 0) throw new Error(`${file.name} holds no files.`);
  const top = commonTopFolder(picked.map((f) => f.path));
  return { files: stripTop(picked, top), name: top || file.name.replace(/\.zip$/i, '') };
}

/** The one folder every path starts with, when the model files are not at the top already. */
function commonTopFolder(paths: readonly string[]): string {
  if (paths.some((p) => !p.includes('/') || p.split('/')[0] === '')) return '';
  const first = paths[0]?.split('/')[0] ?? '';
  return paths.every((p) => p.split('/')[0] === first) ? first : '';
}

function stripTop(files: readonly ModelFile[], top: string): ModelFile[] {
  return top ? files.map((f) => ({ path: f.path.slice(top.length + 1), data: f.data })) : [...files];
}
