/**
 * A model's call syntax as data: the pieces its chat template writes around a call's name and arguments,
 * learned from the template itself (`template-analysis.ts`), and what follows from them — the call written
 * out, the primed openers, the stepwise argument slot, and a reader for what the model writes. Plain data,
 * so it crosses the worker and prints ("calls written as …").
 */

/** Marks, inside a piece, where the call's id goes. */
export const ID_SLOT = '\uE010';
/** Marks, inside a piece, where the call's position goes, counted from 0. */
export const INDEX0_SLOT = '\uE011';
/** Marks, inside a piece, where the call's position goes, counted from 1. */
export const INDEX1_SLOT = '\uE012';
const SLOTS = [ID_SLOT, INDEX0_SLOT, INDEX1_SLOT];

/** One argument written as its own pair: `before` key `between` value `after`. */
export interface PairSyntax {
  readonly before: string;
  readonly between: string;
  readonly after: string;
}

/** How a call's arguments are written. */
export type ArgumentSyntax =
  /**
   * One JSON object, `spaced` as Python's `json.dumps` (`", "`, `": "`) or `compact`; `ascii` where the
   * template escapes every character past ASCII (`tojson(ensure_ascii=True)`).
   */
  | {
      readonly kind: 'json';
      readonly layout: 'spaced' | 'compact';
      readonly ascii?: boolean;
      /** Written over several lines (`tojson(indent=4)`): spaces per level, and the levels the object starts at. */
      readonly indent?: { readonly width: number; readonly depth: number };
    }
  /**
   * One pair per argument (XML parameters, key/value tags, Gemma's `key:value`): strings as they are,
   * other values as JSON in `layout`, each kind of value in its own pair where the template tells them apart.
   */
  | {
      readonly kind: 'pairs';
      readonly string: PairSyntax;
      readonly other: PairSyntax;
      readonly joiner: string;
      readonly layout: 'spaced' | 'compact';
      /** Keys in the order given, or sorted (templates that walk them with `dictsort`). */
      readonly order: 'given' | 'sorted';
    };

/**
 * How a template writes the calls of one assistant turn:
 * `sectionOpen` (`callOpen` name `nameClose` arguments `callClose`) joined by `joiner`, then `sectionClose`.
 * Pieces may hold {@link ID_SLOT}, {@link INDEX0_SLOT} or {@link INDEX1_SLOT}.
 */
export interface CallSyntax {
  readonly sectionOpen: string;
  readonly callOpen: string;
  /** The name as it is (`raw`), or escaped inside a JSON string (`json`). */
  readonly name: 'raw' | 'json';
  readonly nameClose: string;
  readonly arguments: ArgumentSyntax;
  readonly callClose: string;
  /** Between two calls of one turn; absent where the template writes one call a turn. */
  readonly joiner?: string;
  readonly sectionClose: string;
  /** The ids the template accepts: any text, or nine letters and digits (Mistral's). */
  readonly ids: 'any' | 'alnum9';
}

/** A call to write: its name, arguments and (where the syntax writes one) id. */
export interface SyntaxCall {
  readonly name: string;
  readonly args: Readonly<Record<string, unknown>>;
  readonly id?: string;
}

/** A call read back. */
interface ReadCall {
  readonly name: string;
  readonly arguments: Record<string, unknown>;
}

/** The calls read from a text, and where they stood in it. */
export interface ReadCalls {
  readonly calls: readonly ReadCall[];
  readonly start: number;
  readonly end: number;
}

/** A value as JSON in a layout: `spaced` is Python's `json.dumps` (what `tojson` writes), `compact` JavaScript's. */
export function jsonIn(value: unknown, layout: 'spaced' | 'compact'): string {
  if (layout === 'compact') return JSON.stringify(value) ?? 'null';
  if (value === null || typeof value !== 'object') return JSON.stringify(value) ?? 'null';
  if (Array.isArray(value)) return `[${value.map((v) => jsonIn(v, layout)).join(', ')}]`;
  const entries = Object.entries(value as Record<string, unknown>).filter(([, v]) => v !== undefined);
  return `{${entries.map(([k, v]) => `${JSON.stringify(k)}: ${jsonIn(v, layout)}`).join(', ')}}`;
}

