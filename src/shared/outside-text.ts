/**
 * Marks for text the loop did not write (a schema's property names, per-conversation or imported
 * instructions, a server's system prompt, a stopped answer's text) where it joins text the loop did
 * write, so the engine can keep control tokens in it from becoming control. The marks travel inside the
 * prompt string itself — there is nothing to remember and nothing to forget — and the engine that
 * encodes the prompt removes them. Two private-use characters, which outside text cannot forge: marking
 * removes them from the text it marks, and the guard removes them from every message.
 */
export const OUTSIDE_START = '\uE002';
/** Closes a span opened by {@link OUTSIDE_START}. */
export const OUTSIDE_END = '\uE003';

/**
 * Opens and closes a tool result in a rendered prompt: the text an answer copies from. An engine with a
 * repetition penalty leaves its tokens unpenalised (a code in a result is what the answer must repeat).
 */
export const RESULT_START = '\uE004';
/** Closes a span opened by {@link RESULT_START}. */
export const RESULT_END = '\uE005';

const MARKS = /[\uE002-\uE005]/g;
const A_MARK = /[\uE002-\uE005]/;

/**
 * `text` marked as written outside the loop: an engine that guards its prompts reads any control token
 * in it as ordinary characters.
 *
 * @param text - the outside text; marks already in it are dropped, so it cannot close its own span.
 */
export function outside(text: string): string {
  return `${OUTSIDE_START}${text.replace(MARKS, '')}${OUTSIDE_END}`;
}

/**
 * The same structure with every string (and every object key) marked with {@link outside}: for
 * arguments and schema-derived values written into the loop's own text.
 */
export function outsideDeep<T>(value: T): T {
  if (typeof value === 'string') return outside(value) as T;
  if (Array.isArray(value)) return value.map((item: unknown) => outsideDeep(item)) as T;
  if (value && typeof value === 'object') return Object.fromEntries(Object.entries(value).map(([k, v]) => [outside(k), outsideDeep(v)])) as T;
  return value;
}

/**
 * `text` without outside marks: what an engine that does not guard its prompts (a remote API, a
 * scripted test engine) feeds or shows.
 */
export function withoutOutsideMarks(text: string): string {
  return text.replace(MARKS, '');
}

/** True when `text` holds an outside (or result) mark. */
export function hasOutsideMarks(text: string): boolean {
  return A_MARK.test(text);
}
