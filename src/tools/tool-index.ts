import MiniSearch from 'minisearch';
import { errorMessage } from '../shared/errors.ts';
import type { Embedder, SemanticEncoder } from './tool-vectors.ts';
import { DEFAULT_CONFIDENCE, nameWords } from './tool-words.ts';
import { searchTerm as term } from './search-terms.ts';
import { cosine, fuseRankings } from './rank-fusion.ts';
/** What the index reads of a tool: any OpenAI-shaped schema (the registry's, the engine's). */
export interface IndexedTool {
  readonly function: {
    readonly name: string;
    readonly description?: string;
    readonly parameters?: { readonly properties?: Readonly<Record<string, unknown>> };
  };
}

/** One tool a ranking put forward for a message, and which ranking did. */
export interface RankedTool {
  name: string;
  score: number;
  /** `lexical`, `semantic`, or both (`combined`). */
  by: 'lexical' | 'semantic' | 'combined';
}

export type { Embedder } from './tool-vectors.ts';

/** A ranking of one query, with what it says about its own confidence. */
export interface ToolRanking {
  /** Best first: the fused ranking, or the lexical one alone without (or after a failure of) the encoder. */
  hits: RankedTool[];
  /** The best lexical score (MiniSearch's BM25-style score; 0 when no word matched). */
  lexicalTop: number;
  /** The best cosine similarity of the semantic ranking (undefined without one). */
  semanticTop?: number;
  /** Why the semantic ranking was not used for this query (its model failed to load or run). */
  semanticError?: string;
}

/** The text a tool is embedded as: its name's words and its description. */
function embeddingText(schema: IndexedTool): string {
  return `${nameWords(schema.function.name)}: ${schema.function.description ?? ''}`;
}

/** What the index reads of a tool: its name's words, its description, and each parameter's name, description and values. */
function documentOf(schema: IndexedTool): { id: string; name: string; description: string; parameters: string } {
  const properties = (schema.function.parameters?.properties ?? {}) as Record<string, { description?: string; enum?: unknown[] }>;
  const parameters = Object.entries(properties)
    .map(([key, value]) => [nameWords(key), value.description ?? '', ...(Array.isArray(value.enum) ? value.enum.map(String) : [])].join(' '))
    .join(' ');
  return { id: schema.function.name, name: nameWords(schema.function.name), description: schema.function.description ?? '', parameters };
}

/**
 * An index over the registered tools, built once per set of tools: a lexical ranking (MiniSearch,
 * BM25-style scoring with stemming and prefix/fuzzy matching) and, when an embedder is given, a
 * semantic one (cosine similarity of sentence embeddings, tool vectors computed once), fused by
 * reciprocal rank. Words people use rarely match a tool's own ("it's too dark" → set_lights), so
 * the lexical ranking alone finds the tool for messages that share its words, and the semantic one
 * is what carries the rest.
 */
export class ToolIndex {
  private readonly lexical: MiniSearch;
  private readonly encoder: SemanticEncoder | undefined;
  private toolVectors: Promise<number[][]> | undefined;
  private failure: string | undefined;

  /**
   * @param semantic - an {@link Embedder} (vectors computed here, once) or a {@link SemanticEncoder}
   * (which may keep them in a store); without one the index is lexical only.
   */
  constructor(
    private readonly tools: readonly IndexedTool[],
    semantic?: Embedder | SemanticEncoder,
  ) {
    this.lexical = new MiniSearch({
      fields: ['name', 'description', 'parameters'],
      storeFields: [],
      processTerm: term,
      searchOptions: { boost: { name: 3, description: 2 }, prefix: true, fuzzy: 0.15, combineWith: 'OR', processTerm: term },
    });
    this.lexical.addAll(tools.map(documentOf));
    this.encoder =
      typeof semantic === 'function'
        ? { documents: (texts) => semantic(texts), query: async (text) => (await semantic([text]))[0] ?? [], counts: { computed: 0, reused: 0 } }
        : semantic;
  }

  /** How many tools it holds. */
  get size(): number {
    return this.tools.length;
  }

  /** Whether a semantic ranking is configured (it may still fail; see {@link ToolIndex.semanticError}). */
  get hasSemantic(): boolean {
    return this.encoder !== undefined;
  }

  /** Why the semantic ranking stopped being used (its model failed), if it did. */
  get semanticError(): string | undefined {
    return this.failure;
  }

  /**
   * Embeds the tools now (they are otherwise embedded at the first query), so an index built when
   * `tools.js` loads is ready before the first message. Resolves false if the encoder failed.
   */
  async warm(): Promise<boolean> {
    if (!this.encoder || this.failure) return false;
    try {
      await this.vectors();
      return true;
    } catch (error) {
      this.failure = errorMessage(error);
      return false;
    }
  }

  /** The lexical ranking of `query`, best first. */
  searchLexical(query: string, limit = 10): RankedTool[] {
    return this.lexical
      .search(query)
      .slice(0, limit)
      .map((hit) => ({ name: String(hit.id), score: hit.score, by: 'lexical' as const }));
  }

  /** The semantic ranking of `query`, best first; empty without an encoder. Throws what the encoder throws. */
  async searchSemantic(query: string, limit = 10): Promise<RankedTool[]> {
    if (!this.encoder) return [];
    const [vectors, q] = await Promise.all([this.vectors(), this.encoder.query(query)]);
    if (!q.length) return [];
    return this.tools
      .map((t, i) => ({ name: t.function.name, score: cosine(q, vectors[i] ?? []), by: 'semantic' as const }))
      .sort((a, b) => b.score - a.score)
      .slice(0, limit);
  }

  /**
   * Both rankings fused by reciprocal rank (k = 60, the usual constant), the lexical one weighted
   * by how well the words matched (fully from `sureLexicalScore` up): a tool both put high comes
   * first; one ranking alone still counts. Without an encoder, or once it failed, the lexical
   * ranking alone — a tool-search model that cannot load never costs the answer.
   */
  async rank(query: string, limit = 5, sureLexicalScore = DEFAULT_CONFIDENCE.lexical): Promise<ToolRanking> {
    const lexical = this.searchLexical(query, 20);
    const lexicalTop = lexical[0]?.score ?? 0;
    if (!this.encoder || this.failure) return { hits: lexical.slice(0, limit), lexicalTop, ...(this.failure ? { semanticError: this.failure } : {}) };
    let semantic: RankedTool[];
    try {
      semantic = await this.searchSemantic(query, 20);
    } catch (error) {
      this.failure = errorMessage(error);
      return { hits: lexical.slice(0, limit), lexicalTop, semanticError: this.failure };
    }
    const hits = fuseRankings(
      lexical.map((hit) => ({ id: hit.name, score: hit.score })),
      semantic.map((hit) => ({ id: hit.name, score: hit.score })),
      sureLexicalScore,
    )
      .slice(0, limit)
      .map(({ id, score, by }) => ({ name: id, score, by }));
    return { hits, lexicalTop, ...(semantic[0] ? { semanticTop: semantic[0].score } : {}) };
  }

  /** The best `limit` tools for `query` (see {@link ToolIndex.rank}). */
  async search(query: string, limit = 5): Promise<RankedTool[]> {
    return (await this.rank(query, limit)).hits;
  }

  private vectors(): Promise<number[][]> {
    if (!this.encoder) return Promise.resolve([]);
    // A failure is latched by the callers (`failure`): this index does not ask the encoder again.
    this.toolVectors ??= this.encoder.documents(this.tools.map(embeddingText));
    return this.toolVectors;
  }
}
