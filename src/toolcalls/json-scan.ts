/**
 * Finding where a JSON-ish value ends inside free text, one character at a time.
 *
 * Repairing JSON is `jsonrepair`'s job; deciding how much of the text *is* the JSON is ours,
 * because a repairer handed a call followed by prose turns the prose into keys. The scanner
 * counts brackets outside strings (double- or single-quoted, so sloppy Python-style output
 * scans too), forgives a mismatched closer, and is resumable: a stream feeds it as text
 * arrives and it never looks at a character twice.
 */

/** How a scan stands. */
export type JsonScanStatus =
  /** The value has not closed yet; feed more text (or treat the end of text as its end). */
  | 'open'
  /** Brackets balanced; {@link JsonSpanScanner.end} is just past the closer. */
  | 'closed'
  /** Stopped at a blank line or a stop marker before closing; {@link JsonSpanScanner.end} is where. */
  | 'cut'
  /** With `callKeys`: the text after the opener cannot start a JSON object/array of objects at all. */
  | 'invalid';

/** Options of {@link JsonSpanScanner}. */
export interface JsonScanOptions {
  /**
   * Keys a call object may have at its top level. When given, the scanner watches the keys of
   * the outer object (or of each object directly inside an outer array) and sets `rejected` at
   * the first key outside the set, so a data object is recognised as data long before it
   * closes. Keys must be quoted; an unquoted key rejects too.
   */
  callKeys?: ReadonlySet<string>;
  /** Treat a blank line as the end of an unterminated value: a call never spans one. */
  stopAtBlankLine?: boolean;
  /**
   * Literals that end the value: outside a string at once; inside a string only if the value
   * then fails to close (the string held call markup as text, or a missing quote or brace let the
   * value run into the next call — only the end of the value tells which, so the first such
   * literal inside a string is remembered and the value is cut there unless it closes).
   */
  stopAt?: readonly string[];
  /** Also balance parentheses (for `name(key="v")` call expressions). */
  parens?: boolean;
  /**
   * Treat the value as unterminated after this many newlines. Bounds the work when an
   * unterminated value is re-read up to an earlier newline and the text after it scanned again.
   */
  maxLines?: number;
}

const QUOTE = 34;
const APOS = 39;
const BACKSLASH = 92;
const OPEN_BRACE = 123;
const CLOSE_BRACE = 125;
const OPEN_BRACKET = 91;
const CLOSE_BRACKET = 93;
const OPEN_PAREN = 40;
const CLOSE_PAREN = 41;
const COMMA = 44;
const NEWLINE = 10;

/** Expectation at the call level, for key watching. */
const EXPECT_NOTHING = 0;
const EXPECT_KEY = 1;
const EXPECT_ELEMENT = 2;

/**
 * Resumable scanner for one bracketed value starting at `start` (a `{`, `[` or, with `parens`,
 * any character before the first `(`).
 *
 * Why resumable rather than a function: the stream filter calls it once per chunk for a value
 * still arriving, and restarting from the opener each time would be quadratic in the value's size.
 */
export class JsonSpanScanner {
  /** Where the value starts. */
  start: number;
  /** Next character to look at. */
  pos: number;
  /** Just past the value (`closed`) or where it was cut (`cut`); -1 while open. */
  end = -1;
  /** Where scanning stands. */
  status: JsonScanStatus = 'open';
  /** With `callKeys`: a key outside the set, or a non-object element, was seen. */
  rejected = false;
  /** With `callKeys`: the first key (or first element object) was seen, so this really is JSON. */
  committed = false;

  private readonly stack: number[] = [];
  private quote = 0;
  private escaped = false;
  private keyStart = -1;
  private expect = EXPECT_NOTHING;
  private callDepth = 1;
  private newlineAt = -1;
  /** The first stop literal seen inside a string: where the value is cut if it never closes. */
  private tentativeCut = -1;
  private lines = 0;
  private readonly maxLines: number;
  private readonly callKeys: ReadonlySet<string> | undefined;
  private readonly stopAtBlankLine: boolean;
  private readonly stopAt: readonly string[];
  private readonly stopFirst: Set<number>;
  private readonly parens: boolean;

