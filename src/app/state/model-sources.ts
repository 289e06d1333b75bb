import { describeSource, modelSourceFromZip, type FamilyId, type ModelFile, type ModelSource } from '../../internal.ts';

/** A model the picker offers by name. */
export interface KnownModel {
  /** Hugging Face hub id. */
  id: string;
  label: string;
  /** The model-family profile the loop will speak to it with. */
  family: FamilyId;
  /** The quantization the download size is for (what browsers usually load first). */
  dtype: string;
  /**
   * About how much the first load downloads, in bytes: estimated from the parameter count and
   * the quantization (4-bit layers, 16-bit embeddings), not read from the hub.
   */
  approxBytes: number;
  /** Why one would pick it, in a few words. */
  note: string;
}

/**
 * The picker's shortlist: browser-ready ONNX builds of each family the loop speaks (see
 * shared/research/model-families.md). Qwen3-0.6B first: it is the smallest model that reliably
 * picks a tool from a list; any hub id can be typed instead.
 */
export const KNOWN_MODELS: readonly KnownModel[] = [
  { id: 'onnx-community/Qwen3-0.6B-ONNX', label: 'Qwen3-0.6B', family: 'qwen3', dtype: 'q4f16', approxBytes: 600e6, note: 'default · calls tools reliably' },
  {
    // 0.8B parameters, a quarter of them the 248k-token embedding; the vision encoder is not downloaded for text.
    id: 'onnx-community/Qwen3.5-0.8B-ONNX',
    label: 'Qwen3.5-0.8B',
    family: 'qwen3.5',
    dtype: 'q4f16',
    approxBytes: 850e6,
    note: 'newer Qwen · XML calls · thinks only when asked',
  },
  {
    // About 2B effective, 5B with its per-layer embeddings, which dominate the download.
    id: 'onnx-community/gemma-4-E2B-it-ONNX',
    label: 'Gemma 4 E2B',
    family: 'gemma4',
    dtype: 'q4f16',
    approxBytes: 3e9,
    note: "Google · Gemma 4's own call format · large download",
  },
  {
    id: 'onnx-community/Qwen2.5-0.5B-Instruct',
    label: 'Qwen2.5-0.5B-Instruct',
    family: 'qwen2.5',
    dtype: 'q4f16',
    approxBytes: 500e6,
    note: 'smaller · same call format',
  },
  {
    id: 'onnx-community/Llama-3.2-1B-Instruct',
    label: 'Llama-3.2-1B-Instruct',
    family: 'llama3.2',
    dtype: 'q4f16',
    approxBytes: 1.1e9,
    note: 'bare JSON calls · one call per turn',
  },
  { id: 'onnx-community/granite-4.0-350m-ONNX-web', label: 'Granite-4.0-350m', family: 'granite4', dtype: 'fp16', approxBytes: 700e6, note: 'IBM · fp16 only' },
  {
    id: 'onnx-community/LFM2-1.2B-Tool-ONNX',
    label: 'LFM2-1.2B-Tool',
    family: 'lfm2',
    dtype: 'q4',
    approxBytes: 750e6,
    note: 'tuned for tool use · pythonic calls',
  },
  { id: 'onnx-community/LFM2.5-350M-ONNX', label: 'LFM2.5-350M', family: 'lfm2', dtype: 'q4', approxBytes: 250e6, note: 'small · pythonic calls' },
  {
    id: 'onnx-community/functiongemma-270m-it-ONNX',
    label: 'FunctionGemma-270m',
    family: 'functiongemma',
    dtype: 'q4',
    approxBytes: 300e6,
    note: 'smallest · function calling only',
  },
];

/**
 * The model folders this app's server serves under `/models/` (`npm start` lists those with a
 * config.json), as addresses the picker offers. Empty where the server lists none or is another one.
 */
export async function servedModelFolders(base: string, fetchImpl: typeof fetch = (input, init) => fetch(input, init)): Promise<string[]> {
  try {
    const response = await fetchImpl(new URL('./models/', base).href, { headers: { Accept: 'application/json' } });
    if (!response.ok || !(response.headers.get('content-type') ?? '').includes('json')) return [];
    const { folders } = (await response.json()) as { folders?: unknown };
    return Array.isArray(folders) ? folders.filter((f): f is string => typeof f === 'string' && /^[\w.-]+$/.test(f)).map((f) => `/models/${f}`) : [];
  } catch {
    return [];
  }
}

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

/**
 * A picked `.zip` as a model source: read entry by entry within a size limit (see `filesFromZip`),
 * a single top folder dropped.
 */
export function sourceFromZip(file: File): Promise<ModelSource> {
  return modelSourceFromZip(file);
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

/**
 * Where a model named by a link would be downloaded from, and about how much, or undefined for a
 * folder this app serves itself (its operator's own files: nothing comes from elsewhere).
 *
 * @param source - the model a `?model=` names.
 * @param options - the page's origin and the model hub in use.
 */
export function linkedModelOrigin(source: ModelSource, options: { origin: string; hubUrl: string }): { from: string; approxBytes?: number } | undefined {
  if ('url' in source) {
    const url = new URL(source.url, options.origin);
    return url.origin === options.origin ? undefined : { from: url.href };
  }
  if ('hub' in source) {
    const known = KNOWN_MODELS.find((m) => m.id === source.hub);
    const from = `${new URL(`${source.hub}${source.revision ? `/tree/${source.revision}` : ''}`, options.hubUrl.endsWith('/') ? options.hubUrl : `${options.hubUrl}/`).href}`;
    return { from, ...(known ? { approxBytes: known.approxBytes } : {}) };
  }
  return undefined;
}
