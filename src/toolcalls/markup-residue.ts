import { readCallParts } from './call-shape.ts';
import { memoEntry } from './memo.ts';
import { parseCallExpression } from './parse-call-expression.ts';
import { TOOL_CALL_CLOSE, TOOL_CALL_OPEN } from './parse-hermes.ts';
import { DELIMITED_CLOSERS } from './parse-delimited.ts';
import { HARMONY_RESIDUE } from './parse-harmony.ts';
import { TAGGED_CLOSERS } from './parse-tagged-json.ts';
import { MORE_BLOCK, NONE, findFirst, skipSpace, type BlockReading, type CallSite, type SiteScan, type ToolCallFormat } from './site.ts';

const ENDS = [TOOL_CALL_CLOSE, TOOL_CALL_OPEN, '\n\n'];

/**
 * `<tool_call>` blocks that neither the JSON nor the XML reader recognised — `<tool_call>` at
 * the very end of the output, `<tool_call>get_weather(city="Paris")</tool_call>`, garbage — and
 * stray `</tool_call>` tags. The tags must never reach the reader, whatever is between them.
 * A call expression inside is still read; anything else is reported as unparseable.
 *
 * Such a block ends at `</tool_call>`, before the next `<tool_call>`, or before a blank line:
 * a bare mention of the tag in prose ("I wrap calls in <tool_call> tags") costs that paragraph,
 * not the rest of the answer.
 */
export const toolCallResidueSite: CallSite = {
  opener: TOOL_CALL_OPEN,
  scan(text, at, context) {
    const memo = memoEntry(context, 'residue', () => ({ resume: at + TOOL_CALL_OPEN.length }));
    const hit = findFirst(text, memo.resume, ENDS);
    if (hit.index < 0) {
      if (context.final) return { kind: 'block', end: text.length };
      memo.resume = Math.max(memo.resume, text.length - (TOOL_CALL_CLOSE.length - 1));
      return MORE_BLOCK;
    }
    return { kind: 'block', end: hit.literal === TOOL_CALL_CLOSE ? hit.index + TOOL_CALL_CLOSE.length : hit.index };
  },
  read(text, at, end, context): BlockReading {
    const source = text.slice(at, end);
    let content = source.slice(TOOL_CALL_OPEN.length);
    if (content.endsWith(TOOL_CALL_CLOSE)) content = content.slice(0, -TOOL_CALL_CLOSE.length);
    if (content.trim() === '') return { claimed: true, calls: [], rejected: [] };
    const expression = parseCallExpression(content);
    if (expression === undefined) return { claimed: true, calls: [], rejected: [{ name: null, reason: 'unparseable', source }] };
    const reading = readCallParts(
      expression.name,
      { present: true, value: expression.arguments },
      { mode: 'markup', shapes: ['named'], names: context.names, source },
    );
    return { claimed: true, calls: reading.calls, rejected: reading.rejected };
  },
};

/** A `</tool_call>` with no block around it: the model closed a tag it never opened, or wrote prose inside one. */
const strayCloseSite: CallSite = {
  opener: TOOL_CALL_CLOSE,
  scan(_text, at) {
    return { kind: 'block', end: at + TOOL_CALL_CLOSE.length };
  },
  read() {
    return { claimed: true, calls: [], rejected: [] };
  },
};

/**
 * Control tokens of the families this parser reads that carry nothing by themselves: closing
 * markers left over after a call, end-of-turn tokens decoded with the text. None is ever meant
 * for the reader.
 */
const STRAY_MARKERS: readonly string[] = [
  ...DELIMITED_CLOSERS,
  ...HARMONY_RESIDUE,
  ...TAGGED_CLOSERS,
  '</seed:tool_call>',
  '<|action_end|>',
  '<|tools_suffix|>',
  '</function_calls>',
  '</function>',
  '</invoke>',
  '</minimax:tool_call>',
  '<|im_end|>',
  '<|eot_id|>',
  '<|eom_id|>',
  '<|end_of_text|>',
  '<|endoftext|>',
  '<end_of_turn>',
  '<turn|>',
  '<channel|>',
  '<|END_THINKING|>',
  '<|START_RESPONSE|>',
  '<|END_RESPONSE|>',
];

/** One site per stray marker: the marker alone leaves the text. */
const strayMarkerSites: readonly CallSite[] = [...new Set(STRAY_MARKERS)].map((marker) => ({
  opener: marker,
  scan(_text: string, at: number) {
    return { kind: 'block', end: at + marker.length } as const;
  },
  read() {
    return { claimed: true, calls: [], rejected: [] };
  },
}));

/**
 * The header of a user's (or a system) turn: a model that wrote on past its end of turn writes the user's
 * next message itself. The answer ended before it; the rest is never the reader's. An assistant header is
 * not one of these (a rendered conversation has them before its calls), nor Harmony's `<|start|>`.
 */
const NEW_TURN_MARKERS: readonly string[] = [
  '<|im_start|>user',
  '<|im_start|>system',
  '<|start_header_id|>user',
  '<|start_header_id|>system',
  '<start_of_turn>user',
];