  constructor(start: number, options: JsonScanOptions = {}) {
    this.start = start;
    this.pos = start;
    this.callKeys = options.callKeys;
    this.stopAtBlankLine = options.stopAtBlankLine ?? false;
    this.stopAt = options.stopAt ?? NO_STOPS;
    this.stopFirst = firstCharsOf(this.stopAt);
    this.parens = options.parens ?? false;
    this.maxLines = options.maxLines ?? Number.POSITIVE_INFINITY;
  }

  /**
   * How far the value is known not to be cut: the scan position, or the stop literal met inside
   * a string while it is still open (the value may yet be cut there). Text before it may be released.
   */
  get settled(): number {
    return this.tentativeCut >= 0 && this.status === 'open' ? Math.min(this.pos, this.tentativeCut) : this.pos;
  }

  /** True when the scan ended (or paused) inside a string literal: a value there would be a fragment. */
  get inString(): boolean {
    return this.quote !== 0;
  }

  /** Shift every position by `-delta`, after the caller dropped `delta` characters from the front of its buffer. */
  rebase(delta: number): void {
    this.start -= delta;
    this.pos -= delta;
    if (this.end >= 0) this.end -= delta;
    if (this.keyStart >= 0) this.keyStart -= delta;
    if (this.newlineAt >= 0) this.newlineAt -= delta;
    if (this.tentativeCut >= 0) this.tentativeCut -= delta;
  }

  /**
   * Scan `text` from where the last call stopped up to `limit`. With `final` false, a possible
   * stop marker cut short by `limit` pauses the scan there instead of being read as content.
   */
  feed(text: string, limit: number = text.length, final = true): JsonScanStatus {
    if (this.status !== 'open') return this.status;
    const checking = this.callKeys !== undefined;
    const stack = this.stack;
    let i = this.pos;
    for (; i < limit; i++) {
      const c = text.charCodeAt(i);

      if (this.stopFirst.has(c)) {
        const verdict = this.matchStop(text, i, limit, final);
        if (verdict === 'stop') {
          if (this.quote === 0) return this.cut(i);
          if (this.tentativeCut < 0) this.tentativeCut = i;
        }
        if (verdict === 'wait') {
          this.pos = i;
          return 'open';
        }
      }

      if (c === NEWLINE && ++this.lines >= this.maxLines) return this.cut(i);

      if (this.stopAtBlankLine) {
        if (c === NEWLINE) {
          if (this.newlineAt >= 0) return this.cut(this.newlineAt, i);
          this.newlineAt = i;
        } else if (c !== 32 && c !== 9 && c !== 13) {
          this.newlineAt = -1;
        }
      }

      if (this.quote !== 0) {
        if (this.escaped) this.escaped = false;
        else if (c === BACKSLASH) this.escaped = true;
        else if (c === this.quote) {
          this.quote = 0;
          if (this.keyStart >= 0) {
            const key = text.slice(this.keyStart, i);
            this.keyStart = -1;
            if (!this.rejected && this.callKeys !== undefined && !this.callKeys.has(key)) this.rejected = true;
          }
        }
        continue;
      }
      if (c === 32 || c === NEWLINE || c === 9 || c === 13) continue;

      if (checking && !this.rejected && this.expect !== EXPECT_NOTHING) {
        if (this.expect === EXPECT_KEY) {
          if (c === QUOTE || c === APOS) {
            this.committed = true;
            this.expect = EXPECT_NOTHING;
            this.keyStart = i + 1;
            this.quote = c;
            continue;
          }
          if (c !== CLOSE_BRACE && c !== COMMA) {
            // An unquoted key: prose in braces, or JS. Either way not a call we accept bare.
            if (!this.committed) return this.finish('invalid', i, i);
            this.rejected = true;
          }
        } else {
          if (c === OPEN_BRACE) this.expect = EXPECT_NOTHING;
          else if (c !== CLOSE_BRACKET && c !== COMMA) {
            if (!this.committed) return this.finish('invalid', i, i);
            this.rejected = true;
          }
        }
      }

      switch (c) {
        case QUOTE:
        case APOS:
          this.quote = c;
          break;
        case OPEN_BRACE:
        case OPEN_BRACKET:
        case OPEN_PAREN:
          if (c === OPEN_PAREN && !this.parens) break;
          if (stack.length === 0 && c === OPEN_BRACKET) this.callDepth = 2;
          stack.push(c);
          if (checking && !this.rejected) {
            if (c === OPEN_BRACE && stack.length === this.callDepth) {
              this.expect = EXPECT_KEY;
              if (this.callDepth === 2) this.committed = true;
            } else if (c === OPEN_BRACKET && stack.length === 1) {
              this.expect = EXPECT_ELEMENT;
            }
          }
          break;
        case CLOSE_BRACE:
        case CLOSE_BRACKET:
        case CLOSE_PAREN: {
          if (c === CLOSE_PAREN && !this.parens) break;
          const opener = c === CLOSE_BRACE ? OPEN_BRACE : c === CLOSE_BRACKET ? OPEN_BRACKET : OPEN_PAREN;
          const at = stack.lastIndexOf(opener);
          // A closer with no opener is sloppiness, not the end of the value: ignore it.
          if (at >= 0) stack.length = at;
          if (stack.length === 0 && at >= 0) return this.finish('closed', i + 1, i + 1);
          break;
        }
        case COMMA:
          if (checking && !this.rejected) {
            const top = stack[stack.length - 1];
            if (stack.length === this.callDepth && top === OPEN_BRACE) this.expect = EXPECT_KEY;
            else if (this.callDepth === 2 && stack.length === 1) this.expect = EXPECT_ELEMENT;
          }
          break;
        default:
          break;
      }
    }
    this.pos = i;
    // Out of text for good while still open: a stop literal met inside a string ends the value there.
    if (final && limit >= text.length && this.tentativeCut >= 0) return this.cut(this.tentativeCut);
    return 'open';
  }