/**
 * JSON text with every character past ASCII written as `\uXXXX`, as Python's `ensure_ascii` writes it, except the
 * loop's own private-use marks (U+E000–U+E005: the guard's placeholders, outside and result marks). Those never
 * reach the model: the guard reads and removes them, so an escaped mark would leave the outside text it closes
 * unguarded (issue 67, M2).
 */
export function asciiOnly(json: string): string {
  return json.replace(/[\u0080-\udfff\ue006-\uffff]/g, (ch) => `\\u${ch.charCodeAt(0).toString(16).padStart(4, '0')}`);
}

/** A nine-character id of letters and digits, the same for the same id (Mistral's templates accept no other). */
export function alnum9(id: string): string {
  if (/^[A-Za-z0-9]{9}$/.test(id)) return id;
  let hash = 0x811c9dc5;
  for (const ch of id) hash = Math.imul(hash ^ (ch.codePointAt(0) ?? 0), 0x01000193) >>> 0;
  const letters = 'abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789';
  let out = '';
  for (let i = 0; i < 9; i++) {
    out += letters[hash % letters.length];
    hash = Math.imul(hash ^ (i + 0x9e37), 0x01000193) >>> 0;
  }
  return out;
}

function fill(piece: string, index: number, id: string): string {
  return piece
    .replaceAll(ID_SLOT, id)
    .replaceAll(INDEX0_SLOT, String(index))
    .replaceAll(INDEX1_SLOT, String(index + 1));
}

function nameIn(syntax: CallSyntax, name: string): string {
  return syntax.name === 'json' ? JSON.stringify(name).slice(1, -1) : name;
}

function pairOf(syntax: Extract<ArgumentSyntax, { kind: 'pairs' }>, key: string, value: unknown): string {
  const pair = typeof value === 'string' ? syntax.string : syntax.other;
  const text = typeof value === 'string' ? value : jsonIn(value, syntax.layout);
  return `${pair.before}${key}${pair.between}${text}${pair.after}`;
}

/** A call's arguments as the syntax writes them. */
export function argumentsIn(syntax: CallSyntax, args: Readonly<Record<string, unknown>>): string {
  const a = syntax.arguments;
  if (a.kind === 'json') return jsonArguments(a, args);
  const entries = Object.entries(args).filter(([, v]) => v !== undefined);
  if (a.order === 'sorted') entries.sort(([x], [y]) => (x < y ? -1 : x > y ? 1 : 0));
  return entries.map(([k, v]) => pairOf(a, k, v)).join(a.joiner);
}

/** Arguments as one JSON object, in the layout, escaping and indentation the template writes. */
function jsonArguments(a: Extract<ArgumentSyntax, { kind: 'json' }>, args: Readonly<Record<string, unknown>>): string {
  const text = a.indent
    ? (JSON.stringify(args, null, a.indent.width) ?? '{}').replaceAll('\n', `\n${' '.repeat(a.indent.width * a.indent.depth)}`)
    : jsonIn(args, a.layout);
  return a.ascii ? asciiOnly(text) : text;
}

/** An id for the call at `index` where the caller gave none, in the shape the syntax accepts. */
function idFor(syntax: CallSyntax, call: SyntaxCall, index: number): string {
  const id = call.id ?? `call_${index + 1}`;
  return syntax.ids === 'alnum9' ? alnum9(id) : id;
}

/** One call, from its `callOpen` to its `callClose`. */
function oneCall(syntax: CallSyntax, call: SyntaxCall, index: number): string {
  const id = idFor(syntax, call, index);
  return (
    fill(syntax.callOpen, index, id) +
    nameIn(syntax, call.name) +
    fill(syntax.nameClose, index, id) +
    argumentsIn(syntax, call.args) +
    fill(syntax.callClose, index, id)
  );
}

/** The calls of one turn, byte for byte as the template writes them (one call a turn where it has no joiner). */
export function writeCalls(syntax: CallSyntax, calls: readonly SyntaxCall[]): string {
  const first = calls[0];
  if (!first) return '';
  const made = syntax.joiner === undefined ? calls.slice(0, 1) : calls;
  const last = made.length - 1;
  const written = made.map((c, i) => oneCall(syntax, c, i));
  return (
    fill(syntax.sectionOpen, 0, idFor(syntax, first, 0)) +
    written.join(syntax.joiner ?? '') +
    fill(syntax.sectionClose, last, idFor(syntax, made[last] ?? first, last))
  );
}

