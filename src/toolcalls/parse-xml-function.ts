import { readCallParts } from './call-shape.ts';
import { JsonSpanScanner } from './json-scan.ts';
import { decodeJsonLiteral, isPlainObject, parseLenientJson } from './lenient-json.ts';
import { memoEntry } from './memo.ts';
import { TOOL_CALL_CLOSE, TOOL_CALL_OPEN } from './parse-hermes.ts';
import {
  MORE_BLOCK,
  NONE,
  NextIndex,
  findFirst,
  matchLiteral,
  sharedFinder,
  skipSpace,
  type BlockReading,
  type CallSite,
  type SiteContext,
  type SiteScan,
  type ToolCallFormat,
} from './site.ts';
import type { RejectedCall, ToolCall } from './types.ts';
import { setOwn } from './own-property.ts';

/**
 * The tag vocabulary of one XML call dialect. Qwen3-Coder writes `<function=NAME>` with
 * `<parameter=KEY>` children; Hermes drifting writes `<function name="NAME">`; MiniMax-M2 writes
 * `<invoke name="NAME">` with `<parameter name="KEY">`; Llama 3.1's custom tool format and
 * Functionary v3.1 put a JSON object in the function element instead of parameters.
 */
interface XmlDialect {
  /** Openers of a function element; the name follows up to `>`. */
  readonly functionOpen: readonly string[];
  readonly functionClose: string;
  /** Openers of a parameter element; the key follows up to `>`. */
  readonly parameterOpen: readonly string[];
  readonly parameterClose: string;
  /** The wrapper around the calls, when there is one (its opener is the site's). */
  readonly wrapperOpen?: string;
  readonly wrapperClose?: string;
}

const QWEN_XML: XmlDialect = {
  functionOpen: ['<function=', '<function name='],
  functionClose: '</function>',
  parameterOpen: ['<parameter=', '<parameter name='],
  parameterClose: '</parameter>',
  wrapperOpen: TOOL_CALL_OPEN,
  wrapperClose: TOOL_CALL_CLOSE,
};

const QWEN_XML_BARE: XmlDialect = { ...QWEN_XML, wrapperOpen: undefined, wrapperClose: undefined } as XmlDialect;

/** Seed-OSS writes Qwen3-Coder's XML inside its own wrapper. */
const SEED_XML: XmlDialect = { ...QWEN_XML, wrapperOpen: '<seed:tool_call>', wrapperClose: '</seed:tool_call>' };

/** MiniMax-M2's wrapper. */
const MINIMAX_OPEN = '<minimax:tool_call>';
const MINIMAX_CLOSE = '</minimax:tool_call>';

const MINIMAX_XML: XmlDialect = {
  functionOpen: ['<invoke name='],
  functionClose: '</invoke>',
  parameterOpen: ['<parameter name=', '<parameter='],
  parameterClose: '</parameter>',
  wrapperOpen: MINIMAX_OPEN,
  wrapperClose: MINIMAX_CLOSE,
};

const MINIMAX_BARE: XmlDialect = { ...MINIMAX_XML, wrapperOpen: undefined, wrapperClose: undefined } as XmlDialect;

const MEMO = 'xml-function';

/**
 * Where a scan of an XML call block stands, kept between chunks so each character is looked at
 * a bounded number of times.
 */
interface XmlScanState {
  /** Next index to look at. */
  pos: number;
  /** `open`: a function opener may start here; `fn`: inside or between elements; `json`: inside a JSON body; `param`: inside a parameter value. */
  mode: 'open' | 'fn' | 'json' | 'param';
  /** The JSON body's scanner, in `json` mode. */
  scanner?: JsonSpanScanner;
  /** Where the open parameter's value started (for the fallback when it never closes). */
  paramStart?: number;
  /** At the end of the output, no parameter close tag was found after this index. */
  noCloseAfter?: number;
}

const ENDS = new WeakMap<XmlDialect, { fnEnds: readonly string[]; longest: number }>();

