import MiniSearch from 'minisearch';
import { errorMessage } from '../shared/errors.ts';
import { passagesOf, type DocumentPassage, type PassageOptions } from './document-passages.ts';
import { cosine, fuseRankings } from './rank-fusion.ts';
import { searchTerms, WORD_SEPARATORS } from './search-terms.ts';
import type { Embedder, SemanticEncoder } from './tool-vectors.ts';

/** What the index holds of one document. */
export interface IndexedDocument {
  readonly name: string;
  /** Characters of its text. */
  readonly chars: number;
  readonly passages: number;
}

/**
 * A passage a search found, and which ranking put it forward; `skim` when no ranking found anything and the
 * passage is one of a few spread through the documents in order (a request for the whole file, such as
 * "summarise it", names no word of it).
 */
export interface PassageHit {
  readonly passage: DocumentPassage;
  readonly score: number;
  readonly by: 'lexical' | 'semantic' | 'combined' | 'skim';
}

/** How {@link DocumentIndex.search} searches. */
export interface PassageSearchOptions {
  /** Passages at most (default 4). */
  limit?: number;
  /** Characters of passage text at most, all hits together: the best ones that fit, in rank order (default: no bound). */
  maxChars?: number;
  /** Only these documents, by name (default: all). */
  documents?: readonly string[];
}

/**
 * What an answer searches documents through (`ChatOptions.documents`): a {@link DocumentIndex}, or one held
 * elsewhere (the page keeps its index in a worker of its own) with the same two members.
 */
export interface PassageIndex {
  /** The documents it holds, in the order they were added. */
  readonly documents: readonly IndexedDocument[];
  /** The passages that best answer `query`, best first. */
  search(query: string, options?: PassageSearchOptions): Promise<PassageHit[]>;
}

/**
 * A best lexical score (BM25-style) from which the words alone are trusted as much as the meaning: passages
 * are longer than tool descriptions, so their scores run higher than the tool index's.
 */
const SURE_LEXICAL_SCORE = 15;

/**
 * Documents too long for a small model's context, searchable by passage: a lexical ranking (MiniSearch's
 * BM25-style scoring over each passage's text and headings, stemmed, with prefix and fuzzy matching) and,
 * given an embedder, a semantic one (cosine of sentence embeddings, each passage embedded once), fused by
 * reciprocal rank as the tool index fuses tools. All on the device: nothing leaves it.
 */
export class DocumentIndex implements PassageIndex {
  private readonly lexical: MiniSearch<{ id: string; text: string; heading: string; document: string }>;
  private readonly passages = new Map<string, DocumentPassage>();
  private readonly docs = new Map<string, IndexedDocument>();
  private readonly encoder: SemanticEncoder | undefined;
  private readonly vectors = new Map<string, Promise<number[]>>();
  private failure: string | undefined;

  /**
   * @param options.semantic - an {@link Embedder} or a {@link SemanticEncoder}; without one the index is lexical only.
   * @param options.passages - how documents are cut (see {@link passagesOf}).
   */
  constructor(private readonly options: { semantic?: Embedder | SemanticEncoder; passages?: PassageOptions } = {}) {
    this.lexical = new MiniSearch({
      fields: ['text', 'heading', 'document'],
      storeFields: [],
      tokenize: (text) => text.split(WORD_SEPARATORS),
      processTerm: searchTerms,
      searchOptions: {
        boost: { heading: 1.5, document: 0.5 },
        prefix: true,
        // No fuzzy matching: over hundreds of passages a near-spelling matches more noise than typos (on the labelled set: 83 % recall@3 without, 80 % at 0.15).
        fuzzy: 0,
        combineWith: 'OR',
        tokenize: (text) => text.split(WORD_SEPARATORS),
        processTerm: searchTerms,
      },
    });
    const semantic = options.semantic;
    this.encoder =
      typeof semantic === 'function'
        ? { documents: (texts) => semantic(texts), query: async (text) => (await semantic([text]))[0] ?? [], counts: { computed: 0, reused: 0 } }
        : semantic;
  }

  /** The documents it holds, in the order they were added. */
  get documents(): IndexedDocument[] {
    return [...this.docs.values()];
  }

  /** Why the semantic ranking stopped being used (its model failed), if it did. */
  get semanticError(): string | undefined {
    return this.failure;
  }

  /**
   * Cuts a document into passages and indexes them. A document of the same name is replaced.
   * @returns what the index now holds of it.
   */
  add(document: { name: string; text: string }): IndexedDocument {
    if (this.docs.has(document.name)) this.remove(document.name);
    const passages = passagesOf(document, this.options.passages);
    for (const passage of passages) this.passages.set(idOf(passage), passage);
    this.lexical.addAll(passages.map((p) => ({ id: idOf(p), text: p.text, heading: p.heading ?? '', document: p.document })));
    const indexed = Object.freeze({ name: document.name, chars: document.text.length, passages: passages.length });
    this.docs.set(document.name, indexed);
    return indexed;
  }

