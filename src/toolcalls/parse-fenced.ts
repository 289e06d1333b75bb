import { readCallParts, readCallSpans, type CallMode } from './call-shape.ts';
import { findJsonValues } from './json-scan.ts';
import { memoEntry, memoLookup } from './memo.ts';
import { parseCallExpression } from './parse-call-expression.ts';
import { glmSite } from './parse-glm.ts';
import { hermesSite } from './parse-hermes.ts';
import { invokeBareSite, minimaxSite, xmlFunctionBareSite, xmlFunctionInToolCallSite, xmlFunctionNameSite } from './parse-xml-function.ts';
import { toolCallResidueSite } from './markup-residue.ts';
import {
  MORE_BLOCK,
  NONE,
  NOT_CLAIMED,
  isNameStart,
  skipSpace,
  type BlockReading,
  type CallSite,
  type SiteContext,
  type VerbatimRegion,
  type ToolCallFormat,
} from './site.ts';
import type { RejectedCall, ToolCall } from './types.ts';

const FENCE = '```';
const MEMO = 'fenced';

/**
 * Labels under which a fence may hold a call. An empty label and the JSON family hold bare
 * JSON (read strictly, as if it stood in the prose); the tool labels are explicit call markup.
 * Every other label — `python`, `js`, `ts`, `bash`, `text`, … — marks a code sample: the fence is
 * shown as written and nothing inside it is read as a call, not even a `<tool_call>` tag.
 */
const LABEL_MODES: ReadonlyMap<string, CallMode> = new Map<string, CallMode>([
  ['', 'bare'],
  ['json', 'bare'],
  ['json5', 'bare'],
  ['jsonc', 'bare'],
  ['tool_call', 'markup'],
  ['tool_calls', 'markup'],
  ['tool_code', 'markup'],
  ['tool', 'markup'],
  ['tool_use', 'markup'],
  ['tool_calls_json', 'markup'],
  ['function_call', 'markup'],
  ['function_calls', 'markup'],
]);

/** Labels whose fence may wrap call markup (`<tool_call>…`, `<function=…>`): read as the markup, else shown. */
const MARKUP_LABELS: ReadonlySet<string> = new Set(['xml', 'html']);

/** The sites that can read markup wrapped in an ```` ```xml ```` fence, in priority order. */
const WRAPPED_SITES: readonly CallSite[] = [
  hermesSite,
  xmlFunctionInToolCallSite,
  glmSite,
  toolCallResidueSite,
  xmlFunctionBareSite,
  xmlFunctionNameSite,
  minimaxSite,
  invokeBareSite,
];

interface FenceMemo {
  /** Index after the opening line. */
  readonly contentStart: number;
  readonly mode: CallMode | 'wrapped';
  /** Finds the closing fence as text arrives. */
  readonly closer: FenceCloser;
}

/**
 * The rest of a code fence after its opening line, up to and including the closing ```` ``` ````
 * (at the start of a line, after at most three spaces). Resumable: it keeps its place between
 * chunks and looks at each character once.
 */
export class FenceCloser implements VerbatimRegion {
  private lineStart = true;
  private ticks = 0;
  private indent = 0;
  private pos = -1;
  /** Where the closing line starts, once found; -1 before. */
  closingLineStart = -1;
  private lineBegin = -1;

  /** See {@link VerbatimRegion.advance}; done once the closing fence's backticks are past. */
  advance(text: string, from: number, final: boolean): { done: boolean; at: number } {
    let i = Math.max(from, this.pos);
    if (this.lineBegin < 0) this.lineBegin = from;
    for (; i < text.length; i++) {
      const c = text.charCodeAt(i);
      if (c === 10) {
        this.lineStart = true;
        this.ticks = 0;
        this.indent = 0;
        this.lineBegin = i + 1;
        continue;
      }
      if (!this.lineStart) continue;
      if (c === 96) {
        this.ticks++;
        if (this.ticks === 3) {
          this.closingLineStart = this.lineBegin;
          this.pos = i + 1;
          return { done: true, at: i + 1 };
        }
      } else if (c === 32 && this.ticks === 0 && this.indent < 3) {
        this.indent++;
      } else {
        this.lineStart = false;
      }
    }
    this.pos = i;
    return final ? { done: true, at: text.length } : { done: false, at: text.length };
  }

  /** See {@link VerbatimRegion.rebase}. */
  rebase(delta: number): void {
    if (this.pos >= 0) this.pos -= delta;
    if (this.lineBegin >= 0) this.lineBegin -= delta;
    if (this.closingLineStart >= 0) this.closingLineStart -= delta;
  }
}

/**
 * A call in a Markdown code fence: ```` ```json ````, an unlabelled ```` ``` ````, or
 * ```` ```tool_call ```` / ```` ```tool_code ```` (where Gemma-style `get_weather(city="Paris")`
 * also counts). The fence must open a line.
 *
 * In a JSON fence every value must be a call (by the bare rules) for the fence to be one; a
 * fence holding data, or JSON followed by other text, is shown as written. A fence that never
 * closes runs to the end of the output.
 */
