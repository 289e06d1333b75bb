import { BodyScanner, type BodyScanOptions } from './body-scan.ts';
import { readCallParts, readCallValue, type CallReading } from './call-shape.ts';
import { GEMMA_DELIMITERS, parseGemmaObject } from './gemma-args.ts';
import { JsonSpanScanner } from './json-scan.ts';
import { parseLenientJson } from './lenient-json.ts';
import { memoEntry, memoLookup } from './memo.ts';
import { parseCallExpression, splitTopLevel } from './parse-call-expression.ts';
import { MORE_BLOCK, NONE, NextIndex, matchLiteral, skipSpace, type BlockReading, type CallSite, type SiteContext, type ToolCallFormat } from './site.ts';

/** How a block's body is read once its end is known. */
type BodyReader = (body: string, options: ReaderOptions) => CallReading;

interface ReaderOptions {
  readonly context: SiteContext;
  readonly source: string;
  /** The block ended inside a string: a value would be a fragment. */
  readonly truncated: boolean;
}

interface DelimitedSpec extends Omit<BodyScanOptions, 'closers'> {
  readonly opener: string;
  /** The body must start with this right after the opener, or the opener is not this format's. */
  readonly bodyStarts?: string;
  /**
   * What the body's first character (after spaces) may be; otherwise the marker stands alone (a
   * model mentioning `<|tool_call|>` in prose): it leaves the text, and the prose after it stays.
   */
  readonly firstChar?: RegExp;
  readonly closers: readonly string[];
  readonly read: BodyReader;
  readonly lineStartOnly?: boolean;
}

const MORE_MARKER = { kind: 'more', phase: 'marker' } as const;

interface DelimitedMemo {
  readonly scanner: BodyScanner;
  end: number;
  bodyEnd: number;
}

/**
 * A call block opened by a marker and ended by a closing marker met outside any string (or, for
 * one-value bodies, where the value's brackets balance when the closer was left out). The
 * marker is call markup: it leaves the text even when nothing readable follows it.
 */
function delimitedSite(spec: DelimitedSpec): CallSite {
  const key = `delimited:${spec.opener}`;
  return {
    opener: spec.opener,
    ...(spec.lineStartOnly ? { lineStartOnly: true } : {}),
    scan(text, at, context) {
      if (spec.bodyStarts !== undefined && memoLookup(context, key) === undefined) {
        const m = matchLiteral(text, at + spec.opener.length, spec.bodyStarts, context.final);
        if (m === 'maybe') return MORE_MARKER;
        if (m === 'no') return NONE;
      }
      if (spec.firstChar !== undefined && memoLookup(context, key) === undefined) {
        const j = skipSpace(text, at + spec.opener.length);
        if (j >= text.length) {
          if (!context.final) return MORE_BLOCK;
        } else if (!spec.firstChar.test(text.charAt(j))) {
          return { kind: 'block', end: at + spec.opener.length };
        }
      }
      const memo = memoEntry<DelimitedMemo>(context, key, () => ({
        scanner: new BodyScanner(at + spec.opener.length, spec),
        end: -1,
        bodyEnd: -1,
      }));
      const status = memo.scanner.feed(text, context.final);
      if (!status.done) return MORE_BLOCK;
      memo.end = status.end;
      memo.bodyEnd = status.bodyEnd;
      return { kind: 'block', end: status.end };
    },
    read(text, at, end, context): BlockReading {
      const memo = memoLookup<DelimitedMemo>(context, key);
      const source = text.slice(at, end);
      const bodyEnd = memo !== undefined && memo.end === end ? memo.bodyEnd : end;
      const body = text.slice(at + spec.opener.length, bodyEnd);
      const truncated = memo?.scanner.inString ?? false;
      if (body.trim() === '') return { claimed: true, calls: [], rejected: [] };
      const reading = spec.read(body, { context, source, truncated });
      if (!reading.shaped) return { claimed: true, calls: [], rejected: [{ name: null, reason: 'unparseable', source }] };
      return { claimed: true, calls: reading.calls, rejected: reading.rejected };
    },
  };
}

function unparseable(): CallReading {
  return { shaped: false, calls: [], rejected: [] };
}

