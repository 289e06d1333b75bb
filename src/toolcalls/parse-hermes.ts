import { readCallValue } from './call-shape.ts';
import { JsonSpanScanner } from './json-scan.ts';
import { parseLenientJson } from './lenient-json.ts';
import { memoEntry, memoLookup } from './memo.ts';
import { MORE_BLOCK, NONE, matchLiteral, skipSpace, type BlockReading, type CallSite, type ToolCallFormat } from './site.ts';

/** Qwen's and Hermes' opening tag. */
export const TOOL_CALL_OPEN = '<tool_call>';
/** Qwen's and Hermes' closing tag. */
export const TOOL_CALL_CLOSE = '</tool_call>';

const MEMO = 'hermes';
/** A missing brace must not let the JSON run into the closing tag or the next call. */
const STOPS = [TOOL_CALL_CLOSE, TOOL_CALL_OPEN];

interface HermesMemo {
  readonly jsonStart: number;
  readonly scanner: JsonSpanScanner;
}

/**
 * `<tool_call>{"name": …, "arguments": …}</tool_call>`, with or without newlines around the
 * JSON (Qwen3 writes `<tool_call>\n{…}\n</tool_call>`), several in a row, or a JSON array of
 * calls inside one tag.
 *
 * Where the block ends, in order: the closing tag; the next `<tool_call>` (the JSON never
 * closed); the end of the JSON when what follows it is not the closing tag (the tag is missing
 * and the model went on in prose, which stays prose; a later stray `</tool_call>` is removed
 * by the residue format); the end of the output. Whatever is inside is call markup: it leaves
 * the text even when no call can be read from it.
 */
export const hermesSite: CallSite = {
  opener: TOOL_CALL_OPEN,
  scan(text, at, context) {
    let memo = memoLookup<HermesMemo>(context, MEMO);
    if (memo === undefined) {
      const j = skipSpace(text, at + TOOL_CALL_OPEN.length);
      if (j >= text.length) return context.final ? NONE : MORE_BLOCK;
      const c = text.charCodeAt(j);
      if (c !== 123 && c !== 91) return NONE;
      memo = memoEntry<HermesMemo>(context, MEMO, () => ({
        jsonStart: j,
        scanner: new JsonSpanScanner(j, { stopAt: STOPS }),
      }));
    }
    const scanner = memo.scanner;
    const status = scanner.feed(text, text.length, context.final);
    if (status === 'open') return context.final ? { kind: 'block', end: text.length } : MORE_BLOCK;
    if (status === 'cut') {
      const own = text.startsWith(TOOL_CALL_CLOSE, scanner.end);
      return { kind: 'block', end: own ? scanner.end + TOOL_CALL_CLOSE.length : scanner.end };
    }
    const k = skipSpace(text, scanner.end);
    const close = matchLiteral(text, k, TOOL_CALL_CLOSE, context.final);
    if (close === 'yes') return { kind: 'block', end: k + TOOL_CALL_CLOSE.length };
    if (close === 'maybe') return MORE_BLOCK;
    return { kind: 'block', end: scanner.end };
  },
  read(text, at, end, context): BlockReading {
    const memo = memoLookup<HermesMemo>(context, MEMO);
    if (memo === undefined) return { claimed: true, calls: [], rejected: [] };
    const scanner = memo.scanner;
    const jsonEnd = scanner.status === 'open' ? end : scanner.end;
    const source = text.slice(at, end);
    const value = parseLenientJson(text.slice(memo.jsonStart, jsonEnd));
    const reading = readCallValue(value, {
      mode: 'markup',
      shapes: ['named', 'openai'],
      names: context.names,
      source,
      truncated: scanner.status !== 'closed' && scanner.inString,
    });
    if (!reading.shaped) return { claimed: true, calls: [], rejected: [{ name: null, reason: 'unparseable', source }] };
    return { claimed: true, calls: reading.calls, rejected: reading.rejected };
  },
};

/** Format 1: Qwen / Hermes JSON inside `<tool_call>` tags. */
export const hermesFormat: ToolCallFormat = {
  id: 'hermes',
  description: 'Qwen, Hermes: <tool_call>{"name": …, "arguments": …}</tool_call>',
  sites: [hermesSite],
};
