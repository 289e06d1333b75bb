/**
 * Fusing a lexical and a semantic ranking, as the tool index and the document index both do: reciprocal
 * rank fusion (k = 60, the usual constant), the lexical list weighted by how well its words matched.
 */

/** One entry of a ranking: an id and its score in that ranking. */
export interface Ranked {
  id: string;
  score: number;
}

/** A fused entry: its fused score, and which rankings put it forward. */
export interface Fused {
  id: string;
  score: number;
  by: 'lexical' | 'semantic' | 'combined';
}

/**
 * Both rankings fused by reciprocal rank, the lexical one weighted by `min(1, lexicalTop / sureLexicalScore)²`:
 * words that barely match are weak evidence and do not push noise above what the meaning found. Best first.
 */
export function fuseRankings(lexical: readonly Ranked[], semantic: readonly Ranked[], sureLexicalScore: number): Fused[] {
  const lexicalWeight = Math.min(1, (lexical[0]?.score ?? 0) / sureLexicalScore) ** 2;
  const fused = new Map<string, { score: number; lexical: boolean; semantic: boolean }>();
  const add = (list: readonly Ranked[], kind: 'lexical' | 'semantic', weight: number) =>
    list.forEach((hit, rank) => {
      const entry = fused.get(hit.id) ?? { score: 0, lexical: false, semantic: false };
      entry.score += weight / (60 + rank + 1);
      entry[kind] = true;
      fused.set(hit.id, entry);
    });
  add(lexical, 'lexical', lexicalWeight);
  add(semantic, 'semantic', 1);
  return [...fused]
    .sort((a, b) => b[1].score - a[1].score)
    .map(([id, e]) => ({ id, score: e.score, by: e.lexical && e.semantic ? 'combined' : e.lexical ? 'lexical' : 'semantic' }));
}

/** Cosine similarity of two vectors (0 where either is all zeros). */
export function cosine(a: readonly number[], b: readonly number[]): number {
  let dot = 0;
  let na = 0;
  let nb = 0;
  for (let i = 0; i < a.length; i++) {
    const x = a[i] ?? 0;
    const y = b[i] ?? 0;
    dot += x * y;
    na += x * x;
    nb += y * y;
  }
  return na && nb ? dot / Math.sqrt(na * nb) : 0;
}
