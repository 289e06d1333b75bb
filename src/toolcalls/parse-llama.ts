import { bareJsonSite } from './bare-json.ts';
import { pythonicBareSite } from './parse-delimited.ts';
import { readCallParts, readCallValue } from './call-shape.ts';
import { JsonSpanScanner } from './json-scan.ts';
import { parseLenientJson } from './lenient-json.ts';
import { memoLookup } from './memo.ts';
import { parseCallExpression } from './parse-call-expression.ts';
import { TOOL_CALL_OPEN } from './parse-hermes.ts';
import {
  MORE_BLOCK,
  NONE,
  isNameStart,
  matchLiteral,
  skipSpace,
  type BlockReading,
  type CallSite,
  type SiteContext,
  type SiteScan,
  type ToolCallFormat,
} from './site.ts';
import type { RejectedCall, ToolCall } from './types.ts';

/** Llama 3.x's marker for a tool call (a special token, kept when special tokens are decoded). */
const PYTHON_TAG = '<|python_tag|>';
/** What Llama writes after a call when it expects the result back, and at the end of a turn. */
const END_TOKENS = ['<|eom_id|>', '<|eot_id|>'];
const STOPS = [PYTHON_TAG, ...END_TOKENS, TOOL_CALL_OPEN];
const MEMO = 'python-tag';

interface PythonTagMemo {
  readonly kind: 'json' | 'expression';
  /** Spans of the values found so far. */
  readonly spans: { start: number; end: number; truncated: boolean }[];
  scanner: JsonSpanScanner;
  /** The current scanner closed and its span was recorded; deciding what follows. */
  between: boolean;
  /** The last value was cut short by markup: the block's values end here. */
  cutAt: number | undefined;
}

/**
 * `<|python_tag|>{"name": …, "parameters": …}` — Llama 3.1/3.2 with special tokens kept; several
 * calls may follow one tag separated by `;`. Also Llama's built-in tool style
 * `<|python_tag|>brave_search.call(query="…")`. A trailing `<|eom_id|>`/`<|eot_id|>` belongs to
 * the block. The tag is markup: it leaves the text even if nothing readable follows.
 */
const pythonTagSite: CallSite = {
  opener: PYTHON_TAG,
  scan(text, at, context) {
    const after = at + PYTHON_TAG.length;
    let memo = memoLookup<PythonTagMemo>(context, MEMO);
    if (memo === undefined) {
      const j = skipSpace(text, after);
      if (j >= text.length) return context.final ? { kind: 'block', end: after } : MORE_BLOCK;
      const c = text.charCodeAt(j);
      if (c === 123 || c === 91) memo = { kind: 'json', spans: [], scanner: new JsonSpanScanner(j, { stopAt: STOPS }), between: false, cutAt: undefined };
      else if (isNameStart(c))
        memo = { kind: 'expression', spans: [], scanner: new JsonSpanScanner(j, { stopAt: STOPS, parens: true }), between: false, cutAt: undefined };
      else return { kind: 'block', end: after };
      context.memo.set(MEMO, memo);
    }
    return scanValues(text, memo, context);
  },
  read(text, at, end, context): BlockReading {
    const source = text.slice(at, end);
    const memo = memoLookup<PythonTagMemo>(context, MEMO);
    const unparseable: BlockReading = { claimed: true, calls: [], rejected: [{ name: null, reason: 'unparseable', source }] };
    if (memo === undefined || memo.spans.length === 0) return unparseable;
    const calls: ToolCall[] = [];
    const rejected: RejectedCall[] = [];
    const options = { mode: 'markup', shapes: ['named', 'openai'], names: context.names, source } as const;
    for (const span of memo.spans) {
      const piece = text.slice(span.start, span.end);
      if (memo.kind === 'expression') {
        const expression = parseCallExpression(piece);
        if (expression === undefined) return unparseable;
        const reading = readCallParts(expression.name, { present: true, value: expression.arguments }, { ...options, truncated: span.truncated });
        calls.push(...reading.calls);
        rejected.push(...reading.rejected);
        continue;
      }
      const reading = readCallValue(parseLenientJson(piece), { ...options, truncated: span.truncated });
      if (!reading.shaped) rejected.push({ name: null, reason: 'unparseable', source });
      calls.push(...reading.calls);
      rejected.push(...reading.rejected);
    }
    return { claimed: true, calls, rejected };
  },
};