/** A JSON call object or list of them, as explicit markup. */
const readJsonBody: BodyReader = (body, { context, source, truncated }) =>
  readCallValue(parseLenientJson(body), { mode: 'markup', shapes: ['named', 'openai'], names: context.names, source, truncated });

/**
 * Pythonic calls: `[get_weather(city="Paris"), get_time(tz="UTC")]`, one call without the list,
 * or — when the model was told to — JSON. Python literals (`True`, `None`, single quotes) decode.
 */
const readPythonicBody: BodyReader = (body, options) => {
  const trimmed = body.trim();
  const inner = trimmed.startsWith('[') ? trimmed.slice(1, trimmed.endsWith(']') ? -1 : undefined) : trimmed;
  if (inner.trimStart().startsWith('{')) return readJsonBody(trimmed, options);
  return readCallList(inner, options);
};

function readCallList(inner: string, { context, source, truncated }: ReaderOptions): CallReading {
  const reading: CallReading = { shaped: false, calls: [], rejected: [] };
  for (const piece of splitTopLevel(inner)) {
    if (piece.trim() === '') continue;
    const expression = parseCallExpression(piece);
    if (expression === undefined) return unparseable();
    const one = readCallParts(
      expression.name,
      { present: true, value: expression.arguments },
      { mode: 'markup', shapes: ['named'], names: context.names, source, truncated },
    );
    reading.shaped = true;
    reading.calls.push(...one.calls);
    reading.rejected.push(...one.rejected);
  }
  return reading;
}

/** FunctionGemma and Gemma 4: `call:NAME{key:<escape>value<escape>,…}`. */
const readGemmaBody: BodyReader = (body, { context, source, truncated }) => {
  const reading: CallReading = { shaped: false, calls: [], rejected: [] };
  let rest = body.trim();
  if (rest.startsWith('call:')) rest = rest.slice(5);
  const brace = rest.indexOf('{');
  if (brace <= 0) return unparseable();
  const name = rest.slice(0, brace).trim();
  const parsed = parseGemmaObject(rest, brace);
  if (parsed === undefined || rest.slice(parsed.end).trim() !== '') return unparseable();
  const one = readCallParts(name, { present: true, value: parsed.value }, { mode: 'markup', shapes: ['named'], names: context.names, source, truncated });
  reading.shaped = true;
  reading.calls.push(...one.calls);
  reading.rejected.push(...one.rejected);
  return reading;
};

// Kimi K2: <|tool_calls_section_begin|><|tool_call_begin|>functions.NAME:0<|tool_call_argument_begin|>{…}<|tool_call_end|>…<|tool_calls_section_end|>
const KIMI_SECTION_OPEN = '<|tool_calls_section_begin|>';
const KIMI_SECTION_CLOSE = '<|tool_calls_section_end|>';
const KIMI_CALL_OPEN = '<|tool_call_begin|>';
const KIMI_ARGS = '<|tool_call_argument_begin|>';
const KIMI_CALL_CLOSE = '<|tool_call_end|>';

/** Kimi's call id `functions.NAME:0` → `NAME`. */
function kimiName(id: string): string {
  let name = id.trim();
  if (name.startsWith('functions.')) name = name.slice('functions.'.length);
  const colon = name.lastIndexOf(':');
  if (colon > 0 && /^\d+$/.test(name.slice(colon + 1))) name = name.slice(0, colon);
  return name;
}

/** Calls separated by `callOpen`, each `ID<sep>{json}` read by `part`. Strings in the JSON may hold any marker. */
function readSeparatedCalls(
  body: string,
  callOpen: string,
  readOne: (segment: string, next: number) => { call: CallReading; end: number } | undefined,
): CallReading {
  const reading: CallReading = { shaped: false, calls: [], rejected: [] };
  const opens = new NextIndex(body, callOpen);
  let i = opens.from(0);
  while (i >= 0) {
    const one = readOne(body, i + callOpen.length);
    if (one === undefined) return reading.shaped ? reading : unparseable();
    reading.shaped = true;
    reading.calls.push(...one.call.calls);
    reading.rejected.push(...one.call.rejected);
    i = opens.from(Math.max(one.end, i + callOpen.length));
  }
  return reading;
}

