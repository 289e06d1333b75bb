import type { ToolNames } from './tool-names.ts';
import type { RejectedCall, ToolCall } from './types.ts';

/**
 * The contract between the segmenter and the format readers.
 *
 * A *site* is a place in the text where a format's call may begin, recognised by a literal
 * opener (`<tool_call>`, `[TOOL_CALLS]`, `{`, a code fence …). The segmenter walks the text once,
 * and at each opener asks the sites in priority order to `scan` (where does the block end?) and
 * `read` (which calls does it hold?). The parser and the streaming filter share this walk, which
 * is why they cannot disagree: the stream only asks earlier, with `final` false, and a site
 * that cannot decide yet says `more`.
 *
 * The one rule every `scan` must keep: with `final` false, answer only what no later text can
 * change. That makes the answer for a prefix the answer for the whole.
 */

/** What a site sees besides the text. */
export interface SiteContext {
  /** No more text will come: the end of the buffer is the end of the output. */
  readonly final: boolean;
  /** Registered tools, when given. */
  readonly names: ToolNames | undefined;
  /** The site is at the start of a line (only spaces or tabs since the last newline or the start). */
  readonly lineStart: boolean;
  /** The character code before the site; -1 at the start of the output. */
  readonly prevChar: number;
  /** The site directly follows a block that was read as call markup (nothing shown in between). */
  readonly afterCall?: boolean;
  /**
   * Scratch space for one site position, kept while the segmenter waits there for more text and
   * cleared when it moves on. Sites park resumable scanners here (keyed by their own names) so
   * that each character is scanned once however the text is chunked; sites at the same position
   * may share an entry.
   */
  readonly memo: Map<string, unknown>;
  /**
   * Scratch space for every position while the text does not change (one pass of the walk):
   * sites keep searches here that later positions can reuse — with closing tags missing, a
   * search from each position to the end would make a long output quadratic. Optional so that a
   * context made by hand (a nested read) need not carry one.
   */
  readonly shared?: Map<string, unknown>;
}

/** Why the segmenter is holding text back. */
export type HoldPhase =
  /** Not yet known whether a marker starts here: counted as held back. */
  | 'marker'
  /** A bare JSON value that may or may not turn out to be a call: counted as held back. */
  | 'candidate'
  /** Inside something known to be call markup, thinking or a code fence: never shown anyway. */
  | 'block';

/**
 * Text that must reach the reader exactly as written, with no call read inside it (a code
 * sample in a ```` ```python ```` fence, a JSON data object), and whose end is found as it streams.
 */
export interface VerbatimRegion {
  /**
   * Look at `text[from..]`. `done` true: the region ends at `at`. `done` false: everything before
   * `at` can be released, the rest is held until more text comes.
   */
  advance(text: string, from: number, final: boolean): { done: boolean; at: number };
  /** Shift stored positions after the segmenter dropped `delta` characters from the front of its buffer. */
  rebase(delta: number): void;
}

/** A site's answer to "what starts here?". */
export type SiteScan =
  /** Cannot tell yet. */
  | { readonly kind: 'more'; readonly phase: HoldPhase }
  /** Not this site's. */
  | { readonly kind: 'none' }
  /** A block `[at, end)` for `read`. */
  | { readonly kind: 'block'; readonly end: number }
  /** Not a call: `[at, from)` is text as written, and `region`, if any, continues it. */
  | { readonly kind: 'verbatim'; readonly from: number; readonly region?: VerbatimRegion };

/** A site's answer to "which calls are in this block?". */
export interface BlockReading {
  /** The block is the site's: it leaves the text. When false, the next site in priority order is asked. */
  readonly claimed: boolean;
  /** Calls that stand. */
  readonly calls: readonly ToolCall[];
  /** Call attempts that do not. */
  readonly rejected: readonly RejectedCall[];
  /** Set when the block proved shorter than scanned: prose after an unterminated object stays prose. */
  readonly end?: number;
}

/** One place a format's calls can start. */
export interface CallSite {
  /** What opens the site; its first character is what the segmenter looks for. */
  readonly opener: string;
  /** The site exists only at the start of a line (after at most spaces or tabs). */
  readonly lineStartOnly?: boolean;
  /**
   * The site exists only at the very start of the output, before anything else was read; its
   * opener is then `''` and its scan looks at what the output begins with.
   */
  readonly outputStartOnly?: boolean;
  /** Called only when `opener` matches in full at `at`. */
  scan(text: string, at: number, context: SiteContext): SiteScan;
  /** Called with the `end` a `block` scan returned. */
  read(text: string, at: number, end: number, context: SiteContext): BlockReading;
}