/** What comes before the first call's name: the primed opener. */
export function openerOf(syntax: CallSyntax): string {
  return fill(syntax.sectionOpen + syntax.callOpen, 0, idFor(syntax, { name: '', args: {} }, 0));
}

/** Everything up to the first call's arguments, its name written: the forced opener. */
export function forcedOpenerOf(syntax: CallSyntax, name: string): string {
  const id = idFor(syntax, { name, args: {} }, 0);
  return openerOf(syntax) + nameIn(syntax, name) + fill(syntax.nameClose, 0, id);
}

/** The text that tells a primed generation its call is complete: the first marker after the arguments. */
export function closersOf(syntax: CallSyntax): string[] {
  const marker = (piece: string) =>
    fill(piece, 0, '')
      .replace(/^[\s}\],]+/, '')
      .trimEnd();
  const close = marker(syntax.callClose) || marker(syntax.sectionClose);
  return close ? [close] : [];
}

/** Where the stepwise rung asks for one argument's value inside the call, and what ends the value. */
export function argumentSlotIn(
  syntax: CallSyntax,
  name: string,
  chosen: Readonly<Record<string, unknown>>,
  key: string,
  quoted: boolean,
): { opener: string; stop: string[] } {
  const head = forcedOpenerOf(syntax, name);
  const a = syntax.arguments;
  if (a.kind === 'json') {
    // The object with this key's value still to come: written whole with a stand-in value, cut where it starts.
    const standIn = '\u0000nexus-slot';
    const written = jsonArguments(a, { ...chosen, [key]: standIn });
    const cut = written.indexOf(JSON.stringify(standIn));
    return { opener: `${head}${written.slice(0, cut)}${quoted ? '"' : ''}`, stop: quoted ? ['"'] : a.indent ? [',', '}', '\n'] : [',', '}'] };
  }
  const pair = quoted ? a.string : a.other;
  const done = argumentsIn(syntax, chosen);
  const opener = `${head}${done}${done ? a.joiner : ''}${pair.before}${key}${pair.between}`;
  const firstMarker = (text: string) => text.trim().split('\n')[0] ?? '';
  const stop = [firstMarker(pair.after), firstMarker(a.joiner), firstMarker(fill(syntax.callClose, 0, ''))].filter(Boolean);
  return { opener, stop: [...new Set(stop.length ? stop : ['\n'])] };
}

/** The syntax in one line, for tables, messages and the model panel: `⟨name⟩` and `⟨args⟩` where they go. */
export function describeSyntax(syntax: CallSyntax): string {
  const shown = (piece: string) => piece.replaceAll(ID_SLOT, '⟨id⟩').replaceAll(INDEX0_SLOT, '⟨0⟩').replaceAll(INDEX1_SLOT, '⟨1⟩');
  const a = syntax.arguments;
  const args = a.kind === 'json' ? `{…}` : `${a.string.before}⟨key⟩${a.string.between}⟨value⟩${a.string.after}…`;
  const one = `${shown(syntax.callOpen)}⟨name⟩${shown(syntax.nameClose)}${args}${shown(syntax.callClose)}`;
  return JSON.stringify(`${shown(syntax.sectionOpen)}${one}${syntax.joiner === undefined ? '' : `${syntax.joiner}…`}${shown(syntax.sectionClose)}`).slice(
    1,
    -1,
  );
}

/** Every piece's text outside its slots (the markers a reader must see), non-empty. */
export function literalsOf(syntax: CallSyntax): string[] {
  const a = syntax.arguments;
  const pieces = [syntax.sectionOpen, syntax.callOpen, syntax.nameClose, syntax.callClose, syntax.sectionClose, syntax.joiner ?? ''];
  if (a.kind === 'pairs') pieces.push(a.string.before, a.string.between, a.string.after, a.other.before, a.other.between, a.other.after, a.joiner);
  return pieces.flatMap((p) => p.split(new RegExp(`[${SLOTS.join('')}]`))).filter((p) => p.trim());
}

/**
 * A reader over `text` from `at`, lenient where small models are: whitespace around markers may differ,
 * and a turn may end before its closers.
 */
class Cursor {
  constructor(
    readonly text: string,
    public at: number,
  ) {}

  get done(): boolean {
    return this.text.slice(this.at).trim() === '';
  }

