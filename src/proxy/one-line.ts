/**
 * Characters that end a line somewhere: LF, VT, FF, CR, NEL (U+0085), LINE SEPARATOR and PARAGRAPH
 * SEPARATOR. JavaScript's `\s` misses NEL, so a `\s+` collapse lets it through; a model's tokenizer
 * or a renderer may still break the line there.
 */
const LINE_BREAKS = /[\n\v\f\r\u0085\u2028\u2029]+/g;

/**
 * Characters dropped outright: the other C0 and C1 controls, DEL, and the invisible format
 * characters that reorder or hide text (bidirectional overrides and isolates, zero-width marks,
 * the byte-order mark), which let a string look like something it is not.
 */
const INVISIBLE =
  // biome-ignore lint/suspicious/noControlCharactersInRegex: these are the control and format characters it removes.
  /[\u0000-\u0008\u000e-\u001f\u007f-\u0084\u0086-\u009f\u00ad\u061c\u180e\u200b-\u200f\u202a-\u202e\u2060-\u2064\u2066-\u206f\ufeff\ufff9-\ufffb]/g;

/**
 * Makes a string that came from a page, a response header or a search engine safe to put on a line
 * of its own outside a fence: every line terminator (all of Unicode's, not only `\n`) becomes a
 * space, control and invisible format characters are dropped, whitespace runs collapse, and the
 * result is cut to `max` characters (ending in `…` when cut, never in half a surrogate pair).
 * Linear in the input: each regex here matches single characters or one run, never backtracks.
 *
 * @param text - the untrusted string (anything that is not a string becomes '').
 * @param max - the most characters returned.
 *
 * @remarks Security: rule 6 (page text is data). Threat: attacker text reaching the model outside
 * the fence and forging whole lines there — a fake budget line, "SYSTEM: …", a fake fence marker —
 * through a title, a `Content-Type` value, a search result's date or an engine's error message.
 */
export function oneLine(text: unknown, max: number): string {
  if (typeof text !== 'string' || text === '') return '';
  const flat = text
    .replace(LINE_BREAKS, ' ')
    .replace(INVISIBLE, '')
    .replace(/[\t \u00a0\u1680\u2000-\u200a\u202f\u205f\u3000]+/g, ' ')
    .trim();
  if (flat.length <= max) return flat;
  let end = Math.max(0, max - 1);
  const code = flat.charCodeAt(end - 1);
  if (code >= 0xd800 && code <= 0xdbff) end--;
  return `${flat.slice(0, end).trimEnd()}…`;
}

/**
 * True when a string would stay on one line and shows no hidden characters: what {@link oneLine}
 * guarantees, for tests and assertions.
 * @param text - the string to check.
 */
export function isOneLine(text: string): boolean {
  return !/[\n\v\f\r\u0085\u2028\u2029]/.test(text) && !new RegExp(INVISIBLE.source).test(text);
}
