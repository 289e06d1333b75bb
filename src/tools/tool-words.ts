/**
 * What tool selection reads of tools without their index: a tool name's words, and how sure a ranking
 * must be. Kept apart from the index (tool-index.ts), whose search engine loads only when an answer has
 * more tools than it offers at once.
 */

/**
 * Below these, a ranking is unsure: the best lexical score (BM25-style) and the best cosine of the
 * semantic one. On the 155 labelled messages, a best lexical score of 12 or more had the right tool
 * in the top 5 for 82 % (76 of 93), below it for 13 % (8 of 62). The semantic figure follows
 * all-MiniLM-L6-v2's usual range for a relevant pair (about 0.4–0.7, normalised vectors).
 */
export const DEFAULT_CONFIDENCE: Readonly<{ lexical: number; semantic: number }> = Object.freeze({ lexical: 12, semantic: 0.5 });

/** `get_weather`, `sendEmail` → their words. */
export function nameWords(name: string): string {
  return name
    .replace(/([a-z])([A-Z])/g, '$1 $2')
    .replace(/[_\-.]+/g, ' ')
    .toLowerCase();
}