  /** Cut the value at `at` — or earlier, at a stop literal met inside a string, which then did not hold text. */
  private cut(at: number, pos: number = at): JsonScanStatus {
    if (this.tentativeCut >= 0 && this.tentativeCut < at) {
      this.quote = QUOTE;
      return this.finish('cut', this.tentativeCut, this.tentativeCut);
    }
    return this.finish('cut', at, pos);
  }

  private finish(status: JsonScanStatus, end: number, pos: number): JsonScanStatus {
    this.status = status;
    this.end = end;
    this.pos = pos;
    return status;
  }

  private matchStop(text: string, i: number, limit: number, final: boolean): 'stop' | 'wait' | 'no' {
    for (const marker of this.stopAt) {
      if (text.startsWith(marker, i) && i + marker.length <= limit) return 'stop';
      if (!final && limit - i < marker.length && marker.startsWith(text.slice(i, limit))) return 'wait';
    }
    return 'no';
  }
}

const FIRST_CHARS = new WeakMap<readonly string[], Set<number>>();
const NO_STOPS: readonly string[] = [];

/** First characters of a stop list, computed once per list (sites pass module-level constants). */
function firstCharsOf(stops: readonly string[]): Set<number> {
  let set = FIRST_CHARS.get(stops);
  if (set === undefined) {
    set = new Set(stops.map((m) => m.charCodeAt(0)));
    FIRST_CHARS.set(stops, set);
  }
  return set;
}

/** One value found by {@link findJsonValues}. */
export interface JsonValueSpan {
  /** Index of the opening bracket. */
  start: number;
  /** Just past the closing bracket, or where the text ran out. */
  end: number;
  /** Brackets balanced. */
  closed: boolean;
  /** The text ended inside a string literal. */
  inString: boolean;
}

/**
 * The JSON values laid end to end in `text[from, to)`, separated by whitespace, commas or
 * semicolons (how models list several calls). Stops at the first character that cannot start
 * a value; `rest` is where that is (`to` when everything was values).
 */
export function findJsonValues(text: string, from: number, to: number): { values: JsonValueSpan[]; rest: number } {
  const values: JsonValueSpan[] = [];
  let i = from;
  for (;;) {
    while (i < to && isSeparator(text.charCodeAt(i))) i++;
    if (i >= to) return { values, rest: to };
    const c = text.charCodeAt(i);
    if (c !== OPEN_BRACE && c !== OPEN_BRACKET) return { values, rest: i };
    const scanner = new JsonSpanScanner(i);
    const status = scanner.feed(text, to, true);
    if (status === 'closed') {
      values.push({ start: i, end: scanner.end, closed: true, inString: false });
      i = scanner.end;
    } else {
      values.push({ start: i, end: to, closed: false, inString: scanner.inString });
      return { values, rest: to };
    }
  }
}

function isSeparator(c: number): boolean {
  return c === 32 || c === NEWLINE || c === 9 || c === 13 || c === COMMA || c === 59;
}
