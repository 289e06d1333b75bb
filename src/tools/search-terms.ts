import { stemmer } from 'stemmer';

/** Words that say nothing about what is searched for (which tool, which passage). */
const STOP_WORDS = new Set(
  'a an the and or of to in on at for with by from is are was be it its this that these those my me i you your we our can could would should will please what how when where which who do does did get give make let some any into out up down about as than then so just there here now'.split(
    ' ',
  ),
);

/** One word as the lexical indexes keep it: lowercase, stop words dropped, stemmed (Porter), so "forecasting" and "forecast" meet. */
export function searchTerm(word: string): string | null {
  const lower = word.toLowerCase();
  if (lower.length < 2 || STOP_WORDS.has(lower)) return null;
  return stemmer(lower);
}

/** Anything but letters and digits separates words (a backtick, a slash, an underscore too). */
export const WORD_SEPARATORS = /[^\p{L}\p{N}]+/u;

/**
 * One word as the document index keeps it: {@link searchTerm} of the whole, and of each part of an identifier
 * (`keepAliveTimeout` → keep, alive, timeout; `return503OnClosing` → return, 503, on, closing), so a question
 * in plain words finds a passage that names the setting in code.
 */
export function searchTerms(word: string): string[] | null {
  const parts = word
    .replace(/([\p{Ll}\p{N}])(\p{Lu})/gu, '$1 $2')
    .replace(/(\p{Lu})(\p{Lu}\p{Ll})/gu, '$1 $2')
    .replace(/(\p{L})(\p{N})|(\p{N})(\p{L})/gu, (_, a, b, c, d) => (a ? `${a} ${b}` : `${c} ${d}`))
    .split(' ');
  const terms = new Set([word, ...(parts.length > 1 ? parts : [])].map(searchTerm).filter((t): t is string => t !== null));
  return terms.size ? [...terms] : null;
}
