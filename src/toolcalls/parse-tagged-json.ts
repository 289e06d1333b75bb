import { readCallSpans, type CallMode } from './call-shape.ts';
import { findJsonValues, JsonSpanScanner } from './json-scan.ts';
import { memoEntry, memoLookup } from './memo.ts';
import { TOOL_CALL_OPEN } from './parse-hermes.ts';
import {
  MORE_BLOCK,
  NONE,
  NOT_CLAIMED,
  matchLiteral,
  skipSpace,
  type BlockReading,
  type CallSite,
  type SiteContext,
  type SiteScan,
  type ToolCallFormat,
} from './site.ts';

interface TaggedMemo {
  readonly close: string;
  /** Where the JSON values start. */
  readonly valuesStart: number;
  /** Resumable scan of the current value. */
  scanner: JsonSpanScanner;
  /** Where the values end (before the close tag), once known. */
  valuesEnd: number;
}

/**
 * JSON calls inside a tag other than `<tool_call>`: what Hermes-style models drift into and what
 * other families write natively.
 *
 * - Explicit call tags (`markup`): `<tool_calls>` (MiniMax-M1, Hunyuan, Jamba), `<function_call>`
 *   (Granite-20B-FC), `<longcat_tool_call>`. Whatever is inside is call markup.
 * - Generic tags (`bare`): `<tool>`, `<tools>`, `<tool_use>`, `<response>`, `<json>`, `<xml>`,
 *   `<JSON>` — llama.cpp's Hermes 2 Pro parser accepts a call wrapped in any of these. Here the
 *   content is read by the bare-JSON rules (every key a call key, a real name, arguments as an
 *   object), so `<json>{"name": "Alice", "age": 3}</json>` stays data and is shown as written.
 *
 * Several values may follow one another (one per line, or a list). The block ends after the
 * closing tag, or where the last value ends when the tag is left out.
 */
function taggedJsonSite(tag: string, mode: CallMode): CallSite {
  const open = `<${tag}>`;
  const close = `</${tag}>`;
  const key = `tagged:${tag}`;
  return {
    opener: open,
    scan(text, at, context) {
      let memo = memoLookup<TaggedMemo>(context, key);
      if (memo === undefined) {
        const j = skipSpace(text, at + open.length);
        if (j >= text.length) return context.final ? (mode === 'markup' ? { kind: 'block', end: text.length } : NONE) : MORE_BLOCK;
        const c = text.charCodeAt(j);
        if (c !== 123 && c !== 91) {
          if (mode !== 'markup') return NONE;
          const closing = matchLiteral(text, j, close, context.final);
          if (closing === 'maybe') return MORE_BLOCK;
          return closing === 'yes' ? { kind: 'block', end: j + close.length } : NONE;
        }
        memo = memoEntry<TaggedMemo>(context, key, () => ({ close, valuesStart: j, scanner: newScanner(j, close), valuesEnd: -1 }));
      }
      return scanValues(text, memo, context);
    },
    read(text, at, end, context) {
      const memo = memoLookup<TaggedMemo>(context, key);
      if (memo === undefined) return mode === 'markup' ? { claimed: true, calls: [], rejected: [] } : NOT_CLAIMED;
      return readValues(text, at, end, memo, mode, context);
    },
  };
}

function newScanner(at: number, close: string): JsonSpanScanner {
  return new JsonSpanScanner(at, { stopAt: [close, TOOL_CALL_OPEN] });
}

function scanValues(text: string, memo: TaggedMemo, context: SiteContext): SiteScan {
  for (;;) {
    const status = memo.scanner.feed(text, text.length, context.final);
    if (status === 'open') return context.final ? { kind: 'block', end: text.length } : MORE_BLOCK;
    const valueEnd = memo.scanner.end;
    let k = valueEnd;
    while (
      k < text.length &&
      (text.charCodeAt(k) === 32 || text.charCodeAt(k) === 10 || text.charCodeAt(k) === 13 || text.charCodeAt(k) === 9 || text.charCodeAt(k) === 44)
    )
      k++;
    if (k >= text.length && !context.final) return MORE_BLOCK;
    const closing = matchLiteral(text, k, memo.close, context.final);
    if (closing === 'maybe') return MORE_BLOCK;
    if (closing === 'yes') {
      memo.valuesEnd = valueEnd;
      return { kind: 'block', end: k + memo.close.length };
    }
    const c = text.charCodeAt(k);
    if (status === 'closed' && (c === 123 || c === 91)) {
      memo.scanner = newScanner(k, memo.close);
      continue;
    }
    memo.valuesEnd = valueEnd;
    return { kind: 'block', end: valueEnd };
  }
}

function readValues(text: string, at: number, end: number, memo: TaggedMemo, mode: CallMode, context: SiteContext): BlockReading {
  const source = text.slice(at, end);
  const to = memo.valuesEnd >= 0 ? memo.valuesEnd : end;
  const { values } = findJsonValues(text, memo.valuesStart, to);
  const reading = readCallSpans(text, values, { mode, shapes: ['named', 'openai'], names: context.names, source });
  if (mode === 'bare' && reading.calls.length + reading.rejected.length === 0) return NOT_CLAIMED;
  return reading;
}

/** Tags that only ever wrap calls. */
const CALL_TAGS = ['tool_calls', 'function_call', 'longcat_tool_call'] as const;
/** Tags that may wrap a call or anything else. */
const GENERIC_TAGS = ['tool', 'tools', 'tool_use', 'response', 'json', 'xml', 'JSON'] as const;

/** Format: JSON calls in tags other than `<tool_call>`. */
export const taggedJsonFormat: ToolCallFormat = {
  id: 'tagged-json',
  description:
    'JSON calls in other tags: <tool_calls>, <function_call>, <longcat_tool_call>; and, read strictly, <tool>, <tools>, <tool_use>, <response>, <json>, <xml>',
  sites: [...CALL_TAGS.map((tag) => taggedJsonSite(tag, 'markup')), ...GENERIC_TAGS.map((tag) => taggedJsonSite(tag, 'bare'))],
};

/** The closing tags of the call-only tags: left over, they are removed like other stray markup. */
export const TAGGED_CLOSERS: readonly string[] = CALL_TAGS.map((tag) => `</${tag}>`);