  /** Reads `piece` (its slots as any text up to the next literal); false, cursor unmoved, where it is not there. */
  expect(piece: string, { atEnd = false } = {}): boolean {
    const start = this.at;
    const parts = piece.split(new RegExp(`[${SLOTS.join('')}]`));
    for (let i = 0; i < parts.length; i++) {
      const literal = (parts[i] ?? '').trim();
      if (i > 0) {
        // A slot: any text up to the next literal.
        const next = literal ? this.text.indexOf(literal, this.at) : this.at;
        if (next < 0) return this.reset(start, atEnd);
        this.at = next;
      }
      if (!literal) continue;
      this.skipSpace();
      // Whitespace inside a piece may differ (`</arg_key><arg_value>` for `</arg_key>\n<arg_value>`).
      const loose = new RegExp(literal.split(/\s+/).map(escapeRegExp).join('\\s*'), 'y');
      loose.lastIndex = this.at;
      const match = loose.exec(this.text);
      if (!match) return this.reset(start, atEnd);
      this.at += match[0].length;
    }
    return true;
  }

  /** Text up to the first literal of `piece`, not consuming it; undefined where it never comes. */
  until(piece: string): string | undefined {
    // The piece's first stretch without whitespace: where it begins, however its whitespace is written.
    const literal = (piece.split(new RegExp(`[${SLOTS.join('')}]`)).find((p) => p.trim()) ?? '').trim().split(/\s+/)[0] ?? '';
    if (!literal) return undefined;
    const end = this.text.indexOf(literal, this.at);
    if (end < 0) return undefined;
    const read = this.text.slice(this.at, end);
    this.at = end;
    return read;
  }

  skipSpace(): void {
    while (this.at < this.text.length && /\s/.test(this.text[this.at] ?? '')) this.at++;
  }

  private reset(start: number, atEnd: boolean): boolean {
    this.at = start;
    if (atEnd && this.done) {
      this.at = this.text.length;
      return true;
    }
    return false;
  }
}

function escapeRegExp(text: string): string {
  return text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
}

/** The end of the JSON value starting at `at` (an object or a list), strings and escapes respected; -1 where it never closes. */
export function jsonEnd(text: string, at: number): number {
  let depth = 0;
  let inString = false;
  for (let i = at; i < text.length; i++) {
    const ch = text[i];
    if (inString) {
      if (ch === '\\') i++;
      else if (ch === '"') inString = false;
    } else if (ch === '"') inString = true;
    else if (ch === '{' || ch === '[') depth++;
    else if (ch === '}' || ch === ']') {
      depth--;
      if (depth === 0) return i + 1;
    }
  }
  return -1;
}

function readJsonArguments(cursor: Cursor): Record<string, unknown> | undefined {
  cursor.skipSpace();
  if (cursor.text[cursor.at] !== '{') return undefined;
  const end = jsonEnd(cursor.text, cursor.at);
  if (end < 0) return undefined;
  try {
    const value = JSON.parse(cursor.text.slice(cursor.at, end)) as unknown;
    if (!value || typeof value !== 'object' || Array.isArray(value)) return undefined;
    cursor.at = end;
    return value as Record<string, unknown>;
  } catch {
    return undefined;
  }
}

function pairValue(text: string, asString: boolean): unknown {
  if (asString) return text;
  try {
    return JSON.parse(text) as unknown;
  } catch {
    return text;
  }
}

function readPair(cursor: Cursor, pair: PairSyntax, asString: boolean, next: readonly string[]): [string, unknown] | undefined {
  const start = cursor.at;
  if (!cursor.expect(pair.before)) return undefined;
  const key = cursor.until(pair.between);
  if (key === undefined || !key.trim() || /[\n<>]/.test(key.trim())) {
    cursor.at = start;
    return undefined;
  }
  if (!cursor.expect(pair.between)) {
    cursor.at = start;
    return undefined;
  }
  // A value runs to the pair's own end, or where the pair has none, to what may follow it.
  const ends = [pair.after, ...next].map((p) => p.trim()).filter(Boolean);
  const found = ends.map((e) => cursor.text.indexOf(e, cursor.at)).filter((i) => i >= 0);
  const end = found.length ? Math.min(...found) : cursor.text.length;
  const raw = cursor.text.slice(cursor.at, end);
  const trimmed = pair.between.endsWith('\n') || pair.after.startsWith('\n') ? raw.replace(/^\n/, '').replace(/\n$/, '') : raw;
  cursor.at = end;
  if (pair.after.trim()) cursor.expect(pair.after, { atEnd: true });
  return [key.trim(), pairValue(trimmed, asString)];
}

