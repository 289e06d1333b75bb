/** Turns texts into vectors of the same length (a sentence-embedding model; injected, so tests need none). */
export type Embedder = (texts: readonly string[]) => Promise<number[][]>;

/**
 * Where the tool index keeps the embeddings of tool descriptions, so that a `tools.js` is embedded
 * once, not on every visit: IndexedDB in the page, memory in Node and tests. Keys are the
 * embedding model's key and the exact text embedded, so a tool whose description changes is
 * embedded again and the others are not.
 */
export interface ToolVectorStore {
  /** The stored vectors of `keys`, in order (undefined where none is stored). */
  getMany(keys: readonly string[]): Promise<(Float32Array | number[] | undefined)[]>;
  /** Stores vectors by key. */
  setMany(entries: readonly (readonly [string, Float32Array])[]): Promise<void>;
}

/** A store in memory. */
export function memoryToolVectorStore(): ToolVectorStore & { entries: Map<string, Float32Array> } {
  const entries = new Map<string, Float32Array>();
  return {
    entries,
    getMany: async (keys) => keys.map((key) => entries.get(key)),
    setMany: async (given) => {
      for (const [key, vector] of given) entries.set(key, vector);
    },
  };
}

/** The IndexedDB database and object store the page keeps tool vectors in. */
const TOOL_VECTOR_DB = { database: 'nexus-tool-vectors', store: 'vectors' } as const;

/** The page's store: IndexedDB (through idb-keyval), so the vectors outlive the tab. */
export async function indexedDbToolVectorStore(): Promise<ToolVectorStore> {
  const { createStore, getMany, setMany } = await import('idb-keyval');
  const store = createStore(TOOL_VECTOR_DB.database, TOOL_VECTOR_DB.store);
  return {
    getMany: (keys) => getMany<Float32Array>([...keys], store),
    setMany: (entries) =>
      setMany(
        entries.map(([key, vector]) => [key, vector] as [string, Float32Array]),
        store,
      ),
  };
}

/** How many document vectors an encoder computed and how many it found stored. */
export interface EncoderCounts {
  computed: number;
  reused: number;
}

/** What the tool index asks of a sentence encoder: vectors for tool texts (cached) and for a query. */
export interface SemanticEncoder {
  documents(texts: readonly string[]): Promise<number[][]>;
  query(text: string): Promise<number[]>;
  readonly counts: EncoderCounts;
}

/** Options of {@link cachedEncoder}. */
export interface CachedEncoderOptions {
  /** Where document vectors are kept; without one they are computed every time an index is built. */
  store?: ToolVectorStore | undefined;
  /** Names the model (and quantization) in the keys: vectors of different models never mix. */
  modelKey: string;
  /** Put before a query or a document (E5-style models expect `query: ` and `passage: `). */
  queryPrefix?: string | undefined;
  documentPrefix?: string | undefined;
}

/**
 * An encoder over `embed` that embeds each tool text once per model: stored vectors are reused,
 * only the missing ones are computed (in one batch) and stored. A store that fails is skipped, not
 * fatal: the vectors are then computed again next time.
 */
export function cachedEncoder(embed: Embedder, options: CachedEncoderOptions): SemanticEncoder {
  const counts: EncoderCounts = { computed: 0, reused: 0 };
  const documentPrefix = options.documentPrefix ?? '';
  return {
    counts,
    async documents(texts) {
      const keys = texts.map((text) => `${options.modelKey}\u0000${documentPrefix}${text}`);
      const stored = options.store ? await options.store.getMany(keys).catch(() => keys.map(() => undefined)) : keys.map(() => undefined);
      const missing = texts.flatMap((_text, i) => (stored[i] ? [] : [i]));
      const vectors: number[][] = stored.map((v) => (v ? Array.from(v) : []));
      if (missing.length) {
        const computed = await embed(missing.map((i) => `${documentPrefix}${texts[i]}`));
        for (const [j, at] of missing.entries()) vectors[at] = computed[j] ?? [];
        await options.store?.setMany(missing.map((at) => [keys[at]!, Float32Array.from(vectors[at]!)] as const)).catch(() => undefined);
      }
      counts.computed += missing.length;
      counts.reused += texts.length - missing.length;
      return vectors;
    },
    async query(text) {
      const [vector] = await embed([`${options.queryPrefix ?? ''}${text}`]);
      return vector ?? [];
    },
  };
}