/** One {@link NextIndex} per literal of a text, made on first use. */
function finders(text: string): (literal: string) => NextIndex {
  const made = new Map<string, NextIndex>();
  return (literal) => {
    let finder = made.get(literal);
    if (finder === undefined) {
      finder = new NextIndex(text, literal);
      made.set(literal, finder);
    }
    return finder;
  };
}

/** The JSON value starting at or after `from` in `text`: its text and where it ended. */
function jsonAt(text: string, from: number, stops: readonly string[]): { json: string; end: number; truncated: boolean } | undefined {
  const j = skipSpace(text, from);
  const c = text.charCodeAt(j);
  if (c !== 123 && c !== 91) return undefined;
  const scanner = new JsonSpanScanner(j, { stopAt: stops });
  const status = scanner.feed(text, text.length, true);
  const end = status === 'open' ? text.length : scanner.end;
  return { json: text.slice(j, end), end, truncated: status !== 'closed' && scanner.inString };
}

const KIMI_STOPS = [KIMI_CALL_CLOSE, KIMI_CALL_OPEN, KIMI_SECTION_CLOSE];

const readKimiBody: BodyReader = (body, { context, source, truncated }) => {
  const text = body.includes(KIMI_CALL_OPEN) ? body : `${KIMI_CALL_OPEN}${body}`;
  const find = finders(text);
  return readSeparatedCalls(text, KIMI_CALL_OPEN, (whole, from) => {
    const args = find(KIMI_ARGS).from(from);
    const nextCall = find(KIMI_CALL_OPEN).from(from);
    if (args < 0 || (nextCall >= 0 && nextCall < args)) return undefined;
    const name = kimiName(whole.slice(from, args));
    const value = jsonAt(whole, args + KIMI_ARGS.length, KIMI_STOPS);
    const parsed = value === undefined ? undefined : parseLenientJson(value.json);
    const call = readCallParts(
      name,
      { present: true, value: parsed ?? [] },
      { mode: 'markup', shapes: ['named'], names: context.names, source, truncated: truncated || value?.truncated === true },
    );
    return { call, end: value?.end ?? args + KIMI_ARGS.length };
  });
};

// DeepSeek V3/R1 (and V3.1 without the fence). Quantized models drift between `▁`, `_` and spaces.
const DS_SEPS = ['▁', '_', ' '];
const DS_PIPES = ['｜', '|'];
const dsVariants = (words: readonly string[]): string[] => DS_PIPES.flatMap((p) => DS_SEPS.map((s) => `<${p}${words.join(s)}${p}>`));
const DS_CALLS_OPEN = dsVariants(['tool', 'calls', 'begin']);
const DS_CALLS_CLOSE = [...dsVariants(['tool', 'calls', 'end']), ...dsVariants(['end', 'of', 'sentence'])];
const DS_CALL_OPEN = dsVariants(['tool', 'call', 'begin']);
const DS_CALL_CLOSE = dsVariants(['tool', 'call', 'end']);
const DS_SEP = dsVariants(['tool', 'sep']);

/** The DeepSeek markers spelt one way, so the body can be read with plain searches. */
function canonicalDeepSeek(text: string): string {
  return text.replace(/<[｜|]tool[▁_ ](call|calls)[▁_ ](begin|end)[｜|]>/g, '<｜tool▁$1▁$2｜>').replace(/<[｜|]tool[▁_ ]sep[｜|]>/g, '<｜tool▁sep｜>');
}

