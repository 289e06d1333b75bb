import { readCallParts } from './call-shape.ts';
import { decodeJsonLiteral } from './lenient-json.ts';
import { memoEntry } from './memo.ts';
import { TOOL_CALL_CLOSE, TOOL_CALL_OPEN } from './parse-hermes.ts';
import { MORE_BLOCK, NONE, findFirst, matchLiteral, skipSpace, type BlockReading, type CallSite, type SiteContext, type SiteScan, type ToolCallFormat } from './site.ts';
import type { RejectedCall, ToolCall } from './types.ts';

const FUNCTION_OPEN = '<function=';
const FUNCTION_CLOSE = '</function>';
const PARAMETER_OPEN = '<parameter=';
const PARAMETER_CLOSE = '</parameter>';
const MEMO = 'xml-function';
const LONGEST_END_TAG = TOOL_CALL_CLOSE.length;

/**
 * The XML form Qwen3-Coder and some engines write instead of JSON:
 *
 * ```text
 * <tool_call>
 * <function=web_search>
 * <parameter=query>
 * rust jobs
 * </parameter>
 * </function>
 * </tool_call>
 * ```
 *
 * A value loses the one newline on each side that the layout adds. A value that is, in full, a
 * JSON number, `true`, `false`, `null`, array or object is decoded; anything else stays a string
 * (so `75001` becomes a number — the tool registry coerces by schema where that matters).
 * Missing closing tags are forgiven: a parameter ends at the next parameter or the end of its
 * function, a function at the end of the block.
 */
export const xmlFunctionInToolCallSite: CallSite = {
  opener: TOOL_CALL_OPEN,
  scan(text, at, context) {
    const j = skipSpace(text, at + TOOL_CALL_OPEN.length);
    const fn = matchLiteral(text, j, FUNCTION_OPEN, context.final);
    if (fn === 'maybe') return MORE_BLOCK;
    if (fn === 'no') return NONE;
    return scanFunctionBlock(text, j, context);
  },
  read: readFunctionBlock,
};

/** `<function=…>` with the `<tool_call>` wrapper left out, which the same models also do. */
export const xmlFunctionBareSite: CallSite = {
  opener: FUNCTION_OPEN,
  scan(text, at, context) {
    return scanFunctionBlock(text, at, context);
  },
  read: readFunctionBlock,
};

interface XmlMemo {
  /** Where the next search for an end tag starts. */
  resume: number;
}

/**
 * The block ends after `</tool_call>`; before a following `<tool_call>`; after a `</function>`
 * that is followed by anything but `</tool_call>` or another `<function=`; or at the end.
 */
function scanFunctionBlock(text: string, from: number, context: SiteContext): SiteScan {
  const memo = memoEntry<XmlMemo>(context, MEMO, () => ({ resume: from }));
  for (;;) {
    const hit = findFirst(text, memo.resume, [FUNCTION_CLOSE, TOOL_CALL_CLOSE, TOOL_CALL_OPEN]);
    if (hit.index < 0) {
      if (context.final) return { kind: 'block', end: text.length };
      memo.resume = Math.max(memo.resume, text.length - (LONGEST_END_TAG - 1));
      return MORE_BLOCK;
    }
    if (hit.literal === TOOL_CALL_CLOSE) return { kind: 'block', end: hit.index + TOOL_CALL_CLOSE.length };
    if (hit.literal === TOOL_CALL_OPEN) return { kind: 'block', end: hit.index };
    const afterFunction = hit.index + FUNCTION_CLOSE.length;
    const k = skipSpace(text, afterFunction);
    const close = matchLiteral(text, k, TOOL_CALL_CLOSE, context.final);
    if (close === 'yes') return { kind: 'block', end: k + TOOL_CALL_CLOSE.length };
    const next = matchLiteral(text, k, FUNCTION_OPEN, context.final);
    if (close === 'maybe' || next === 'maybe') {
      memo.resume = hit.index;
      return MORE_BLOCK;
    }
    if (next === 'yes') {
      memo.resume = k;
      continue;
    }
    return { kind: 'block', end: afterFunction };
  }
}