/** What ends the run of text inside a function element, per dialect (computed once: scans run per chunk). */
function endsOf(dialect: XmlDialect): { fnEnds: readonly string[]; longest: number } {
  let ends = ENDS.get(dialect);
  if (ends === undefined) {
    const fnEnds = [
      dialect.functionClose,
      ...dialect.parameterOpen,
      ...(dialect.wrapperClose ? [dialect.wrapperClose] : []),
      ...(dialect.wrapperOpen ? [dialect.wrapperOpen] : []),
    ];
    ends = { fnEnds, longest: Math.max(...fnEnds.map((l) => l.length)) };
    ENDS.set(dialect, ends);
  }
  return ends;
}

const PARAM_ENDS = new WeakMap<XmlDialect, readonly string[]>();

function paramEndsOf(dialect: XmlDialect): readonly string[] {
  let ends = PARAM_ENDS.get(dialect);
  if (ends === undefined) {
    ends = [dialect.functionClose, ...dialect.parameterOpen, ...dialect.functionOpen];
    PARAM_ENDS.set(dialect, ends);
  }
  return ends;
}

/**
 * Scans an XML call block: function elements, each with parameters or a JSON body, inside the
 * dialect's wrapper or standing alone. A parameter's value is text up to its own closing tag, so
 * call markup written inside a value (`</function>`, `<tool_call>`, `</invoke>`) is part of the
 * value; likewise inside a JSON body's strings. A value whose closing tag never comes ends at
 * the next parameter or at the end of its function, as the closing tags may simply be missing.
 *
 * The block ends after the wrapper's closing tag; before a new wrapper; after a function that
 * is followed by anything but another function or the wrapper's close; or at the end.
 */
function scanXmlBlock(text: string, from: number, context: SiteContext, dialect: XmlDialect): SiteScan {
  const state = memoEntry<XmlScanState>(context, MEMO, () => ({ pos: from, mode: 'fn' }));
  const wrapperClose = dialect.wrapperClose;
  const { fnEnds, longest } = endsOf(dialect);
  for (;;) {
    if (state.mode === 'open') {
      const k = skipSpace(text, state.pos);
      if (k >= text.length && !context.final) return MORE_BLOCK;
      let opener = '';
      for (const open of dialect.functionOpen) {
        const m = matchLiteral(text, k, open, context.final);
        if (m === 'maybe') return MORE_BLOCK;
        if (m === 'yes') {
          opener = open;
          break;
        }
      }
      if (opener !== '') {
        const opened = openFunction(text, k + opener.length, state, context);
        if (opened !== undefined) return opened;
        continue;
      }
      state.mode = 'fn';
      state.pos = k;
      continue;
    }
    if (state.mode === 'json') {
      const scanner = state.scanner as JsonSpanScanner;
      const status = scanner.feed(text, text.length, context.final);
      if (status === 'open') return context.final ? { kind: 'block', end: text.length } : MORE_BLOCK;
      state.mode = 'fn';
      state.pos = scanner.end;
      continue;
    }
    if (state.mode === 'param') {
      // Once a final search found no close tag, none follows any later parameter either.
      const close =
        state.noCloseAfter !== undefined && state.pos >= state.noCloseAfter ? -1 : sharedFinder(context, text, dialect.parameterClose).from(state.pos);
      if (close < 0 && context.final) state.noCloseAfter = Math.min(state.noCloseAfter ?? state.pos, state.pos);
      if (close >= 0) {
        state.mode = 'fn';
        state.pos = close + dialect.parameterClose.length;
        continue;
      }
      if (!context.final) {
        state.pos = Math.max(state.pos, text.length - (dialect.parameterClose.length - 1));
        return MORE_BLOCK;
      }
      // Never closed: the value ends at the next element, as if the closing tag were missing.
      state.mode = 'fn';
      state.pos = state.paramStart ?? state.pos;
      continue;
    }
    const hit = findFirst(text, state.pos, fnEnds);
    if (hit.index < 0) {
      if (context.final) return { kind: 'block', end: text.length };
      state.pos = Math.max(state.pos, text.length - (longest - 1));
      return MORE_BLOCK;
    }
    if (hit.literal === wrapperClose) return { kind: 'block', end: hit.index + hit.literal.length };
    if (hit.literal === dialect.wrapperOpen) return { kind: 'block', end: hit.index };
    if (dialect.parameterOpen.includes(hit.literal)) {
      const gt = tagEnd(text, hit.index + hit.literal.length, context.final);
      if (gt === 'more') return MORE_BLOCK;
      if (gt < 0) {
        state.pos = hit.index + hit.literal.length;
        continue;
      }
      state.mode = 'param';
      state.paramStart = gt + 1;
      state.pos = gt + 1;
      continue;
    }
    // A function closed: what follows decides whether the block goes on.
    const afterFunction = hit.index + hit.literal.length;
    const k = skipSpace(text, afterFunction);
    if (wrapperClose) {
      const close = matchLiteral(text, k, wrapperClose, context.final);
      if (close === 'yes') return { kind: 'block', end: k + wrapperClose.length };
      if (close === 'maybe') return MORE_BLOCK;
    }
    let next: 'yes' | 'no' | 'maybe' = 'no';
    let nextOpen = '';
    for (const open of dialect.functionOpen) {
      const m = matchLiteral(text, k, open, context.final);
      if (m === 'yes') {
        next = 'yes';
        nextOpen = open;
        break;
      }
      if (m === 'maybe') next = 'maybe';
    }
    if (next === 'maybe' || (k >= text.length && !context.final)) return MORE_BLOCK;
    if (next === 'yes') {
      const opened = openFunction(text, k + nextOpen.length, state, context);
      if (opened !== undefined) return opened;
      continue;
    }
    return { kind: 'block', end: afterFunction };
  }
}