function readPairArguments(cursor: Cursor, a: Extract<ArgumentSyntax, { kind: 'pairs' }>, close: string): Record<string, unknown> {
  const args: Record<string, unknown> = {};
  const distinct = a.string.between !== a.other.between || a.string.after !== a.other.after || a.string.before !== a.other.before;
  const next = [a.joiner, close];
  for (;;) {
    const pair = (distinct ? readPair(cursor, a.string, true, next) : undefined) ?? readPair(cursor, distinct ? a.other : a.string, false, next);
    if (!pair) break;
    args[pair[0]] = pair[1];
    const before = cursor.at;
    if (!a.joiner.trim() && !a.joiner) continue;
    if (!cursor.expect(a.joiner)) {
      cursor.at = before;
      break;
    }
  }
  return args;
}

function readName(cursor: Cursor, syntax: CallSyntax): string | undefined {
  // The name runs to what follows it: the piece after the name, or where that is empty, the arguments' start.
  const a = syntax.arguments;
  const next = [syntax.nameClose, ...(a.kind === 'json' ? ['{'] : [a.string.before, a.other.before]), syntax.callClose];
  const name = cursor.until(next.find((p) => p.trim()) ?? '');
  if (name === undefined) return undefined;
  const trimmed = name.trim();
  if (!trimmed || trimmed.length > 128 || /[\n<>{}]/.test(trimmed)) return undefined;
  if (syntax.name === 'json') {
    try {
      return JSON.parse(`"${trimmed}"`) as string;
    } catch {
      return trimmed;
    }
  }
  return trimmed;
}

/**
 * The turn's opening as the model may write it: the whole, then from each later marker on (a model may leave
 * out what the template writes before its call section, such as Command R7B's empty thinking markers), each
 * still holding a marker of its own; the longest that appears first wins.
 */
function openings(sectionOpen: string): string[] {
  const starts = [0, ...[...sectionOpen.matchAll(/<[^<>\s]{1,48}>/g)].map((m) => m.index ?? 0).filter((i) => i > 0)];
  return [...new Set(starts.map((i) => sectionOpen.slice(i)))];
}

/**
 * The calls written in `text` in this syntax, read from the first place its opener appears; undefined
 * where none is there or the first one cannot be read (the lenient parser then has its turn).
 */
export function readCalls(syntax: CallSyntax, text: string): ReadCalls | undefined {
  for (const sectionOpen of openings(syntax.sectionOpen)) {
    const read = readFrom({ ...syntax, sectionOpen }, text);
    if (read) return read;
  }
  return undefined;
}

function readFrom(syntax: CallSyntax, text: string): ReadCalls | undefined {
  const lead = (syntax.sectionOpen + syntax.callOpen).split(new RegExp(`[${SLOTS.join('')}]`))[0]?.trim() ?? '';
  if (!lead) return undefined;
  const start = text.indexOf(lead);
  if (start < 0) return undefined;
  const cursor = new Cursor(text, start);
  if (!cursor.expect(syntax.sectionOpen)) return undefined;
  const calls: ReadCall[] = [];
  for (;;) {
    if (!cursor.expect(syntax.callOpen)) break;
    const name = readName(cursor, syntax);
    if (name === undefined || !cursor.expect(syntax.nameClose)) break;
    const args = syntax.arguments.kind === 'json' ? readJsonArguments(cursor) : readPairArguments(cursor, syntax.arguments, syntax.callClose);
    if (!args) break;
    calls.push({ name, arguments: args });
    if (!cursor.expect(syntax.callClose, { atEnd: true })) break;
    const beforeJoin = cursor.at;
    if (syntax.joiner === undefined || !cursor.expect(syntax.joiner)) break;
    const beforeOpen = cursor.at;
    if (!cursor.expect(syntax.callOpen)) {
      cursor.at = beforeJoin;
      break;
    }
    cursor.at = beforeOpen;
  }
  if (!calls.length) return undefined;
  cursor.expect(syntax.sectionClose, { atEnd: true });
  return { calls, start, end: cursor.at };
}