  /** Takes a document out of the index (nothing happens for a name it does not hold). */
  remove(name: string): void {
    if (!this.docs.delete(name)) return;
    for (const [id, passage] of this.passages) {
      if (passage.document !== name) continue;
      this.lexical.discard(id);
      this.passages.delete(id);
      this.vectors.delete(id);
    }
  }

  /** Whether it holds a document of this name. */
  has(name: string): boolean {
    return this.docs.has(name);
  }

  /**
   * The passages that best answer `query`, best first, as many as `limit` and `maxChars` allow. Without an
   * encoder, or once it failed, by words alone: a model that cannot load never costs the search.
   */
  async search(query: string, options: PassageSearchOptions = {}): Promise<PassageHit[]> {
    const limit = options.limit ?? 4;
    const only = options.documents?.length ? new Set(options.documents) : undefined;
    const inScope = (id: string) => !only || only.has(this.passages.get(id)?.document ?? '');
    const lexical = this.lexical
      .search(query)
      .filter((hit) => inScope(String(hit.id)))
      .slice(0, 30)
      .map((hit) => ({ id: String(hit.id), score: hit.score }));
    let ranked: { id: string; score: number; by: PassageHit['by'] }[] = lexical.map((hit) => ({ ...hit, by: 'lexical' as const }));
    if (this.encoder && !this.failure) {
      try {
        ranked = fuseRankings(lexical, await this.searchSemantic(query, inScope), SURE_LEXICAL_SCORE);
      } catch (error) {
        this.failure = errorMessage(error);
      }
    }
    // Nothing ranks: the question is about the files as a whole ("summarise the attached file"), not a word in them.
    if (!ranked.length) ranked = this.skim(inScope, limit, options.maxChars);
    const hits: PassageHit[] = [];
    let chars = 0;
    for (const { id, score, by } of ranked) {
      const passage = this.passages.get(id);
      if (!passage) continue;
      if (options.maxChars !== undefined && chars + passage.text.length > options.maxChars) continue;
      hits.push(Object.freeze({ passage, score, by }));
      chars += passage.text.length;
      if (hits.length >= limit) break;
    }
    return hits;
  }

  /**
   * Passages spread evenly through the documents in scope, in reading order, as many as `limit` and `maxChars` allow:
   * the first, the last and those between at equal steps, so that an overview of a long file sees all of it.
   */
  private skim(inScope: (id: string) => boolean, limit: number, maxChars: number | undefined): { id: string; score: number; by: 'skim' }[] {
    const ids = [...this.passages.keys()].filter(inScope);
    if (!ids.length) return [];
    const lengths = ids.map((id) => this.passages.get(id)?.text.length ?? 0);
    const average = lengths.reduce((sum, n) => sum + n, 0) / ids.length;
    const fit = maxChars === undefined ? limit : Math.max(1, Math.min(limit, Math.floor(maxChars / Math.max(1, average))));
    const count = Math.min(fit, ids.length);
    const picked = count === 1 ? [0] : Array.from({ length: count }, (_, i) => Math.round((i * (ids.length - 1)) / (count - 1)));
    return [...new Set(picked)].map((at) => ({ id: ids[at] as string, score: 0, by: 'skim' as const }));
  }

  /** Passages by meaning: every passage in scope embedded once (what it reads: its heading and text), ranked by cosine. */
  private async searchSemantic(query: string, inScope: (id: string) => boolean): Promise<{ id: string; score: number }[]> {
    const encoder = this.encoder as SemanticEncoder;
    const ids = [...this.passages.keys()].filter(inScope);
    const missing = ids.filter((id) => !this.vectors.has(id));
    if (missing.length) {
      const computed = encoder.documents(missing.map((id) => embeddingText(this.passages.get(id) as DocumentPassage)));
      missing.forEach((id, i) => {
        this.vectors.set(
          id,
          computed.then((all) => all[i] ?? []),
        );
      });
      // A failed batch is not kept: the next search may try again only if this one's failure was not latched.
      computed.catch(() => {
        for (const id of missing) this.vectors.delete(id);
      });
    }
    const [q, vectors] = await Promise.all([encoder.query(query), Promise.all(ids.map((id) => this.vectors.get(id) as Promise<number[]>))]);
    if (!q.length) return [];
    return ids
      .map((id, i) => ({ id, score: cosine(q, vectors[i] ?? []) }))
      .sort((a, b) => b.score - a.score)
      .slice(0, 30);
  }
}

const idOf = (passage: DocumentPassage) => `${passage.document}\u0000${passage.index}`;

/** What a passage is embedded as: the heading it sits under, then its text. */
function embeddingText(passage: DocumentPassage): string {
  return passage.heading ? `${passage.heading}\n${passage.text}` : passage.text;
}