/** A tag's name or key is at most this long; past it without a `>`, the tag is not one. */
const MAX_TAG_NAME = 256;

/** The `>` that ends a tag whose name starts at `from`: its index, -1 when there is none within reach, or 'more'. */
function tagEnd(text: string, from: number, final: boolean): number | 'more' {
  const limit = Math.min(text.length, from + MAX_TAG_NAME);
  for (let i = from; i < limit; i++) if (text.charCodeAt(i) === 62) return i;
  return !final && limit === text.length ? 'more' : -1;
}

/**
 * After a function opener's name: find the `>`, and enter the JSON body when one starts there.
 * Changes `state` only when it can decide, so a `more` resumes at the same opener.
 */
function openFunction(text: string, nameStart: number, state: XmlScanState, context: SiteContext): SiteScan | undefined {
  const gt = tagEnd(text, nameStart, context.final);
  if (gt === 'more') return MORE_BLOCK;
  if (gt < 0) {
    state.mode = 'fn';
    state.pos = nameStart;
    return undefined;
  }
  const j = skipSpace(text, gt + 1);
  if (j >= text.length && !context.final) return MORE_BLOCK;
  if (text.charCodeAt(j) === 123) {
    state.mode = 'json';
    state.scanner = new JsonSpanScanner(j, { stopAt: JSON_BODY_STOPS });
    state.pos = j;
    return undefined;
  }
  state.mode = 'fn';
  state.pos = gt + 1;
  return undefined;
}

const JSON_BODY_STOPS = ['</function>', TOOL_CALL_CLOSE, TOOL_CALL_OPEN, '</invoke>'];

/** The scan of a block whose first function opener is at `at` (or, with a wrapper, right after it). */
function scanFrom(text: string, at: number, context: SiteContext, dialect: XmlDialect): SiteScan {
  memoEntry<XmlScanState>(context, MEMO, () => ({ pos: at, mode: 'open' }));
  return scanXmlBlock(text, at, context, dialect);
}

function readXmlBlock(text: string, at: number, end: number, context: SiteContext, dialect: XmlDialect): BlockReading {
  const source = text.slice(at, end);
  const functions = parseXmlCalls(source, dialect);
  if (functions.length === 0) return { claimed: true, calls: [], rejected: [{ name: null, reason: 'unparseable', source }] };
  const calls: ToolCall[] = [];
  const rejected: RejectedCall[] = [];
  for (const fn of functions) {
    const args = fn.arguments === undefined ? { present: true, value: [] } : { present: true, value: fn.arguments };
    const reading = readCallParts(fn.name, args, { mode: 'markup', shapes: ['named'], names: context.names, source, truncated: fn.truncated });
    calls.push(...reading.calls);
    rejected.push(...reading.rejected);
  }
  return { claimed: true, calls, rejected };
}

