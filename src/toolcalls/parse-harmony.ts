import { readCallParts } from './call-shape.ts';
import { JsonSpanScanner } from './json-scan.ts';
import { parseLenientJson } from './lenient-json.ts';
import { memoEntry, memoLookup } from './memo.ts';
import { MORE_BLOCK, NONE, isNameChar, type BlockReading, type CallSite, type SiteContext, type SiteScan, type ToolCallFormat } from './site.ts';

const START = '<|start|>';
const CHANNEL = '<|channel|>';
const MESSAGE = '<|message|>';
const CONSTRAIN = '<|constrain|>';
const CALL = '<|call|>';
const END_TOKENS = ['<|end|>', '<|return|>'];
const RECIPIENT = 'to=';
const MEMO = 'harmony';
/** A header longer than this without `<|message|>` is not one. */
const MAX_HEADER = 300;

interface HarmonyMemo {
  recipient: string | undefined;
  /** Where the message body starts. */
  messageStart: number;
  scanner: JsonSpanScanner | undefined;
}

/**
 * The message header of GPT-OSS's Harmony format, from `from` to just past `<|message|>`:
 * an optional role (`assistant`), ` to=functions.NAME` (before or after the channel),
 * `<|channel|>NAME`, and ` <|constrain|>json` or ` json`.
 */
function readHeader(text: string, from: number, final: boolean): { recipient: string | undefined; messageStart: number } | 'more' | 'header-only' {
  const limit = Math.min(text.length, from + MAX_HEADER);
  const window = text.slice(from, limit);
  const found = window.indexOf(MESSAGE);
  const nextStart = window.indexOf(START);
  // Another message beginning first means this header stood alone (a leftover role line); so does
  // a header that runs past its bound. Both are decided by the text up to there, whatever follows.
  if (nextStart >= 0 && (found < 0 || nextStart < found)) return 'header-only';
  if (found < 0) return final || text.length - from >= MAX_HEADER ? 'header-only' : 'more';
  const message = from + found;
  const header = text.slice(from, message);
  let recipient: string | undefined;
  const to = header.indexOf(RECIPIENT);
  if (to >= 0) {
    let k = to + RECIPIENT.length;
    const start = k;
    while (k < header.length && isNameChar(header.charCodeAt(k))) k++;
    const target = header.slice(start, k);
    recipient = target.startsWith('functions.') ? target.slice('functions.'.length) : target;
  }
  return { recipient, messageStart: message + MESSAGE.length };
}

/**
 * Scan a Harmony header at `from`; with a recipient, the JSON arguments up to `<|call|>` belong to
 * the block. The block never ends before `minEnd` (the opener), so the walk always moves on.
 */
function scanHarmony(text: string, from: number, context: SiteContext, minEnd: number): SiteScan {
  const scan = scanHarmonyHeader(text, from, context);
  return scan.kind === 'block' && scan.end < minEnd ? { kind: 'block', end: minEnd } : scan;
}

function scanHarmonyHeader(text: string, from: number, context: SiteContext): SiteScan {
  let memo = memoLookup<HarmonyMemo>(context, MEMO);
  if (memo === undefined) {
    const header = readHeader(text, from, context.final);
    if (header === 'more') return MORE_BLOCK;
    if (header === 'header-only') {
      const nextStart = text.slice(from, from + MAX_HEADER).indexOf(START);
      return { kind: 'block', end: nextStart >= 0 ? from + nextStart : endOfRole(text, from) };
    }
    const { recipient, messageStart } = header;
    memo = memoEntry<HarmonyMemo>(context, MEMO, () => ({
      recipient,
      messageStart,
      scanner: recipient === undefined ? undefined : new JsonSpanScanner(messageStart, { stopAt: [CALL, START, ...END_TOKENS] }),
    }));
  }
  if (memo.scanner === undefined) return { kind: 'block', end: memo.messageStart };
  const status = memo.scanner.feed(text, text.length, context.final);
  if (status === 'open') return context.final ? { kind: 'block', end: text.length } : MORE_BLOCK;
  let end = memo.scanner.end;
  while (end < text.length && (text.charCodeAt(end) === 32 || text.charCodeAt(end) === 10)) end++;
  if (text.startsWith(CALL, end)) return { kind: 'block', end: end + CALL.length };
  if (!context.final && (end >= text.length || CALL.startsWith(text.slice(end)))) return MORE_BLOCK;
  return { kind: 'block', end: memo.scanner.end };
}

/** A role name (`assistant`) is at most this long. */
const MAX_ROLE = 32;

/** The end of a bare role word after `<|start|>`; bounded, so the answer never depends on how far the text goes. */
function endOfRole(text: string, from: number): number {
  let k = from;
  while (k < text.length && k - from < MAX_ROLE && isNameChar(text.charCodeAt(k))) k++;
  return k;
}

function readHarmony(text: string, at: number, end: number, context: SiteContext): BlockReading {
  const memo = memoLookup<HarmonyMemo>(context, MEMO);
  const source = text.slice(at, end);
  if (memo === undefined || memo.recipient === undefined || memo.scanner === undefined) return { claimed: true, calls: [], rejected: [] };
  const scanner = memo.scanner;
  const jsonEnd = scanner.status === 'open' ? end : scanner.end;
  const value = parseLenientJson(text.slice(memo.messageStart, jsonEnd));
  const reading = readCallParts(
    memo.recipient,
    { present: true, value: value ?? [] },
    {
      mode: 'markup',
      shapes: ['named'],
      names: context.names,
      source,
      truncated: scanner.status !== 'closed' && scanner.inString,
    },
  );
  return { claimed: true, calls: reading.calls, rejected: reading.rejected };
}

/** `<|start|>assistant…`: a message header, with the call it addresses when it names a recipient. */
const harmonyStartSite: CallSite = {
  opener: START,
  scan: (text, at, context) => scanHarmony(text, at + START.length, context, at + START.length),
  read: readHarmony,
};

/** `<|channel|>commentary to=functions.NAME <|constrain|>json<|message|>{…}<|call|>`, or a header with no recipient. */
const harmonyChannelSite: CallSite = {
  opener: CHANNEL,
  scan: (text, at, context) => scanHarmony(text, at + CHANNEL.length, context, at + CHANNEL.length),
  read: readHarmony,
};

/** ` to=functions.NAME<|channel|>…` at the very start, when the prompt ended with `<|start|>assistant`. */
const harmonyRecipientStartSite: CallSite = {
  opener: '',
  outputStartOnly: true,
  scan(text, at, context) {
    let k = at;
    while (k < text.length && text.charCodeAt(k) === 32) k++;
    const prefix = `${RECIPIENT}functions.`;
    if (k >= text.length || (text.length - k < prefix.length && prefix.startsWith(text.slice(k))))
      return context.final ? NONE : { kind: 'more', phase: 'marker' };
    if (!text.startsWith(prefix, k)) return NONE;
    return scanHarmony(text, k, context, k + prefix.length);
  },
  read: readHarmony,
};

/** The constrain marker, leftover end tokens: Harmony's markup that carries nothing. */
export const HARMONY_RESIDUE: readonly string[] = [CALL, CONSTRAIN, MESSAGE, ...END_TOKENS];

/** Format: GPT-OSS Harmony messages. */
export const harmonyFormat: ToolCallFormat = {
  id: 'harmony',
  description: 'GPT-OSS Harmony: <|channel|>commentary to=functions.NAME <|constrain|>json<|message|>{…}<|call|>',
  sites: [harmonyStartSite, harmonyChannelSite, harmonyRecipientStartSite],
};
