/**
 * Finding where a call block whose end is marked by a closing literal ends — string-aware, so a
 * closing marker written inside an argument's string is part of the argument, not the end.
 *
 * The scanner is resumable (a stream feeds it as text arrives and it never looks at a character
 * twice) and knows the string syntaxes the call bodies use: JSON and Python quotes with
 * backslash escapes, and delimiter pairs such as FunctionGemma's `<escape>…<escape>` and
 * Gemma 4's `<|"|>…<|"|>`, which have no escapes at all.
 */

/** Options of {@link BodyScanner}. */
export interface BodyScanOptions {
  /** Literals that end the block; the first one met outside a string wins. */
  closers: readonly string[];
  /** Quote characters with backslash escapes (default `"` and `'`). */
  quotes?: readonly string[];
  /** Delimiters that open and close a string by themselves, with no escapes. */
  delimiters?: readonly string[];
  /**
   * The body is one bracketed value: once its brackets balance, the block ends there unless a
   * closer follows (after spaces). Models leave the closer out and go on in prose.
   */
  endAtValue?: boolean;
  /** Literals that end the block where they stand even inside a string (another block's opener). */
  hardStops?: readonly string[];
}

/** Where a scan stands: still open, or ended with the block's end and the body's end. */
export type BodyScanStatus = { done: false } | { done: true; end: number; bodyEnd: number; closed: boolean };

const BACKSLASH = 92;

/** See the module comment. */
export class BodyScanner {
  private pos: number;
  private quote = '';
  private escaped = false;
  private depth = 0;
  private started = false;
  /** Where the bracketed value ended (with `endAtValue`), while looking for a closer after it. */
  private valueEnd = -1;
  private readonly closers: readonly string[];
  private readonly quotes: readonly string[];
  private readonly delimiters: readonly string[];
  private readonly endAtValue: boolean;
  private readonly hardStops: readonly string[];
  private readonly longest: number;
  /** First characters of every closer, delimiter and hard stop: only there is a literal tried. */
  private readonly firsts: ReadonlySet<number>;

  /** @param from - where the body starts (after the opener). */
  constructor(
    readonly from: number,
    options: BodyScanOptions,
  ) {
    this.pos = from;
    this.closers = options.closers;
    this.quotes = options.quotes ?? ['"', "'"];
    this.delimiters = options.delimiters ?? [];
    this.endAtValue = options.endAtValue ?? false;
    this.hardStops = options.hardStops ?? [];
    const literals = [...this.closers, ...this.delimiters, ...this.hardStops];
    this.longest = Math.max(1, ...literals.map((l) => l.length));
    this.firsts = new Set(literals.map((l) => l.charCodeAt(0)));
  }

  /** True when the scan stopped inside a string: a value read from the body would be a fragment. */
  get inString(): boolean {
    return this.quote !== '';
  }

  /** Shift positions after the caller dropped `delta` characters from the front of its buffer. */
  rebase(delta: number): void {
    this.pos -= delta;
    if (this.valueEnd >= 0) this.valueEnd -= delta;
  }

  /** Scan what has arrived; with `final`, the end of the text ends the block. */
  feed(text: string, final: boolean): BodyScanStatus {
    const n = text.length;
    let i = this.pos;
    while (i < n) {
      if (this.valueEnd >= 0) {
        // The value closed: only spaces may stand between it and a closer.
        const c = text.charCodeAt(i);
        if (c === 32 || c === 10 || c === 13 || c === 9) {
          i++;
          continue;
        }
        for (const closer of this.closers) {
          if (text.startsWith(closer, i)) return this.done(i + closer.length, this.valueEnd, true);
          if (!final && n - i < closer.length && closer.startsWith(text.slice(i))) return this.wait(i);
        }
        return this.done(this.valueEnd, this.valueEnd, false);
      }
      const literalHere = this.firsts.has(text.charCodeAt(i));
      const hard = literalHere ? this.matchAny(text, i, this.hardStops, final) : '';
      if (hard === 'wait') return this.wait(i);
      if (hard !== '') return this.done(i, i, false);
      if (this.quote !== '') {
        if (this.quote.length === 1) {
          const c = text.charCodeAt(i);
          if (this.escaped) this.escaped = false;
          else if (c === BACKSLASH) this.escaped = true;
          else if (text[i] === this.quote) this.quote = '';
          i++;
          continue;
        }
        if (text.startsWith(this.quote, i)) {
          i += this.quote.length;
          this.quote = '';
          continue;
        }
        if (!final && n - i < this.quote.length && this.quote.startsWith(text.slice(i))) return this.wait(i);
        i++;
        continue;
      }
      const closer = literalHere ? this.matchAny(text, i, this.closers, final) : '';
      if (closer === 'wait') return this.wait(i);
      if (closer !== '') return this.done(i + closer.length, i, true);
      const delimiter = literalHere ? this.matchAny(text, i, this.delimiters, final) : '';
      if (delimiter === 'wait') return this.wait(i);
      if (delimiter !== '') {
        this.quote = delimiter;
        i += delimiter.length;
        continue;
      }
      const ch = text[i] as string;
      if (this.quotes.includes(ch)) {
        this.quote = ch;
      } else if (ch === '{' || ch === '[' || ch === '(') {
        this.depth++;
        this.started = true;
      } else if (ch === '}' || ch === ']' || ch === ')') {
        if (this.depth > 0) this.depth--;
        if (this.depth === 0 && this.started && this.endAtValue) {
          this.valueEnd = i + 1;
        }
      }
      i++;
    }
    this.pos = i;
    if (!final) return { done: false };
    if (this.valueEnd >= 0) return this.done(this.valueEnd, this.valueEnd, false);
    return this.done(n, n, false);
  }

  private wait(i: number): BodyScanStatus {
    this.pos = i;
    return { done: false };
  }

  private done(end: number, bodyEnd: number, closed: boolean): BodyScanStatus {
    this.pos = end;
    return { done: true, end, bodyEnd, closed };
  }

  /** The literal of `literals` at `i`, 'wait' when the text ends inside a prefix of one, or ''. */
  private matchAny(text: string, i: number, literals: readonly string[], final: boolean): string {
    if (literals.length === 0) return '';
    const rest = text.length - i;
    for (const literal of literals) {
      if (text.startsWith(literal, i)) return literal;
      if (!final && rest < literal.length && rest < this.longest && literal.startsWith(text.slice(i))) return 'wait';
    }
    return '';
  }
}