function scanValues(text: string, memo: PythonTagMemo, context: SiteContext): SiteScan {
  for (;;) {
    if (memo.cutAt !== undefined) return withEndToken(text, memo.cutAt, context);
    if (!memo.between) {
      const scanner = memo.scanner;
      const status = scanner.feed(text, text.length, context.final);
      if (status === 'open') {
        if (!context.final) return MORE_BLOCK;
        memo.spans.push({ start: scanner.start, end: text.length, truncated: scanner.inString });
        return { kind: 'block', end: text.length };
      }
      if (status === 'cut') {
        memo.spans.push({ start: scanner.start, end: scanner.end, truncated: scanner.inString });
        memo.cutAt = scanner.end;
        continue;
      }
      memo.spans.push({ start: scanner.start, end: scanner.end, truncated: false });
      memo.between = true;
    }
    const last = memo.spans[memo.spans.length - 1];
    const valueEnd = last === undefined ? memo.scanner.end : last.end;
    const k = skipSpace(text, valueEnd);
    if (k >= text.length && !context.final) return MORE_BLOCK;
    if (memo.kind === 'json' && text.charCodeAt(k) === 59) {
      const next = skipSpace(text, k + 1);
      if (next >= text.length && !context.final) return MORE_BLOCK;
      if (text.charCodeAt(next) !== 123) return withEndToken(text, k + 1, context);
      memo.scanner = new JsonSpanScanner(next, { stopAt: STOPS });
      memo.between = false;
      continue;
    }
    return withEndToken(text, valueEnd, context);
  }
}

/** Extend a block over a following end-of-message token. */
function withEndToken(text: string, end: number, context: SiteContext): SiteScan {
  const k = skipSpace(text, end);
  for (const token of END_TOKENS) {
    const m = matchLiteral(text, k, token, context.final);
    if (m === 'yes') return { kind: 'block', end: k + token.length };
    if (m === 'maybe') return MORE_BLOCK;
  }
  return { kind: 'block', end };
}

/**
 * The `;` between bare calls (`{…}; {…}`, how Llama 3.x lists several, as vLLM's llama3_json
 * parser reads them): right after a call, and before the next `{`, it is a separator, not text.
 */
const callSeparatorSite: CallSite = {
  opener: ';',
  scan(text, at, context) {
    if (context.afterCall !== true) return NONE;
    const k = skipSpace(text, at + 1);
    if (k >= text.length) return context.final ? NONE : { kind: 'more', phase: 'marker' };
    return text.charCodeAt(k) === 123 ? { kind: 'block', end: k } : NONE;
  },
  read() {
    return { claimed: true, calls: [], rejected: [] };
  },
};

/** Bare `{"name": …, "parameters": …}` objects (and arrays of them). */
const llamaBareObjectSite: CallSite = bareJsonSite('{', ['named']);
/** A bare array of named calls, as Mistral writes once its marker token is skipped. */
const llamaBareArraySite: CallSite = bareJsonSite('[', ['named']);

/** Format 4: Llama — `<|python_tag|>` and bare JSON. */
export const llamaFormat: ToolCallFormat = {
  id: 'llama',
  description: 'Llama 3.x and others: bare {"name": …, "parameters": …}, <|python_tag|>{…}, or a pythonic [name(key=value)] list on its own line',
  sites: [pythonTagSite, llamaBareObjectSite, llamaBareArraySite, pythonicBareSite, callSeparatorSite],
};