/** One function element read from a block. */
interface XmlCall {
  name: string;
  /** Undefined when a JSON body could not be read. */
  arguments: Record<string, unknown> | undefined;
  /** The block ended inside this element's JSON string. */
  truncated: boolean;
}

/**
 * The `<function=NAME>` elements of `block` with their decoded parameters (Qwen3-Coder's
 * dialect, with `<function name="…">` and JSON bodies too). Exported for tests and for callers
 * holding an XML block that arrived some other way.
 */
export function parseXmlFunctions(block: string): { name: string; arguments: Record<string, unknown> }[] {
  return parseXmlCalls(block, QWEN_XML_BARE).map((fn) => ({ name: fn.name, arguments: fn.arguments ?? {} }));
}

function parseXmlCalls(block: string, dialect: XmlDialect): XmlCall[] {
  const found: XmlCall[] = [];
  // One finder for the whole block: a fresh search per function would rescan to the end each time.
  const closes = new NextIndex(block, dialect.parameterClose);
  let i = findFirst(block, 0, dialect.functionOpen);
  while (i.index >= 0) {
    const nameStart = i.index + i.literal.length;
    const gt = tagEnd(block, nameStart, true);
    if (gt === 'more' || gt < 0) {
      i = findFirst(block, nameStart, dialect.functionOpen);
      continue;
    }
    const name = unquote(block.slice(nameStart, gt).trim());
    const bodyStart = gt + 1;
    const j = skipSpace(block, bodyStart);
    if (block.charCodeAt(j) === 123) {
      const scanner = new JsonSpanScanner(j, { stopAt: JSON_BODY_STOPS });
      const status = scanner.feed(block, block.length, true);
      const jsonEnd = status === 'open' ? block.length : scanner.end;
      const value = parseLenientJson(block.slice(j, jsonEnd));
      found.push({ name, arguments: isPlainObject(value) ? value : undefined, truncated: status !== 'closed' && scanner.inString });
      i = findFirst(block, jsonEnd, dialect.functionOpen);
      continue;
    }
    const { args, end } = parseParameters(block, bodyStart, dialect, closes);
    found.push({ name, arguments: args, truncated: false });
    i = findFirst(block, end, dialect.functionOpen);
  }
  return found;
}

/**
 * The parameters from `from` to the end of the function element: each value runs to its own
 * closing tag — so it may hold any markup — or, when that never comes, to the next parameter
 * or the end of the function.
 */
