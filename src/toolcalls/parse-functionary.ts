import { readCallParts } from './call-shape.ts';
import { JsonSpanScanner } from './json-scan.ts';
import { parseLenientJson } from './lenient-json.ts';
import { memoEntry, memoLookup } from './memo.ts';
import { MORE_BLOCK, NONE, isNameChar, isNameStart, type BlockReading, type CallSite, type SiteContext, type SiteScan, type ToolCallFormat } from './site.ts';

const RECIPIENT = '>>>';
/** Functionary's recipient for text meant for the user. */
const ALL = 'all';
const MEMO = 'functionary';

interface FunctionaryMemo {
  name: string;
  /** Index just past the newline after the name. */
  bodyStart: number;
  /** `content`: `all`, text follows; `json`: arguments object; `code`: the python tool's raw code. */
  kind: 'content' | 'json' | 'code';
  scanner?: JsonSpanScanner;
  /** Where a code body's search for the next recipient resumes. */
  resume: number;
}

/**
 * The recipient line: `NAME` and the newline after it, from `from`. Undefined when it is not one;
 * 'more' when the text ends first.
 */
function readRecipient(text: string, from: number, context: SiteContext): { name: string; bodyStart: number } | 'more' | undefined {
  if (from >= text.length) return context.final ? undefined : 'more';
  if (!isNameStart(text.charCodeAt(from))) return undefined;
  let k = from;
  while (k < text.length && isNameChar(text.charCodeAt(k)) && k - from < 128) k++;
  if (k >= text.length) {
    if (context.final) return undefined;
    // Hold a half-written name only while it may still become a tool's (or `all`).
    const prefix = text.slice(from, k);
    return ALL.startsWith(prefix) || context.names === undefined || context.names.couldBe(prefix) ? 'more' : undefined;
  }
  const nl = text.charCodeAt(k) === 13 && text.charCodeAt(k + 1) === 10 ? k + 2 : text.charCodeAt(k) === 10 ? k + 1 : -1;
  if (nl < 0) return undefined;
  return { name: text.slice(from, k), bodyStart: nl };
}

function scanFunctionary(text: string, from: number, context: SiteContext, requireRegistered: boolean): SiteScan {
  let memo = memoLookup<FunctionaryMemo>(context, MEMO);
  if (memo === undefined) {
    const recipient = readRecipient(text, from, context);
    if (recipient === 'more') return { kind: 'more', phase: 'marker' };
    if (recipient === undefined) return NONE;
    const { name, bodyStart } = recipient;
    if (name === ALL) {
      memo = memoEntry<FunctionaryMemo>(context, MEMO, () => ({ name, bodyStart, kind: 'content', resume: bodyStart }));
    } else {
      const registered = context.names?.resolve(name);
      // The bare form (no `>>>`) is only a recipient when it names a registered tool: any first line could be a word.
      if (requireRegistered && registered === undefined) return NONE;
      let j = bodyStart;
      while (j < text.length && (text.charCodeAt(j) === 32 || text.charCodeAt(j) === 9)) j++;
      if (j >= text.length && !context.final) return { kind: 'more', phase: 'marker' };
      if (text.charCodeAt(j) === 123) {
        memo = memoEntry<FunctionaryMemo>(context, MEMO, () => ({
          name,
          bodyStart: j,
          kind: 'json',
          scanner: new JsonSpanScanner(j, { stopAt: [RECIPIENT] }),
          resume: j,
        }));
      } else if (registered !== undefined && registered.toLowerCase() === 'python') {
        memo = memoEntry<FunctionaryMemo>(context, MEMO, () => ({ name, bodyStart, kind: 'code', resume: bodyStart }));
      } else {
        return NONE;
      }
    }
  }
  if (memo.kind === 'content') return { kind: 'block', end: memo.bodyStart };
  if (memo.kind === 'code') {
    const next = text.indexOf(RECIPIENT, memo.resume);
    if (next >= 0) return { kind: 'block', end: next };
    if (context.final) return { kind: 'block', end: text.length };
    memo.resume = Math.max(memo.resume, text.length - (RECIPIENT.length - 1));
    return MORE_BLOCK;
  }
  const scanner = memo.scanner as JsonSpanScanner;
  const status = scanner.feed(text, text.length, context.final);
  if (status === 'open') return context.final ? { kind: 'block', end: text.length } : MORE_BLOCK;
  let end = scanner.end;
  if (text.charCodeAt(end) === 10) end++;
  else if (end >= text.length && !context.final) return MORE_BLOCK;
  return { kind: 'block', end };
}

function readFunctionary(text: string, at: number, end: number, context: SiteContext): BlockReading {
  const memo = memoLookup<FunctionaryMemo>(context, MEMO);
  const source = text.slice(at, end);
  if (memo === undefined || memo.kind === 'content') return { claimed: true, calls: [], rejected: [] };
  let value: unknown;
  let truncated = false;
  if (memo.kind === 'code') {
    value = { code: text.slice(memo.bodyStart, end).replace(/\n$/, '') };
  } else {
    const scanner = memo.scanner as JsonSpanScanner;
    value = parseLenientJson(text.slice(memo.bodyStart, scanner.status === 'open' ? end : scanner.end)) ?? [];
    truncated = scanner.status !== 'closed' && scanner.inString;
  }
  const reading = readCallParts(memo.name, { present: true, value }, { mode: 'markup', shapes: ['named'], names: context.names, source, truncated });
  return { claimed: true, calls: reading.calls, rejected: reading.rejected };
}

/** Functionary v3.2: `>>>NAME\n{json}`, several in a row; `>>>all\n` introduces text for the user. */
const functionaryRecipientSite: CallSite = {
  opener: RECIPIENT,
  scan: (text, at, context) => scanFunctionary(text, at + RECIPIENT.length, context, false),
  read: readFunctionary,
};

/** Functionary v3.2's first recipient, written without `>>>` at the very start of the output. */
const functionaryStartSite: CallSite = {
  opener: '',
  outputStartOnly: true,
  scan(text, at, context) {
    // Without a tool list, a first line followed by JSON is not evidence enough; only `all` counts.
    if (context.names === undefined) {
      const head = `${ALL}\n`;
      const rest = text.slice(at, at + head.length);
      if (rest.length < head.length && head.startsWith(rest) && !context.final) return { kind: 'more', phase: 'marker' };
      if (rest !== head) return NONE;
    }
    return scanFunctionary(text, at, context, true);
  },
  read: readFunctionary,
};

/** Format: Functionary v3.2 recipients. */
export const functionaryFormat: ToolCallFormat = {
  id: 'functionary',
  description: 'Functionary v3.2: >>>NAME\\n{json}, several in a row; >>>all\\n before text',
  sites: [functionaryRecipientSite, functionaryStartSite],
};
