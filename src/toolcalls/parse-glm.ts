import { readCallParts } from './call-shape.ts';
import { JsonSpanScanner } from './json-scan.ts';
import { decodeJsonLiteral, parseLenientJson } from './lenient-json.ts';
import { memoEntry, memoLookup } from './memo.ts';
import { TOOL_CALL_CLOSE, TOOL_CALL_OPEN } from './parse-hermes.ts';
import {
  MORE_BLOCK,
  NONE,
  NextIndex,
  findFirst,
  sharedFinder,
  isNameChar,
  isNameStart,
  skipSpace,
  type BlockReading,
  type CallSite,
  type SiteContext,
  type SiteScan,
  type ToolCallFormat,
} from './site.ts';
import { setOwn } from './own-property.ts';

const ARG_KEY = '<arg_key>';
const ARG_KEY_CLOSE = '</arg_key>';
const ARG_VALUE = '<arg_value>';
const ARG_VALUE_CLOSE = '</arg_value>';
const MEMO = 'glm';

interface GlmMemo {
  /** Index just past the name. */
  nameEnd: number;
  name: string;
  /** `args`: `<arg_key>`/`<arg_value>` pairs; `json`: a JSON object after the name. */
  kind: 'args' | 'json';
  pos: number;
  inValue: boolean;
  /** At the end of the output, no `</arg_value>` was found after this index. */
  noCloseAfter?: number;
  scanner?: JsonSpanScanner;
}

/**
 * GLM-4.5/4.6: the name as text after `<tool_call>`, then `<arg_key>`/`<arg_value>` pairs:
 *
 * ```text
 * <tool_call>get_weather
 * <arg_key>city</arg_key>
 * <arg_value>Beijing</arg_value>
 * </tool_call>
 * ```
 *
 * (and the older `<tool_call>NAME\n{json}</tool_call>`). A value runs to its own closing tag, so
 * it may hold any markup; a value that is, in full, a JSON literal is decoded.
 */
export const glmSite: CallSite = {
  opener: TOOL_CALL_OPEN,
  scan(text, at, context) {
    let memo = memoLookup<GlmMemo>(context, MEMO);
    if (memo === undefined) {
      const start = startGlm(text, at + TOOL_CALL_OPEN.length, context);
      if (start === 'more') return MORE_BLOCK;
      if (start === undefined) return NONE;
      memo = memoEntry<GlmMemo>(context, MEMO, () => start);
    }
    return memo.kind === 'json' ? scanJson(text, memo, context) : scanArgs(text, memo, context);
  },
  read(text, at, end, context): BlockReading {
    const memo = memoLookup<GlmMemo>(context, MEMO);
    const source = text.slice(at, end);
    if (memo === undefined) return { claimed: true, calls: [], rejected: [{ name: null, reason: 'unparseable', source }] };
    let args: unknown;
    let truncated = false;
    if (memo.kind === 'json') {
      const scanner = memo.scanner as JsonSpanScanner;
      const jsonEnd = scanner.status === 'open' ? end : scanner.end;
      args = parseLenientJson(text.slice(scanner.start, jsonEnd)) ?? [];
      truncated = scanner.status !== 'closed' && scanner.inString;
    } else {
      args = readPairs(text.slice(memo.nameEnd, end));
    }
    const reading = readCallParts(memo.name, { present: true, value: args }, { mode: 'markup', shapes: ['named'], names: context.names, source, truncated });
    return { claimed: true, calls: reading.calls, rejected: reading.rejected };
  },
};

/** The name after `<tool_call>`, and what follows it; undefined when this is not GLM's layout. */
function startGlm(text: string, from: number, context: SiteContext): GlmMemo | 'more' | undefined {
  const j = skipSpace(text, from);
  if (j >= text.length) return context.final ? undefined : 'more';
  if (!isNameStart(text.charCodeAt(j))) return undefined;
  let k = j;
  while (k < text.length && isNameChar(text.charCodeAt(k))) k++;
  if (k >= text.length) return context.final ? undefined : 'more';
  const name = text.slice(j, k);
  const after = skipSpace(text, k);
  if (after >= text.length) return context.final ? undefined : 'more';
  if (text.startsWith(ARG_KEY, after) || text.startsWith(TOOL_CALL_CLOSE, after)) return { nameEnd: k, name, kind: 'args', pos: after, inValue: false };
  if (text.charCodeAt(after) === 123) {
    return { nameEnd: k, name, kind: 'json', pos: after, inValue: false, scanner: new JsonSpanScanner(after, { stopAt: [TOOL_CALL_CLOSE, TOOL_CALL_OPEN] }) };
  }
  if (!context.final && (ARG_KEY.startsWith(text.slice(after)) || TOOL_CALL_CLOSE.startsWith(text.slice(after)))) return 'more';
  return undefined;
}

