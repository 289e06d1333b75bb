import { TOKENIZER_FILES } from './model-source.ts';

/**
 * Tokenizers this realm has parsed, by where their files came from. Parsing is most of a load from the
 * cache: a Qwen tokenizer.json is 11 MB of vocabulary and merges, about a second of JSON and Map building
 * on a desktop CPU, where the fixture's ONNX session takes milliseconds. The ladder loads one folder at
 * several quantizations ("Try other quantizations", a failed dtype retried in the same worker), and a Node
 * process (a server, `test:models`) loads the same model again and again: each load after the first takes
 * the tokenizer already parsed. A tokenizer is read, never changed, once its load has fixed its template.
 */
const parsed = new Map<string, Promise<unknown>>();

/** How many tokenizers are kept: a model and the one before it (a vocabulary is tens of megabytes in memory). */
const KEPT = 2;

/**
 * Where a model's tokenizer files come from, as a key that names them for good (picked files have none:
 * another pick under the same name is other files). A hub id is keyed with its revision,
 * as transformers.js caches its files; a folder on disk with its files' sizes and times, so a file
 * written since is read again.
 */
export async function tokenizerKey(from: TokenizerSource): Promise<string | undefined> {
  if (from.kind !== 'path') return `${from.kind}:${from.address}`;
  try {
    const { stat } = await import('node:fs/promises');
    const folder = from.address.replace(/\/+$/, '');
    const stamps = await Promise.all(TOKENIZER_FILES.map(async (file) => stat(`${folder}/${file}`).then((s) => `${s.size}@${s.mtimeMs}`)));
    return `path:${folder}:${stamps.join(',')}`;
  } catch {
    // A missing file fails the load itself, with the loader's own message.
    return undefined;
  }
}

/** Where a tokenizer's files come from (set by `useSource`). */
export interface TokenizerSource {
  kind: 'hub' | 'url' | 'path';
  /** The hub's address, id and revision; the folder's address or path. */
  address: string;
}

/**
 * The tokenizer under `key` if this realm parsed it already, else `load()`'s, kept for the next load. A load
 * that fails is forgotten, so the next one tries again.
 */
export function rememberedTokenizer<T>(key: string | undefined, load: () => Promise<T>): { tokenizer: Promise<T>; remembered: boolean } {
  if (key === undefined) return { tokenizer: load(), remembered: false };
  const known = parsed.get(key) as Promise<T> | undefined;
  if (known) {
    // The most recently used is the last to go.
    parsed.delete(key);
    parsed.set(key, known);
    return { tokenizer: known, remembered: true };
  }
  const tokenizer = load();
  parsed.set(key, tokenizer);
  tokenizer.catch(() => {
    if (parsed.get(key) === tokenizer) parsed.delete(key);
  });
  for (const oldest of parsed.keys()) {
    if (parsed.size <= KEPT) break;
    parsed.delete(oldest);
  }
  return { tokenizer, remembered: false };
}