function parseParameters(block: string, from: number, dialect: XmlDialect, closes: NextIndex): { args: Record<string, unknown>; end: number } {
  const args: Record<string, unknown> = {};
  const ends = paramEndsOf(dialect);
  let i = from;
  for (;;) {
    const hit = findFirst(block, i, ends);
    if (hit.index < 0) return { args, end: block.length };
    if (hit.literal === dialect.functionClose) return { args, end: hit.index + hit.literal.length };
    if (dialect.functionOpen.includes(hit.literal)) return { args, end: hit.index };
    const keyEnd = tagEnd(block, hit.index + hit.literal.length, true);
    if (keyEnd === 'more' || keyEnd < 0) {
      i = hit.index + hit.literal.length;
      continue;
    }
    const key = unquote(block.slice(hit.index + hit.literal.length, keyEnd).trim());
    const close = closes.from(keyEnd + 1);
    let valueEnd: number;
    let next: number;
    if (close >= 0) {
      valueEnd = close;
      next = close + dialect.parameterClose.length;
    } else {
      const limit = findFirst(block, keyEnd + 1, ends);
      valueEnd = limit.index < 0 ? block.length : limit.index;
      next = valueEnd;
    }
    if (key !== '') setOwn(args, key, decodeJsonLiteral(stripLayoutNewlines(block.slice(keyEnd + 1, valueEnd))));
    i = next;
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
 * and its relatives: `<function name="web_search">`, and a JSON object as the body
 * (`<function=web_search>{"query": "rust jobs"}</function>`, Llama 3.1's custom tool format and
 * Functionary v3.1). A value loses the one newline on each side that the layout adds; a value
 * that is, in full, a JSON number, `true`, `false`, `null`, array or object is decoded, anything
 * else stays a string.
 */
export const xmlFunctionInToolCallSite: CallSite = {
  opener: TOOL_CALL_OPEN,
  scan(text, at, context) {
    if (context.memo.get(MEMO) === undefined) {
      const j = skipSpace(text, at + TOOL_CALL_OPEN.length);
      let any: 'yes' | 'no' | 'maybe' = 'no';
      for (const open of QWEN_XML.functionOpen) {
        const m = matchLiteral(text, j, open, context.final);
        if (m === 'yes') any = 'yes';
        else if (m === 'maybe' && any === 'no') any = 'maybe';
      }
      if (any === 'maybe') return MORE_BLOCK;
      if (any === 'no') return NONE;
    }
    return scanFrom(text, skipSpace(text, at + TOOL_CALL_OPEN.length), context, QWEN_XML);
  },
  read(text, at, end, context) {
    return readXmlBlock(text, at, end, context, QWEN_XML);
  },
};

/** `<function=…>` with the `<tool_call>` wrapper left out, which the same models also do. */
export const xmlFunctionBareSite: CallSite = {
  opener: '<function=',
  scan(text, at, context) {
    return scanFrom(text, at, context, QWEN_XML_BARE);
  },
  read(text, at, end, context) {
    return readXmlBlock(text, at, end, context, QWEN_XML_BARE);
  },
};

/** `<function name="…">` standing alone. */
export const xmlFunctionNameSite: CallSite = {
  opener: '<function name=',
  scan(text, at, context) {
    return scanFrom(text, at, context, QWEN_XML_BARE);
  },
  read(text, at, end, context) {
    return readXmlBlock(text, at, end, context, QWEN_XML_BARE);
  },
};

/** MiniMax-M2: `<minimax:tool_call><invoke name="…"><parameter name="…">…</parameter></invoke></minimax:tool_call>`. */
export const minimaxSite: CallSite = {
  opener: MINIMAX_OPEN,
  scan(text, at, context) {
    return scanFrom(text, at + MINIMAX_OPEN.length, context, MINIMAX_XML);
  },
  read(text, at, end, context) {
    return readXmlBlock(text, at, end, context, MINIMAX_XML);
  },
};

/** Seed-OSS: `<seed:tool_call><function=NAME><parameter=KEY>VALUE</parameter></function></seed:tool_call>`. */
const seedSite: CallSite = {
  opener: '<seed:tool_call>',
  scan(text, at, context) {
    return scanFrom(text, at + '<seed:tool_call>'.length, context, SEED_XML);
  },
  read(text, at, end, context) {
    return readXmlBlock(text, at, end, context, SEED_XML);
  },
};

/** MiniMax's `<invoke name="…">` with the wrapper left out. */
export const invokeBareSite: CallSite = {
  opener: '<invoke name=',
  scan(text, at, context) {
    return scanFrom(text, at, context, MINIMAX_BARE);
  },
  read(text, at, end, context) {
    return readXmlBlock(text, at, end, context, MINIMAX_BARE);
  },
};

/** Format 2: the XML function forms, inside `<tool_call>`, MiniMax's wrapper, or on their own. */
export const xmlFunctionFormat: ToolCallFormat = {
  id: 'xml-function',
  description:
    'Qwen3-Coder and engines that write calls as XML: <tool_call><function=NAME><parameter=KEY>VALUE</parameter></function></tool_call>, <function=NAME>{json}</function> (Llama 3.1, Functionary v3.1), <function name="NAME">, MiniMax <invoke name="NAME">',
  innerMarkers: ['</parameter>'],
  sites: [xmlFunctionInToolCallSite, xmlFunctionBareSite, xmlFunctionNameSite, minimaxSite, seedSite, invokeBareSite],
};