const fencedSite: CallSite = {
  opener: FENCE,
  lineStartOnly: true,
  scan(text, at, context) {
    if (!context.lineStart) return NONE;
    let memo = memoLookup<FenceMemo>(context, MEMO);
    if (memo === undefined) {
      // The opening line may arrive over many chunks; resume the search for its end.
      const line = memoEntry(context, `${MEMO}:line`, () => ({ searched: at + FENCE.length }));
      const lineEnd = text.indexOf('\n', line.searched);
      if (lineEnd < 0 && !context.final) {
        line.searched = text.length;
        return MORE_BLOCK;
      }
      const contentStart = lineEnd < 0 ? text.length : lineEnd + 1;
      const label = (
        text
          .slice(at + FENCE.length, lineEnd < 0 ? text.length : lineEnd)
          .trim()
          .split(/\s+/)[0] ?? ''
      ).toLowerCase();
      const mode = LABEL_MODES.get(label) ?? (MARKUP_LABELS.has(label) ? 'wrapped' : undefined);
      if (mode === undefined) return { kind: 'verbatim', from: contentStart, region: new FenceCloser() };
      const k = skipSpace(text, contentStart);
      if (k >= text.length && !context.final) return MORE_BLOCK;
      const c = text.charCodeAt(k);
      if (mode === 'wrapped') {
        if (c === 123 || c === 91) {
          // JSON in an ```xml fence (llama.cpp's Hermes 2 Pro parser sees this): read by the bare rules.
          memo = memoEntry<FenceMemo>(context, MEMO, () => ({ contentStart, mode: 'bare', closer: new FenceCloser() }));
          const found = memo.closer.advance(text, memo.contentStart, context.final);
          return found.done ? { kind: 'block', end: found.at } : MORE_BLOCK;
        }
        if (c !== 60) return { kind: 'verbatim', from: contentStart, region: new FenceCloser() };
        memo = memoEntry<FenceMemo>(context, MEMO, () => ({ contentStart, mode, closer: new FenceCloser() }));
        const found = memo.closer.advance(text, memo.contentStart, context.final);
        return found.done ? { kind: 'block', end: found.at } : MORE_BLOCK;
      }
      const expression = mode === 'markup' && isNameStart(c);
      if (c !== 123 && c !== 91 && !expression) return { kind: 'verbatim', from: contentStart, region: new FenceCloser() };
      memo = memoEntry<FenceMemo>(context, MEMO, () => ({ contentStart, mode, closer: new FenceCloser() }));
    }
    const found = memo.closer.advance(text, memo.contentStart, context.final);
    return found.done ? { kind: 'block', end: found.at } : MORE_BLOCK;
  },
  read(text, at, end, context) {
    const memo = memoLookup<FenceMemo>(context, MEMO);
    if (memo === undefined) return NOT_CLAIMED;
    const contentEnd = memo.closer.closingLineStart >= 0 ? memo.closer.closingLineStart : end;
    if (memo.mode === 'wrapped') return readWrapped(text.slice(memo.contentStart, contentEnd), text.slice(at, end), context);
    return readFence(text, at, end, memo.contentStart, contentEnd, memo.mode, context);
  },
};

function readFence(text: string, at: number, end: number, from: number, to: number, mode: CallMode, context: SiteContext): BlockReading {
  const source = text.slice(at, end);
  const options = { mode, shapes: ['named', 'openai'], names: context.names, source } as const;
  const calls: ToolCall[] = [];
  const rejected: RejectedCall[] = [];
  const { values, rest } = findJsonValues(text, from, to);
  if (values.length === 0) {
    // Call expressions, one per line (```tool_code).
    for (const line of text.slice(from, to).split('\n')) {
      if (line.trim() === '') continue;
      const expression = parseCallExpression(line);
      if (expression === undefined)
        return mode === 'markup' ? { claimed: true, calls, rejected: [...rejected, { name: null, reason: 'unparseable', source }] } : NOT_CLAIMED;
      const reading = readCallParts(expression.name, { present: true, value: expression.arguments }, options);
      calls.push(...reading.calls);
      rejected.push(...reading.rejected);
    }
    return { claimed: mode === 'markup' || calls.length + rejected.length > 0, calls, rejected };
  }
  if (mode === 'bare' && text.slice(rest, to).trim() !== '') return NOT_CLAIMED;
  return readCallSpans(text, values, options);
}

/**
 * Call markup wrapped in an ```` ```xml ```` fence: read block by block with the markup sites;
 * the fence is a call only when its whole content is call markup, otherwise it is shown.
 */
function readWrapped(content: string, source: string, context: SiteContext): BlockReading {
  const calls: ToolCall[] = [];
  const rejected: RejectedCall[] = [];
  let i = skipSpace(content, 0);
  while (i < content.length) {
    let advanced = false;
    for (const site of WRAPPED_SITES) {
      if (!content.startsWith(site.opener, i)) continue;
      const inner: SiteContext = { final: true, names: context.names, lineStart: true, prevChar: -1, memo: new Map() };
      const scan = site.scan(content, i, inner);
      if (scan.kind !== 'block') continue;
      const reading = site.read(content, i, scan.end, inner);
      if (!reading.claimed) continue;
      calls.push(...reading.calls);
      rejected.push(...reading.rejected);
      i = skipSpace(content, reading.end ?? scan.end);
      advanced = true;
      break;
    }
    if (!advanced) return NOT_CLAIMED;
  }
  if (calls.length + rejected.length === 0) return NOT_CLAIMED;
  return { claimed: true, calls, rejected: rejected.map((r) => ({ ...r, source })) };
}

/** Format 5: JSON (or a call expression) inside a Markdown code fence. */
export const fencedFormat: ToolCallFormat = {
  id: 'fenced',
  description: 'Any model: a call as JSON inside ```json, ``` or ```tool_call / ```tool_code fences',
  sites: [fencedSite],
};