function scanArgs(text: string, memo: GlmMemo, context: SiteContext): SiteScan {
  for (;;) {
    if (memo.inValue) {
      const close = memo.noCloseAfter !== undefined && memo.pos >= memo.noCloseAfter ? -1 : sharedFinder(context, text, ARG_VALUE_CLOSE).from(memo.pos);
      if (close < 0 && context.final) memo.noCloseAfter = Math.min(memo.noCloseAfter ?? memo.pos, memo.pos);
      if (close >= 0) {
        memo.inValue = false;
        memo.pos = close + ARG_VALUE_CLOSE.length;
        continue;
      }
      if (!context.final) {
        memo.pos = Math.max(memo.pos, text.length - (ARG_VALUE_CLOSE.length - 1));
        return MORE_BLOCK;
      }
      memo.inValue = false;
      continue;
    }
    const hit = findFirst(text, memo.pos, [ARG_VALUE, TOOL_CALL_CLOSE, TOOL_CALL_OPEN]);
    if (hit.index < 0) {
      if (context.final) return { kind: 'block', end: text.length };
      memo.pos = Math.max(memo.pos, text.length - (TOOL_CALL_CLOSE.length - 1));
      return MORE_BLOCK;
    }
    if (hit.literal === TOOL_CALL_CLOSE) return { kind: 'block', end: hit.index + TOOL_CALL_CLOSE.length };
    if (hit.literal === TOOL_CALL_OPEN) return { kind: 'block', end: hit.index };
    memo.inValue = true;
    memo.pos = hit.index + ARG_VALUE.length;
  }
}

function scanJson(text: string, memo: GlmMemo, context: SiteContext): SiteScan {
  const scanner = memo.scanner as JsonSpanScanner;
  const status = scanner.feed(text, text.length, context.final);
  if (status === 'open') return context.final ? { kind: 'block', end: text.length } : MORE_BLOCK;
  const k = skipSpace(text, scanner.end);
  if (text.startsWith(TOOL_CALL_CLOSE, k)) return { kind: 'block', end: k + TOOL_CALL_CLOSE.length };
  if (!context.final && k >= text.length) return MORE_BLOCK;
  if (!context.final && TOOL_CALL_CLOSE.startsWith(text.slice(k))) return MORE_BLOCK;
  return { kind: 'block', end: scanner.end };
}

/** The `<arg_key>`/`<arg_value>` pairs of a body. */
function readPairs(body: string): Record<string, unknown> {
  const args: Record<string, unknown> = {};
  const keys = new NextIndex(body, ARG_KEY);
  const keyCloses = new NextIndex(body, ARG_KEY_CLOSE);
  const values = new NextIndex(body, ARG_VALUE);
  const valueCloses = new NextIndex(body, ARG_VALUE_CLOSE);
  let i = keys.from(0);
  while (i >= 0) {
    const keyEnd = keyCloses.from(i + ARG_KEY.length);
    if (keyEnd < 0) break;
    const key = body.slice(i + ARG_KEY.length, keyEnd).trim();
    const valueStart = values.from(keyEnd);
    if (valueStart < 0) break;
    const close = valueCloses.from(valueStart + ARG_VALUE.length);
    const valueEnd = close < 0 ? body.length : close;
    if (key !== '') setOwn(args, key, decodeJsonLiteral(body.slice(valueStart + ARG_VALUE.length, valueEnd)));
    i = close < 0 ? -1 : keys.from(close);
  }
  return args;
}

/** Format: GLM-4.5/4.6's key/value tags inside `<tool_call>`. */
export const glmFormat: ToolCallFormat = {
  id: 'glm',
  description: 'GLM-4.5/4.6: <tool_call>NAME<arg_key>KEY</arg_key><arg_value>VALUE</arg_value></tool_call>',
  sites: [glmSite],
  innerMarkers: ['<arg_key>', '</arg_key>', '<arg_value>', '</arg_value>'],
};