/** A family of model output, as a list of the sites its calls can start at. */
export interface ToolCallFormat {
  /** Short stable identifier, e.g. `hermes`. */
  readonly id: string;
  /** Which models write it and what it looks like. */
  readonly description: string;
  /** Where its calls can start, in priority order. */
  readonly sites: readonly CallSite[];
  /**
   * Literals read inside a block besides the site openers (argument separators, string escapes).
   * With the openers they make {@link CALL_MARKERS}: a model's special tokens among them must reach
   * the parser, not be dropped in decoding.
   */
  readonly innerMarkers?: readonly string[];
}

/** A reading that keeps the block in the text. */
export const NOT_CLAIMED: BlockReading = { claimed: false, calls: [], rejected: [] };

/** Scan answer: not this site's. */
export const NONE: SiteScan = { kind: 'none' };
/** Scan answer: inside a known block whose end has not arrived yet. */
export const MORE_BLOCK: SiteScan = { kind: 'more', phase: 'block' };

/** First index at or after `i` that is not a space, tab, CR or LF. */
export function skipSpace(text: string, i: number, limit: number = text.length): number {
  while (i < limit) {
    const c = text.charCodeAt(i);
    if (c !== 32 && c !== 10 && c !== 9 && c !== 13) break;
    i++;
  }
  return i;
}

/**
 * Whether `literal` starts at `i`: `yes`, `no`, or `maybe` when the text ends first with a
 * prefix of it and more may come.
 */
export function matchLiteral(text: string, i: number, literal: string, final: boolean): 'yes' | 'no' | 'maybe' {
  if (text.startsWith(literal, i)) return 'yes';
  if (!final && text.length - i < literal.length && literal.startsWith(text.slice(i))) return 'maybe';
  return 'no';
}

/** First characters of each literal list {@link findFirst} was given (callers pass long-lived arrays). */
const FIRSTS = new WeakMap<readonly string[], Set<number>>();

/**
 * Index of the first of `literals` at or after `from`, with which one; `-1` when none.
 *
 * One forward pass that stops at the first hit, so the cost is the distance to the nearest
 * literal — never a search of the whole rest of the text for a literal that only occurs far
 * away. Callers resume at `text.length - (longest - 1)` to stay linear across chunks.
 */
export function findFirst(text: string, from: number, literals: readonly string[]): { index: number; literal: string } {
  let firsts = FIRSTS.get(literals);
  if (firsts === undefined) {
    firsts = new Set(literals.map((l) => l.charCodeAt(0)));
    FIRSTS.set(literals, firsts);
  }
  for (let i = from; i < text.length; i++) {
    if (!firsts.has(text.charCodeAt(i))) continue;
    for (const literal of literals) if (text.startsWith(literal, i)) return { index: i, literal };
  }
  return { index: -1, literal: '' };
}

/** Letter, digit, `_`, `.` or `-`: what a function name is made of. */
export function isNameChar(c: number): boolean {
  return (c >= 48 && c <= 57) || (c >= 65 && c <= 90) || (c >= 97 && c <= 122) || c === 95 || c === 46 || c === 45;
}

/** Letter or `_`: what a function name starts with. */
export function isNameStart(c: number): boolean {
  return (c >= 65 && c <= 90) || (c >= 97 && c <= 122) || c === 95;
}

/**
 * `text.indexOf(literal, from)` for positions that mostly grow, searching again only when the
 * cached hit falls behind: with closing tags missing, a fresh search per element would rescan to
 * the end of the text every time, and a reader of many elements would be quadratic.
 */
export class NextIndex {
  private hit = -2;
  private searchedFrom = -1;

  constructor(
    private readonly text: string,
    private readonly literal: string,
  ) {}

  /** The first occurrence at or after `position`, or -1. */
  from(position: number): number {
    const stale = this.hit === -2 || (this.hit >= 0 && this.hit < position) || (this.hit === -1 && position < this.searchedFrom);
    if (stale) {
      this.hit = this.text.indexOf(this.literal, position);
      this.searchedFrom = position;
    }
    return this.hit;
  }
}

/**
 * A {@link NextIndex} for `literal` over `text`, shared by every site position of the current
 * pass (see {@link SiteContext.shared}); a fresh one when the context has no shared space.
 */
export function sharedFinder(context: SiteContext, text: string, literal: string): NextIndex {
  const shared = context.shared;
  if (shared === undefined) return new NextIndex(text, literal);
  const key = `find:${literal}`;
  const known = shared.get(key) as { text: string; finder: NextIndex } | undefined;
  if (known !== undefined && known.text === text) return known.finder;
  const finder = new NextIndex(text, literal);
  shared.set(key, { text, finder });
  return finder;
}
