import { BARE_CALL_KEYS, readCallValue, type CallShape } from './call-shape.ts';
import { JsonSpanScanner } from './json-scan.ts';
import { parseLenientJson } from './lenient-json.ts';
import { memoEntry } from './memo.ts';
import { TOOL_CALL_CLOSE, TOOL_CALL_OPEN } from './parse-hermes.ts';
import { TOOL_CALLS_MARKER } from './parse-mistral.ts';
import { NONE, NOT_CLAIMED, type BlockReading, type CallSite, type SiteContext, type SiteScan, type VerbatimRegion } from './site.ts';

/** Explicit markup that ends a bare value wherever it appears: it starts a call of its own. */
const EXPLICIT_MARKERS = [TOOL_CALL_OPEN, TOOL_CALL_CLOSE, TOOL_CALLS_MARKER, '<|python_tag|>', '<function='];

/** At most this many newline cut points are tried when an unterminated value is followed by prose. */
const MAX_CUTS = 8;

/**
 * A bare value still open after this many lines is taken as unterminated there. Generous for
 * pretty-printed calls, and it bounds the rescanning when line after line of unterminated calls
 * are each re-read up to their own line end (otherwise each would scan to the end of the text).
 */
const MAX_LINES = 200;

/**
 * A JSON object (or array of objects) standing in the prose, with no markup around it — what
 * Llama 3.x writes, and what other models fall back to.
 *
 * The acceptance rule, strict because nothing but the JSON itself says "call":
 *
 * 1. It starts at a `{` (or a `[` whose first element is an object) anywhere in the text,
 *    except right after a backtick (the segmenter reads nothing there: inline code is an
 *    example, not a request).
 * 2. Its first key is quoted, and every top-level key belongs to a call shape
 *    ({@link BARE_CALL_KEYS}); the first foreign key (`"age"`, `"description"`, `"example"`)
 *    settles it as data, and the whole value, nested objects included, is shown as written —
 *    a call-shaped object nested inside data is not a call either.
 * 3. It ends where its brackets balance; unterminated, at a blank line, at explicit call
 *    markup, after 200 lines, or at the end of the output (then repaired; if prose followed on the next line,
 *    the value is re-read up to each of the first newlines in turn).
 * 4. The decoded value passes `readCallValue` in `bare` mode: an identifier-like name that is
 *    not template filler, and arguments/parameters as an object or a JSON string of one.
 *    (With `tools` given, an unregistered name makes it a *failed* call: removed, reported.)
 *
 * So `{"name": "Alice", "age": 3}` in a sentence is data, and so is the placeholder example
 * `{"name": "function_name", "arguments": {…}}`; `{"name": "get_weather", "parameters": {…}}`
 * is a call wherever it stands.
 */
export function bareJsonSite(opener: '{' | '[', shapes: readonly CallShape[]): CallSite {
  return {
    opener,
    scan: scanBare,
    read(text, at, end, context) {
      return readBare(text, at, end, context, shapes);
    },
  };
}

interface BareMemo {
  readonly scanner: JsonSpanScanner;
  /** Decoded values by span end, shared by the formats that read the same span. */
  readonly values: Map<number, unknown>;
}

function bareMemo(context: SiteContext, at: number): BareMemo {
  return memoEntry<BareMemo>(context, 'bare-json', () => ({
    scanner: new JsonSpanScanner(at, { callKeys: BARE_CALL_KEYS, stopAtBlankLine: true, stopAt: EXPLICIT_MARKERS, maxLines: MAX_LINES }),
    values: new Map(),
  }));
}

function scanBare(text: string, at: number, context: SiteContext): SiteScan {
  const { scanner } = bareMemo(context, at);
  const status = scanner.feed(text, text.length, context.final);
  if (status === 'invalid') return NONE;
  if (scanner.rejected) {
    if (status === 'closed' || status === 'cut') return { kind: 'verbatim', from: scanner.end };
    if (context.final) return { kind: 'verbatim', from: text.length };
    return { kind: 'verbatim', from: scanner.settled, region: dataRegion(scanner) };
  }
  if (status === 'open') {
    if (context.final) return { kind: 'block', end: text.length };
    return { kind: 'more', phase: scanner.committed ? 'candidate' : 'marker' };
  }
  return { kind: 'block', end: scanner.end };
}

function readBare(text: string, at: number, end: number, context: SiteContext, shapes: readonly CallShape[]): BlockReading {
  const memo = bareMemo(context, at);
  const scanner = memo.scanner;
  const closed = scanner.status === 'closed';
  const whole = readSpan(text, at, end, context, shapes, memo, !closed && scanner.inString);
  if (whole.claimed || closed) return whole;
  // Unterminated, and the repaired whole is not a call: maybe prose followed the value on the
  // next line and got read as keys. Try ending the value at each of the first newlines.
  let cuts = 0;
  for (let nl = at; nl < end && cuts < MAX_CUTS; nl++) {
    if (text.charCodeAt(nl) !== 10) continue;
    cuts++;
    const reading = readSpan(text, at, nl, context, shapes, memo, false);
    if (reading.claimed) return { ...reading, end: nl };
  }
  return NOT_CLAIMED;
}

function readSpan(text: string, at: number, end: number, context: SiteContext, shapes: readonly CallShape[], memo: BareMemo, truncated: boolean): BlockReading {
  let value = memo.values.get(end);
  if (!memo.values.has(end)) {
    value = parseLenientJson(text.slice(at, end));
    memo.values.set(end, value);
  }
  if (value === undefined) return NOT_CLAIMED;
  const reading = readCallValue(value, { mode: 'bare', shapes, names: context.names, source: text.slice(at, end), truncated });
  if (!reading.shaped) return NOT_CLAIMED;
  return { claimed: true, calls: reading.calls, rejected: reading.rejected };
}

/** The rest of a JSON value already known to be data: shown as written, nothing inside read as a call. */
function dataRegion(scanner: JsonSpanScanner): VerbatimRegion {
  return {
    advance(text, _from, final) {
      const status = scanner.feed(text, text.length, final);
      if (status === 'closed' || status === 'cut') return { done: true, at: scanner.end };
      if (final) return { done: true, at: text.length };
      return { done: false, at: scanner.settled };
    },
    rebase(delta) {
      scanner.rebase(delta);
    },
  };
}