const readDeepSeekBody: BodyReader = (body, { context, source, truncated }) => {
  const canonical = canonicalDeepSeek(body);
  const callOpen = '<｜tool▁call▁begin｜>';
  const callClose = '<｜tool▁call▁end｜>';
  const sep = '<｜tool▁sep｜>';
  const text = canonical.includes(callOpen) ? canonical : `${callOpen}${canonical}`;
  const find = finders(text);
  return readSeparatedCalls(text, callOpen, (whole, from) => {
    const sepAt = find(sep).from(from);
    const nextCall = find(callOpen).from(from);
    if (nextCall >= 0 && sepAt > nextCall) return undefined;
    if (sepAt < 0) return undefined;
    const head = whole.slice(from, sepAt).trim();
    let nameEnd: number;
    let name: string;
    if (head === 'function' || head === '') {
      // R1: function<｜tool▁sep｜>NAME\n```json\n{…}\n```
      const afterSep = sepAt + sep.length;
      const newline = find('\n').from(afterSep);
      const brace = find('{').from(afterSep);
      nameEnd = newline >= 0 && (brace < 0 || newline < brace) ? newline : brace >= 0 ? brace : whole.length;
      name = whole.slice(afterSep, nameEnd).trim();
    } else {
      // V3.1: NAME<｜tool▁sep｜>{…}
      name = head;
      nameEnd = sepAt + sep.length;
    }
    let k = skipSpace(whole, nameEnd);
    if (whole.startsWith('```', k)) {
      const lineEnd = find('\n').from(k);
      k = lineEnd < 0 ? whole.length : lineEnd + 1;
    }
    const value = jsonAt(whole, k, [callClose, callOpen, '```']);
    const parsed = value === undefined ? undefined : parseLenientJson(value.json);
    const call = readCallParts(
      name,
      { present: value !== undefined, value: parsed ?? [] },
      { mode: 'markup', shapes: ['named'], names: context.names, source, truncated: truncated || value?.truncated === true },
    );
    const close = find(callClose).from(value?.end ?? nameEnd);
    return { call, end: close >= 0 ? close + callClose.length : (value?.end ?? whole.length) };
  });
};