/** One site per new-turn header: it and everything after it leave the text (held while the output streams). */
const newTurnSites: readonly CallSite[] = NEW_TURN_MARKERS.map((marker) => ({
  opener: marker,
  scan(text: string, _at: number, context) {
    return context.final ? ({ kind: 'block', end: text.length } as const) : MORE_BLOCK;
  },
  read() {
    return { claimed: true, calls: [], rejected: [] };
  },
}));

/** Characters a small model repeats after a call's JSON: closing quotes, braces, brackets. */
const CLOSERS = new Set(['"', '}', ']']);

/**
 * Closing punctuation right after a call — `{"name": "get_weather", "arguments": {…}}"}}`, a
 * model closing the JSON once more than it opened — is debris of that call, not prose. Only
 * directly after a call (nothing shown in between), and only a run of `"`, `}` and `]` that ends
 * the line or the output, or is followed by a space: `"quoted words` after a call stays prose.
 */
const callDebrisSites: readonly CallSite[] = [...CLOSERS].map((opener) => ({
  opener,
  scan(text: string, at: number, context) {
    if (context.afterCall !== true) return NONE;
    let k = at;
    while (k < text.length && CLOSERS.has(text[k] ?? '')) k++;
    if (k >= text.length) return context.final ? { kind: 'block', end: k } : { kind: 'more', phase: 'marker' };
    return /\s/.test(text[k] ?? '') ? { kind: 'block', end: k } : NONE;
  },
  read() {
    return { claimed: true, calls: [], rejected: [] };
  },
}));

/** Characters that structure a call's JSON; the runs between them are names, keys and values. */
const JSON_PUNCTUATION = new Set(['"', '{', '}', '[', ']', ':', ',']);
/** A call tail's longest run between punctuation, and the most spaces in one: past either, it is prose. */
const TAIL_RUN_LONGEST = 24;
const TAIL_RUN_SPACES = 2;
/** A call tail is one line of a call; past this many characters it is not one. */
const TAIL_LONGEST = 400;

/**
 * What the output's first line says so far about being the end of a call whose start the model
 * never wrote (a generation that began inside a call: `get_weather", "arguments": {"city":
 * "Paris"}}`, `"}}`): `no` as soon as a stretch reads as prose (a space before any quote, a word
 * that is not closed by a quote), `yes` once the line ends with
 * more braces closed than opened, `maybe` while it may still become one.
 */
function readCallTail(line: string, complete: boolean): 'yes' | 'no' | 'maybe' {
  const first = line.charCodeAt(0);
  // An object or array at the start is the JSON sites' to read or release, whole.
  if (first === 123 || first === 91 || line.length > TAIL_LONGEST) return 'no';
  let punctuated = false;
  let run = 0;
  let spaces = 0;
  let opened = 0;
  let closed = 0;
  for (const ch of line) {
    if (JSON_PUNCTUATION.has(ch)) {
      // A tail's first word is the rest of a name or a value, closed by its quote: `Paris"}}`.
      if (!punctuated && run > 0 && ch !== '"') return 'no';
      punctuated = true;
      run = 0;
      spaces = 0;
      if (ch === '{') opened++;
      else if (ch === '}') closed++;
      continue;
    }
    run++;
    if (ch === ' ') spaces++;
    // Words before any punctuation are prose; so is a long or many-worded stretch anywhere.
    if ((!punctuated && spaces > 0) || run > TAIL_RUN_LONGEST || spaces > TAIL_RUN_SPACES) return 'no';
  }
  if (!complete) return 'maybe';
  const trimmed = line.trimEnd();
  return trimmed.endsWith('}') && closed > opened && trimmed.includes('"') ? 'yes' : 'no';
}

/**
 * The end of a call at the very start of the output, with nothing before it: the model began
 * inside a call (its context ended in one, or it echoed one). It is call debris, not an answer,
 * and leaves the text; a `</tool_call>` after it goes as a stray closer. Only the first line is
 * looked at, and only while it reads like JSON: an answer's first word is held until the space
 * after it, nothing longer.
 */
const orphanCallTailSite: CallSite = {
  opener: '',
  outputStartOnly: true,
  scan(text, at, context): SiteScan {
    const start = skipSpace(text, at);
    let end = start;
    while (end < text.length && end - start <= TAIL_LONGEST && text.charCodeAt(end) !== 10 && text.charCodeAt(end) !== 60) end++;
    const complete = end < text.length || context.final;
    if (start === end && !complete) return { kind: 'more', phase: 'marker' };
    const tail = readCallTail(text.slice(start, end), complete);
    if (tail === 'maybe') return { kind: 'more', phase: 'marker' };
    return tail === 'yes' ? { kind: 'block', end } : NONE;
  },
  read(text, at, end) {
    return { claimed: true, calls: [], rejected: [{ name: null, reason: 'unparseable', source: text.slice(at, end).trim() }] };
  },
};

/** Last in the list: call markup that yields no call is still markup, and leaves the text. */
export const markupResidueFormat: ToolCallFormat = {
  id: 'markup-residue',
  description:
    "Unreadable <tool_call> blocks, stray </tool_call> tags, closing debris right after a call, the tail of a call the output began inside, and other families' leftover control tokens, removed from the text",
  sites: [toolCallResidueSite, strayCloseSite, ...strayMarkerSites, ...newTurnSites, ...callDebrisSites, orphanCallTailSite],
};