function readFunctionBlock(text: string, at: number, end: number, context: SiteContext): BlockReading {
  const source = text.slice(at, end);
  const functions = parseXmlFunctions(source);
  if (functions.length === 0) return { claimed: true, calls: [], rejected: [{ name: null, reason: 'unparseable', source }] };
  const calls: ToolCall[] = [];
  const rejected: RejectedCall[] = [];
  for (const fn of functions) {
    const reading = readCallParts(fn.name, { present: true, value: fn.arguments }, { mode: 'markup', shapes: ['named'], names: context.names, source });
    calls.push(...reading.calls);
    rejected.push(...reading.rejected);
  }
  return { claimed: true, calls, rejected };
}

/**
 * The `<function=NAME>` elements of `block` with their decoded parameters. Exported for tests
 * and for callers holding an XML block that arrived some other way.
 */
export function parseXmlFunctions(block: string): { name: string; arguments: Record<string, unknown> }[] {
  const found: { name: string; arguments: Record<string, unknown> }[] = [];
  const closes = new NextIndex(block, FUNCTION_CLOSE);
  let i = block.indexOf(FUNCTION_OPEN);
  while (i >= 0) {
    const nameEnd = block.indexOf('>', i + FUNCTION_OPEN.length);
    if (nameEnd < 0) break;
    const name = unquote(block.slice(i + FUNCTION_OPEN.length, nameEnd).trim());
    const nextFunction = block.indexOf(FUNCTION_OPEN, nameEnd);
    const bodyLimit = nextFunction < 0 ? block.length : nextFunction;
    const close = closes.from(nameEnd);
    const bodyEnd = close >= 0 && close < bodyLimit ? close : bodyLimit;
    found.push({ name, arguments: parseParameters(block.slice(nameEnd + 1, bodyEnd)) });
    i = nextFunction;
  }
  return found;
}

function parseParameters(body: string): Record<string, unknown> {
  const args: Record<string, unknown> = {};
  const closes = new NextIndex(body, PARAMETER_CLOSE);
  let i = body.indexOf(PARAMETER_OPEN);
  while (i >= 0) {
    const keyEnd = body.indexOf('>', i + PARAMETER_OPEN.length);
    if (keyEnd < 0) break;
    const key = unquote(body.slice(i + PARAMETER_OPEN.length, keyEnd).trim());
    const next = body.indexOf(PARAMETER_OPEN, keyEnd);
    const limit = next < 0 ? body.length : next;
    const close = closes.from(keyEnd);
    const valueEnd = close >= 0 && close < limit ? close : limit;
    if (key !== '') args[key] = decodeJsonLiteral(stripLayoutNewlines(body.slice(keyEnd + 1, valueEnd)));
    i = next;
  }
  return args;
}

/**
 * `text.indexOf(literal, from)` for non-decreasing `from`, searching again only when the cached
 * hit falls behind: with closing tags missing, a fresh search per element would rescan to the
 * end of the block every time.
 */
class NextIndex {
  private hit = -2;

  constructor(
    private readonly text: string,
    private readonly literal: string,
  ) {}

  from(position: number): number {
    if (this.hit === -2 || (this.hit >= 0 && this.hit < position)) this.hit = this.text.indexOf(this.literal, position);
    return this.hit;
  }
}

/** Drop the single newline the layout puts on each side of a value; keep everything else. */
function stripLayoutNewlines(value: string): string {
  let v = value;
  if (v.startsWith('\r\n')) v = v.slice(2);
  else if (v.startsWith('\n')) v = v.slice(1);
  if (v.endsWith('\r\n')) v = v.slice(0, -2);
  else if (v.endsWith('\n')) v = v.slice(0, -1);
  return v;
}

function unquote(name: string): string {
  const first = name.charAt(0);
  if ((first === '"' || first === "'") && name.endsWith(first) && name.length >= 2) return name.slice(1, -1);
  return name;
}

/** Format 2: the XML function form, inside `<tool_call>` or on its own. */
export const xmlFunctionFormat: ToolCallFormat = {
  id: 'xml-function',
  description: 'Qwen3-Coder and engines that write calls as text: <tool_call><function=NAME><parameter=KEY>VALUE</parameter></function></tool_call>',
  sites: [xmlFunctionInToolCallSite, xmlFunctionBareSite],
};
