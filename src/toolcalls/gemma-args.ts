import { setOwn } from './own-property.ts';

/**
 * The argument syntax of FunctionGemma and Gemma 4 calls: `{key:value,…}` with bare keys, strings
 * between `<escape>` (FunctionGemma) or `<|"|>` (Gemma 4) delimiters, plain JSON strings too,
 * numbers, `true`/`false`/`null`, nested objects and lists.
 *
 * Read strictly: a key must be an identifier (or a delimited or quoted string), and anything
 * that does not fit makes the whole object unreadable rather than half-read. A value between
 * delimiters is a string even when it looks like a number, except for FunctionGemma's habit of
 * writing numbers as `<escape>42<escape>`, which its parsers coerce (vLLM's functiongemma tests).
 */

/** The string delimiters, longest first. */
export const GEMMA_DELIMITERS = ['<|"|>', '<escape>'] as const;

const NUMBER = /^-?(?:0|[1-9]\d*)(?:\.\d+)?(?:[eE][+-]?\d+)?$/;

/**
 * Decode `text` (starting at `{`) into an object.
 * @returns the object and where it ended, or undefined when it is not readable.
 */
export function parseGemmaObject(text: string, from = 0): { value: Record<string, unknown>; end: number } | undefined {
  const reader = new GemmaReader(text, from);
  const value = reader.object();
  return value === undefined ? undefined : { value, end: reader.pos };
}

class GemmaReader {
  constructor(
    private readonly text: string,
    public pos: number,
  ) {}

  object(): Record<string, unknown> | undefined {
    if (this.text[this.pos] !== '{') return undefined;
    this.pos++;
    const out: Record<string, unknown> = {};
    this.space();
    if (this.text[this.pos] === '}') {
      this.pos++;
      return out;
    }
    for (;;) {
      this.space();
      const key = this.key();
      if (key === undefined) return undefined;
      this.space();
      if (this.text[this.pos] !== ':') return undefined;
      this.pos++;
      this.space();
      const value = this.value();
      if (value === INVALID) return undefined;
      setOwn(out, key, value);
      this.space();
      const c = this.text[this.pos];
      if (c === ',') {
        this.pos++;
        continue;
      }
      if (c === '}') {
        this.pos++;
        return out;
      }
      return undefined;
    }
  }

  private list(): unknown[] | typeof INVALID {
    this.pos++;
    const out: unknown[] = [];
    this.space();
    if (this.text[this.pos] === ']') {
      this.pos++;
      return out;
    }
    for (;;) {
      this.space();
      const value = this.value();
      if (value === INVALID) return INVALID;
      out.push(value);
      this.space();
      const c = this.text[this.pos];
      if (c === ',') {
        this.pos++;
        continue;
      }
      if (c === ']') {
        this.pos++;
        return out;
      }
      return INVALID;
    }
  }

  private key(): string | undefined {
    const delimited = this.delimited();
    if (delimited !== undefined) return delimited;
    if (this.text[this.pos] === '"') {
      const s = this.jsonString();
      return s === INVALID ? undefined : (s as string);
    }
    const start = this.pos;
    while (this.pos < this.text.length && /[\w.-]/.test(this.text[this.pos] as string)) this.pos++;
    return this.pos > start ? this.text.slice(start, this.pos) : undefined;
  }

  private value(): unknown {
    const delimited = this.delimited();
    if (delimited !== undefined) {
      // FunctionGemma writes numbers between delimiters too; its parsers read them as numbers.
      return NUMBER.test(delimited.trim()) ? Number(delimited.trim()) : delimited;
    }
    const c = this.text[this.pos];
    if (c === '{') return this.object() ?? INVALID;
    if (c === '[') return this.list();
    if (c === '"') return this.jsonString();
    const start = this.pos;
    while (this.pos < this.text.length && !/[,}\]]/.test(this.text[this.pos] as string)) this.pos++;
    const word = this.text.slice(start, this.pos).trim();
    if (word === '') return INVALID;
    if (word === 'true') return true;
    if (word === 'false') return false;
    if (word === 'null' || word === 'None') return null;
    if (word === 'True') return true;
    if (word === 'False') return false;
    if (NUMBER.test(word)) return Number(word);
    return word;
  }

  private delimited(): string | undefined {
    for (const delimiter of GEMMA_DELIMITERS) {
      if (!this.text.startsWith(delimiter, this.pos)) continue;
      const close = this.text.indexOf(delimiter, this.pos + delimiter.length);
      if (close < 0) return undefined;
      const value = this.text.slice(this.pos + delimiter.length, close);
      this.pos = close + delimiter.length;
      return value;
    }
    return undefined;
  }

  private jsonString(): unknown {
    let i = this.pos + 1;
    let escaped = false;
    for (; i < this.text.length; i++) {
      const ch = this.text[i];
      if (escaped) escaped = false;
      else if (ch === '\\') escaped = true;
      else if (ch === '"') break;
    }
    if (i >= this.text.length) return INVALID;
    try {
      const value = JSON.parse(this.text.slice(this.pos, i + 1)) as unknown;
      this.pos = i + 1;
      return value;
    } catch {
      return INVALID;
    }
  }

  private space(): void {
    while (this.pos < this.text.length && /\s/.test(this.text[this.pos] as string)) this.pos++;
  }
}

const INVALID = Symbol('invalid');