/** `[TOOL_CALLS]`-free JSON lists after a marker that ends at the value (Granite 3, Phi-4-mini). */
const JSON_LIST = { quotes: ['"', "'"], endAtValue: true, firstChar: /[[{]/ } as const;
const PYTHONIC_START = /[[{]/;
const GEMMA_START = /[A-Za-z_]/;

/** FunctionGemma: `<start_function_call>call:NAME{…}<end_function_call>`. */
const functionGemmaSite = delimitedSite({
  opener: '<start_function_call>',
  closers: ['<end_function_call>', '<start_function_response>'],
  quotes: ['"'],
  delimiters: GEMMA_DELIMITERS,
  endAtValue: true,
  firstChar: GEMMA_START,
  read: readGemmaBody,
});

/** Gemma 4: `<|tool_call>call:NAME{key:<|"|>value<|"|>}<tool_call|>`. */
const gemma4Site = delimitedSite({
  opener: '<|tool_call>',
  closers: ['<tool_call|>'],
  quotes: ['"'],
  delimiters: GEMMA_DELIMITERS,
  endAtValue: true,
  firstChar: GEMMA_START,
  read: readGemmaBody,
});

/** LFM2: `<|tool_call_start|>[get_time(city="Paris")]<|tool_call_end|>` (pythonic, or JSON when asked). */
const lfm2Site = delimitedSite({
  opener: '<|tool_call_start|>',
  closers: ['<|tool_call_end|>'],
  endAtValue: true,
  firstChar: PYTHONIC_START,
  read: readPythonicBody,
});

/** Llama 4's pythonic calls between `<|python_start|>` and `<|python_end|>`. */
const llama4Site = delimitedSite({
  opener: '<|python_start|>',
  closers: ['<|python_end|>', '<|eom|>', '<|eot|>'],
  endAtValue: true,
  firstChar: PYTHONIC_START,
  read: readPythonicBody,
});

/** Granite 3 `<|tool_call|>[…]`, and llama.cpp's Phi-4-mini template `<|tool_call|>{…}<|/tool_call|>`. */
const graniteSite = delimitedSite({ opener: '<|tool_call|>', closers: ['<|/tool_call|>', '<|end_of_text|>'], ...JSON_LIST, read: readJsonBody });

/** Nemotron: `<TOOLCALL>[…]</TOOLCALL>`. */
const nemotronSite = delimitedSite({ opener: '<TOOLCALL>', closers: ['</TOOLCALL>'], ...JSON_LIST, read: readJsonBody });

/** Command R7B: `<|START_ACTION|>[{"tool_name": …, "parameters": …}]<|END_ACTION|>`. */
const commandRSite = delimitedSite({ opener: '<|START_ACTION|>', closers: ['<|END_ACTION|>'], ...JSON_LIST, read: readJsonBody });

/** Phi-4-mini (vLLM's `phi4_mini_json`): `functools[{"name": …, "arguments": …}]` at the start of a line. */
const functoolsSite = delimitedSite({ opener: 'functools', bodyStarts: '[', closers: [], lineStartOnly: true, ...JSON_LIST, read: readJsonBody });

/** InternLM2: `<|action_start|><|plugin|>{"name": …, "parameters": …}<|action_end|>`. */
const internLmSite = delimitedSite({ opener: '<|action_start|><|plugin|>', closers: ['<|action_end|>'], ...JSON_LIST, read: readJsonBody });

/**
 * Apertus: `<|tools_prefix|>[{"NAME": {…arguments…}}]<|tools_suffix|>` — the name is the key.
 */
const readNameKeyedBody: BodyReader = (body, { context, source, truncated }) => {
  const value = parseLenientJson(body);
  const items = Array.isArray(value) ? value : [value];
  const reading: CallReading = { shaped: false, calls: [], rejected: [] };
  for (const item of items) {
    if (typeof item !== 'object' || item === null || Array.isArray(item)) return unparseable();
    const entries = Object.entries(item as Record<string, unknown>);
    if (entries.length !== 1) return unparseable();
    const [name, args] = entries[0] as [string, unknown];
    const one = readCallParts(name, { present: true, value: args }, { mode: 'markup', shapes: ['named'], names: context.names, source, truncated });
    reading.shaped = true;
    reading.calls.push(...one.calls);
    reading.rejected.push(...one.rejected);
  }
  return reading;
};

const apertusSite = delimitedSite({ opener: '<|tools_prefix|>', closers: ['<|tools_suffix|>'], ...JSON_LIST, read: readNameKeyedBody });

/** OLMo 3: pythonic calls, one per line, between `<function_calls>` and `</function_calls>`. */
const olmoSite = delimitedSite({
  opener: '<function_calls>',
  closers: ['</function_calls>'],
  firstChar: /[[A-Za-z_]/,
  read: (body, options) => {
    const trimmed = body.trim();
    if (trimmed.startsWith('[')) return readPythonicBody(trimmed, options);
    const lines = trimmed.split('\n').filter((line) => line.trim() !== '');
    return readCallList(lines.join(','), options);
  },
});

/** Kimi K2's section of calls. */
const kimiSectionSite = delimitedSite({ opener: KIMI_SECTION_OPEN, closers: [KIMI_SECTION_CLOSE], quotes: ['"'], read: readKimiBody });

/** One Kimi call with the section markers left out. */
const kimiCallSite = delimitedSite({ opener: KIMI_CALL_OPEN, closers: [KIMI_CALL_CLOSE], quotes: ['"'], read: readKimiBody });

/** DeepSeek's section of calls, in every spelling of its markers. */
const deepSeekSites: CallSite[] = [
  ...DS_CALLS_OPEN.map((opener) => delimitedSite({ opener, closers: DS_CALLS_CLOSE, quotes: ['"'], read: readDeepSeekBody })),
  ...DS_CALL_OPEN.map((opener) =>
    delimitedSite({
      opener,
      closers: [...DS_CALL_CLOSE, ...DS_CALLS_CLOSE],
      quotes: ['"'],
      read: (body, o) => readDeepSeekBody(`<｜tool▁call▁begin｜>${body}`, o),
    }),
  ),
];

/** Every marker that only closes one of these blocks: left over, it is removed like any stray markup. */
export const DELIMITED_CLOSERS: readonly string[] = [
  '<end_function_call>',
  '<start_function_response>',
  '<tool_call|>',
  '<|tool_call_end|>',
  '<|python_end|>',
  '<|/tool_call|>',
  '</TOOLCALL>',
  '<|END_ACTION|>',
  KIMI_SECTION_CLOSE,
  ...DS_CALLS_CLOSE.filter((m) => !m.includes('end▁of') && !m.includes('end_of') && !m.includes('end of')),
  ...DS_CALL_CLOSE,
  ...DS_SEP,
];

/** Format: calls between a family's own markers. */
export const delimitedFormat: ToolCallFormat = {
  id: 'delimited',
  innerMarkers: [...GEMMA_DELIMITERS, KIMI_ARGS, '<|eom|>', '<|eot|>'],
  description:
    "Calls between a family's own markers: FunctionGemma <start_function_call>, Gemma 4 <|tool_call>, LFM2 <|tool_call_start|>, Llama 4 <|python_start|>, Granite <|tool_call|>, Nemotron <TOOLCALL>, Command R <|START_ACTION|>, Phi-4-mini functools[…], Kimi <|tool_calls_section_begin|>, DeepSeek <｜tool▁calls▁begin｜>",
  sites: [
    functionGemmaSite,
    gemma4Site,
    lfm2Site,
    llama4Site,
    graniteSite,
    nemotronSite,
    commandRSite,
    functoolsSite,
    internLmSite,
    apertusSite,
    olmoSite,
    kimiSectionSite,
    kimiCallSite,
    ...deepSeekSites,
  ],
};

interface PythonicMemo {
  readonly scanner: BodyScanner;
  end: number;
}

/**
 * A bare pythonic list standing on its own line: `[get_weather(city="Paris"), get_time(tz="UTC")]`
 * (Llama 3.2's pythonic tool format, and what Gemma 3 is told to write). Strict, because nothing
 * but the text says "call": it must open a line, every element must be `name(key=value, …)` with
 * keyword arguments only, and nothing but spaces may follow the list on its line. Otherwise it is
 * text, shown as written.
 */
export const pythonicBareSite: CallSite = {
  opener: '[',
  lineStartOnly: true,
  scan(text, at, context) {
    let memo = memoLookup<PythonicMemo>(context, 'pythonic');
    if (memo === undefined) {
      let k = skipSpace(text, at + 1);
      const nameStart = k;
      while (k < text.length && k - nameStart <= MAX_CALL_NAME && isCallNameChar(text.charCodeAt(k))) k++;
      if (k - nameStart > MAX_CALL_NAME) return NONE;
      if (k >= text.length) {
        if (context.final) return NONE;
        // Hold a half-written name only while it may still become a registered tool's.
        const prefix = text.slice(nameStart, k);
        return context.names === undefined || prefix === '' || context.names.couldBe(prefix) ? MORE_MARKER : NONE;
      }
      if (k === nameStart || !isLetter(text.charCodeAt(nameStart))) return NONE;
      // The same test as for a half-written name, so a stream and the parser decide alike.
      if (context.names !== undefined && !context.names.couldBe(text.slice(nameStart, k))) return NONE;
      const paren = skipSpace(text, k);
      if (paren >= text.length) return context.final ? NONE : MORE_MARKER;
      if (text.charCodeAt(paren) !== 40) return NONE;
      memo = memoEntry<PythonicMemo>(context, 'pythonic', () => ({ scanner: new BodyScanner(at, { closers: [], endAtValue: true }), end: -1 }));
    }
    const status = memo.scanner.feed(text, context.final);
    if (!status.done) return { kind: 'more', phase: 'candidate' };
    // The list must end its line.
    let e = status.bodyEnd;
    while (e < text.length && (text.charCodeAt(e) === 32 || text.charCodeAt(e) === 9 || text.charCodeAt(e) === 13)) e++;
    if (e >= text.length && !context.final) return { kind: 'more', phase: 'candidate' };
    if (e < text.length && text.charCodeAt(e) !== 10) return { kind: 'verbatim', from: status.bodyEnd };
    memo.end = status.bodyEnd;
    return { kind: 'block', end: status.bodyEnd };
  },
  read(text, at, end, context): BlockReading {
    const source = text.slice(at, end);
    const body = source.trim();
    if (!body.endsWith(']')) return NOT_CLAIMED_READING;
    const reading = readCallList(body.slice(1, -1), { context, source, truncated: false });
    if (!reading.shaped) return NOT_CLAIMED_READING;
    return { claimed: true, calls: reading.calls, rejected: reading.rejected };
  },
};

const NOT_CLAIMED_READING: BlockReading = { claimed: false, calls: [], rejected: [] };

/** A pythonic call's name is at most this long (a longer run of letters after `[` is a word, not a call). */
const MAX_CALL_NAME = 64;

function isLetter(c: number): boolean {
  return (c >= 65 && c <= 90) || (c >= 97 && c <= 122) || c === 95;
}

function isCallNameChar(c: number): boolean {
  return isLetter(c) || (c >= 48 && c <= 57) || c === 46;
}
