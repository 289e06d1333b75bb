import { readCallParts, readCallValue } from './call-shape.ts';
import { JsonSpanScanner } from './json-scan.ts';
import { parseLenientJson } from './lenient-json.ts';
import { memoLookup } from './memo.ts';
import { TOOL_CALL_OPEN } from './parse-hermes.ts';
import {
  MORE_BLOCK,
  isNameChar,
  isNameStart,
  matchLiteral,
  skipSpace,
  type BlockReading,
  type CallSite,
  type SiteContext,
  type SiteScan,
  type ToolCallFormat,
} from './site.ts';

/** Mistral's call marker (a special token, kept when special tokens are decoded). */
export const TOOL_CALLS_MARKER = '[TOOL_CALLS]';
const ARGS = '[ARGS]';
const CALL_ID = '[CALL_ID]';
const MEMO = 'mistral';
const STOPS = [TOOL_CALLS_MARKER, TOOL_CALL_OPEN];

type MistralMemo =
  /** `[TOOL_CALLS] [{…}]` or `[TOOL_CALLS] {…}`. */
  | { kind: 'json'; jsonStart: number; scanner: JsonSpanScanner }
  /** `[TOOL_CALLS]name[ARGS]{…}`; `scanner` is absent when no arguments followed. */
  | { kind: 'named'; name: string; jsonStart: number; scanner: JsonSpanScanner | undefined };

/**
 * Mistral's two layouts:
 *
 * - v3: `[TOOL_CALLS] [{"name": "get_weather", "arguments": {"city": "Paris"}, "id": "…"}]` —
 *   an array, or a single object;
 * - v11+: `[TOOL_CALLS]get_weather[ARGS]{"city": "Paris"}`, repeated per call, optionally with
 *   `[CALL_ID]id` before `[ARGS]`.
 *
 * The marker is a special token and leaves the text even when nothing readable follows it.
 * (With special tokens skipped the marker disappears, and the array is read as bare JSON.)
 */
const mistralSite: CallSite = {
  opener: TOOL_CALLS_MARKER,
  scan(text, at, context) {
    const afterMarker = at + TOOL_CALLS_MARKER.length;
    let memo = memoLookup<MistralMemo>(context, MEMO);
    if (memo === undefined) {
      const start = startMemo(text, afterMarker, context);
      if (start === 'more') return MORE_BLOCK;
      if (typeof start === 'number') return { kind: 'block', end: start };
      memo = start;
      context.memo.set(MEMO, memo);
    }
    if (memo.scanner === undefined) return { kind: 'block', end: memo.jsonStart };
    return scanJson(text, memo.scanner, context);
  },
  read(text, at, end, context): BlockReading {
    const source = text.slice(at, end);
    const memo = memoLookup<MistralMemo>(context, MEMO);
    const options = { mode: 'markup', shapes: ['named', 'openai'], names: context.names, source } as const;
    if (memo === undefined) return { claimed: true, calls: [], rejected: [{ name: null, reason: 'unparseable', source }] };
    const scanner = memo.scanner;
    const truncated = scanner !== undefined && scanner.status !== 'closed' && scanner.inString;
    const json = scanner === undefined ? '' : text.slice(memo.jsonStart, scanner.status === 'open' ? end : scanner.end);
    if (memo.kind === 'named') {
      const value = scanner === undefined ? undefined : parseLenientJson(json);
      // Unreadable arguments are passed as a non-object so the usual rules reject them by name.
      const args = scanner === undefined ? { present: false } : { present: true, value: value === undefined ? [] : value };
      const reading = readCallParts(memo.name, args, { ...options, truncated });
      return { claimed: true, calls: reading.calls, rejected: reading.rejected };
    }
    const reading = readCallValue(parseLenientJson(json), { ...options, truncated });
    if (!reading.shaped) return { claimed: true, calls: [], rejected: [{ name: null, reason: 'unparseable', source }] };
    return { claimed: true, calls: reading.calls, rejected: reading.rejected };
  },
};

/** Decide the layout after the marker: a memo, `more`, or the end of a marker-only block. */
function startMemo(text: string, from: number, context: SiteContext): MistralMemo | 'more' | number {
  const j = skipSpace(text, from);
  if (j >= text.length) return context.final ? from : 'more';
  const c = text.charCodeAt(j);
  if (c === 123 || c === 91) return { kind: 'json', jsonStart: j, scanner: newScanner(j) };
  if (!isNameStart(c)) return from;
  let k = j;
  while (k < text.length && isNameChar(text.charCodeAt(k))) k++;
  if (k >= text.length && !context.final) return 'more';
  const name = text.slice(j, k);
  let argsAt = k;
  const args = matchLiteral(text, k, ARGS, context.final);
  if (args === 'maybe') return 'more';
  if (args === 'yes') argsAt = k + ARGS.length;
  else {
    const id = matchLiteral(text, k, CALL_ID, context.final);
    if (id === 'maybe') return 'more';
    if (id === 'yes') {
      // The id is a short run of letters and digits right before [ARGS].
      let e = k + CALL_ID.length;
      while (e < text.length && isAlphanumeric(text.charCodeAt(e))) e++;
      const tag = matchLiteral(text, e, ARGS, context.final);
      if (tag === 'maybe') return 'more';
      if (tag === 'no') return from;
      argsAt = e + ARGS.length;
    } else if (text.charCodeAt(k) !== 123) {
      // Prose after the marker ("[TOOL_CALLS]Sure, …"): only the marker goes.
      return from;
    }
  }
  const a = skipSpace(text, argsAt);
  if (a >= text.length && !context.final) return 'more';
  const first = text.charCodeAt(a);
  if (first === 123 || first === 91) return { kind: 'named', name, jsonStart: a, scanner: newScanner(a) };
  return { kind: 'named', name, jsonStart: argsAt, scanner: undefined };
}

function isAlphanumeric(c: number): boolean {
  return (c >= 48 && c <= 57) || (c >= 65 && c <= 90) || (c >= 97 && c <= 122);
}

function newScanner(at: number): JsonSpanScanner {
  return new JsonSpanScanner(at, { stopAt: STOPS });
}

function scanJson(text: string, scanner: JsonSpanScanner, context: SiteContext): SiteScan {
  const status = scanner.feed(text, text.length, context.final);
  if (status === 'open') return context.final ? { kind: 'block', end: text.length } : MORE_BLOCK;
  return { kind: 'block', end: scanner.end };
}

/** Format 3: Mistral's `[TOOL_CALLS]`. */
export const mistralFormat: ToolCallFormat = {
  id: 'mistral',
  description: 'Mistral: [TOOL_CALLS] [{"name": …, "arguments": …}] or [TOOL_CALLS]name[ARGS]{…}',
  sites: [mistralSite],
  innerMarkers: ['[ARGS]', '[CALL_ID]'],
};
