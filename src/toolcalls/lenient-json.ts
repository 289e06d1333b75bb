import { jsonrepair } from 'jsonrepair';

/**
 * Parse JSON the way a quantized model writes it: strict first (it usually is valid, and strict
 * parsing is fast), then through `jsonrepair`, which closes what was left open, drops trailing
 * commas, turns single quotes and Python's `True`/`None` into JSON, and quotes bare words.
 *
 * Callers hand over only the span they believe is the value (see `JsonSpanScanner`): given
 * a call followed by prose, a repairer happily turns the prose into extra keys.
 *
 * @returns the value, or `undefined` when nothing sensible can be made of the text.
 */
export function parseLenientJson(text: string): unknown {
  const trimmed = text.trim();
  if (trimmed === '') return undefined;
  try {
    return JSON.parse(trimmed) as unknown;
  } catch {
    // Fall through to the repairer.
  }
  try {
    return JSON.parse(jsonrepair(trimmed)) as unknown;
  } catch {
    return undefined;
  }
}

/** A plain object (not an array, not null): the only thing that can hold named arguments. */
export function isPlainObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

const JSON_NUMBER = /^-?(?:0|[1-9]\d*)(?:\.\d+)?(?:[eE][+-]?\d+)?$/;

/**
 * Decode `text` only when it is, in full, a JSON number, `true`, `false`, `null`, array or
 * object; anything else (including a quoted string) is returned unchanged as a string.
 *
 * Strict on purpose: a value such as `0123` or `Paris, France` is prose, and guessing at it
 * would change what the model asked for.
 */
export function decodeJsonLiteral(text: string): unknown {
  const t = text.trim();
  if (t === 'true') return true;
  if (t === 'false') return false;
  if (t === 'null') return null;
  if (JSON_NUMBER.test(t)) return Number(t);
  const first = t.charCodeAt(0);
  if (first === 123 || first === 91) {
    try {
      return JSON.parse(t) as unknown;
    } catch {
      return text;
    }
  }
  return text;
}
