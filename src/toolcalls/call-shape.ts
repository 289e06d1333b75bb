import type { JsonValueSpan } from './json-scan.ts';
import { isPlainObject, parseLenientJson } from './lenient-json.ts';
import { NOT_CLAIMED, type BlockReading } from './site.ts';
import type { ToolNames } from './tool-names.ts';
import type { RejectedCall, RejectReason, ToolCall } from './types.ts';

/**
 * What decides whether a decoded JSON value is a tool call — the part of parsing that must be
 * strict, because inventing a call from data or from a prompt's example runs a real handler.
 *
 * Two modes, by where the value was found:
 *
 * - `markup`: inside explicit call markup (`<tool_call>`, `[TOOL_CALLS]`, `<|python_tag|>`, a
 *   ```` ```tool_call ```` fence). The model said "this is a call", so extra keys are ignored
 *   and missing arguments mean `{}`. Whatever fails is reported in `rejected`; the markup
 *   leaves the text either way.
 * - `bare`: JSON standing in the prose, or in a plain ```` ```json ```` fence. Here it is only a
 *   call when it is unmistakably one: every top-level key belongs to a call shape (see
 *   {@link BARE_CALL_KEYS}), the name looks like an identifier and is not template filler,
 *   and arguments/parameters are present as an object or a string holding one. Anything else
 *   is data and stays in the text untouched. A value that passes all that but names an
 *   unregistered tool, or was cut off mid-string, is a failed call: it leaves the text and
 *   is reported in `rejected`.
 */
export type CallMode = 'markup' | 'bare';

/**
 * Object shapes a reader accepts.
 * - `named`: `{"name": …, "arguments" | "parameters": …}` (Hermes, Qwen, Llama, Mistral).
 * - `openai`: `{"function": {"name", "arguments"}}`, optionally with `"type": "function"` and
 *   an `id`, and the `{"tool_calls": [...]}` wrapper around a list of those.
 */
export type CallShape = 'named' | 'openai';

/** Options of {@link readCallValue}. */
export interface CallReadOptions {
  /** Where the value was found: explicit markup or standing bare. */
  readonly mode: CallMode;
  /** Object shapes to accept. */
  readonly shapes: readonly CallShape[];
  /** Registered tools, when given. */
  readonly names: ToolNames | undefined;
  /** The raw block, markup included, quoted in rejections. */
  readonly source: string;
  /** The text stopped inside a string: any call read from it would carry a fragment. */
  readonly truncated?: boolean;
}

/** What {@link readCallValue} found. */
export interface CallReading {
  /** The value is a call (or a list of calls) under its mode's rules, whether or not each one stands. */
  shaped: boolean;
  /** The calls that stand. */
  calls: ToolCall[];
  /** The call attempts that do not, with the reason. */
  rejected: RejectedCall[];
}

// `tool_name`/`tool_call_id`: Command R's action lists.
const NAMED_KEYS: ReadonlySet<string> = new Set(['name', 'arguments', 'parameters', 'type', 'id', 'call_id', 'tool_name', 'tool_call_id']);
const ENVELOPE_KEYS: ReadonlySet<string> = new Set(['function', 'type', 'id', 'call_id', 'index']);
const FUNCTION_KEYS: ReadonlySet<string> = new Set(['name', 'arguments', 'parameters']);
// `function_call`: the legacy OpenAI shape, `{"function_call": {"name", "arguments"}}`.
const WRAPPER_KEYS: ReadonlySet<string> = new Set(['tool_calls', 'function_call', 'role', 'content']);

/**
 * Every key a bare call object may have at its top level, across all shapes. The scanner uses
 * it to give up on a data object at its first foreign key instead of holding it to the end.
 */
export const BARE_CALL_KEYS: ReadonlySet<string> = new Set([...NAMED_KEYS, ...ENVELOPE_KEYS, ...WRAPPER_KEYS]);

/** Tool names as templates and tutorials spell "put the name here". Compared folded: lower case, letters and digits only. */
const PLACEHOLDER_WORDS: ReadonlySet<string> = new Set([
  'name',
  'function',
  'functionname',
  'functionnamehere',
  'func',
  'funcname',
  'fn',
  'fnname',
  'tool',
  'toolname',
  'toolnamehere',
  'toolcall',
  'toolcallname',
  'functioncall',
  'yourfunctionname',
  'yourtoolname',
  'myfunction',
  'myfunc',
  'mytool',
  'examplefunction',
  'exampletool',
  'nameofthefunction',
  'nameofthetool',
  'methodname',
  'actionname',
  'string',
  'value',
  'example',
]);

/** Looks like a function identifier: letters, digits, `_`, `.` and `-`, starting with a letter or `_`. */
const IDENTIFIER = /^[A-Za-z_][\w.-]{0,127}$/;

const SCHEMA_KEYS: ReadonlySet<string> = new Set(['type', 'properties', 'required', 'additionalProperties', 'description', 'title', '$schema']);

/** Reasons that, for bare JSON, mean "this is data" rather than "this is a failed call". */
const DATA_REASONS: ReadonlySet<RejectReason> = new Set<RejectReason>(['invalid-name', 'placeholder', 'invalid-arguments', 'tool-definition']);

type Outcome = { call: ToolCall } | { rejected: RejectedCall };

/**
 * Read the calls in a decoded JSON value: one call object, or an array of them.
 *
 * In `bare` mode an array counts only when every element is call-shaped, so a list of records
 * that happens to contain one call-like entry stays data.
 */
export function readCallValue(value: unknown, options: CallReadOptions): CallReading {
  const items: unknown[] = Array.isArray(value) ? value : [value];
  const outcomes: Outcome[] = [];
  for (const item of items) {
    const read = readCallObject(item, options, options.shapes);
    if (read === null) {
      if (options.mode === 'bare') return { shaped: false, calls: [], rejected: [] };
      continue;
    }
    outcomes.push(...read);
  }
  const reading: CallReading = { shaped: outcomes.length > 0, calls: [], rejected: [] };
  for (const outcome of outcomes) {
    if ('call' in outcome) reading.calls.push(outcome.call);
    else reading.rejected.push(outcome.rejected);
  }
  return reading;
}

/**
 * The calls in JSON values laid one after another in a block (several calls in one fence or
 * tag). In `bare` mode the block is a call only when every value is one; in `markup` mode a
 * value that is not call-shaped is reported as unparseable and the block still leaves the text.
 */
export function readCallSpans(text: string, spans: readonly JsonValueSpan[], options: Omit<CallReadOptions, 'truncated'>): BlockReading {
  const calls: ToolCall[] = [];
  const rejected: RejectedCall[] = [];
  for (const span of spans) {
    const reading = readCallValue(parseLenientJson(text.slice(span.start, span.end)), { ...options, truncated: !span.closed && span.inString });
    if (!reading.shaped) {
      if (options.mode === 'bare') return NOT_CLAIMED;
      rejected.push({ name: null, reason: 'unparseable', source: options.source });
      continue;
    }
    calls.push(...reading.calls);
    rejected.push(...reading.rejected);
  }
  return { claimed: true, calls, rejected };
}

/**
 * Build a call from a name and arguments found separately (Mistral's `name[ARGS]{…}`, XML
 * `<function=name>`, `name(key=value)`), under the same rules as a JSON call in markup.
 */
export function readCallParts(name: unknown, args: { present: boolean; value?: unknown }, options: CallReadOptions): CallReading {
  const read = fromParts(name, args, options);
  const reading: CallReading = { shaped: read !== null, calls: [], rejected: [] };
  for (const outcome of read ?? []) {
    if ('call' in outcome) reading.calls.push(outcome.call);
    else reading.rejected.push(outcome.rejected);
  }
  return reading;
}

/**
 * True for names copied from a prompt's template rather than chosen: `function_name`,
 * `<function-name>`, `NAME`, `tool_name`, `...`, `{tool}`. Checked only for names that are not
 * registered, so a tool that really is called `example` still works.
 */
export function isPlaceholderName(name: string): boolean {
  if (/^[<{[(][\s\S]*[>}\])]$/.test(name)) return true;
  if (name.includes('...') || name.includes('\u2026')) return true;
  const folded = name
    .toLowerCase()
    .replace(/[^a-z0-9]/g, '')
    .replace(/\d+$/, '');
  return folded === '' || PLACEHOLDER_WORDS.has(folded);
}

function readCallObject(item: unknown, options: CallReadOptions, shapes: readonly CallShape[]): Outcome[] | null {
  if (!isPlainObject(item)) return null;
  const bare = options.mode === 'bare';
  if (shapes.includes('openai')) {
    if ('tool_calls' in item) {
      const list = item.tool_calls;
      if (!Array.isArray(list) || list.length === 0) return null;
      if (bare && !keysWithin(item, WRAPPER_KEYS)) return null;
      const outcomes: Outcome[] = [];
      for (const element of list) {
        const read = readCallObject(element, options, ['named', 'openai']);
        if (read === null) {
          if (bare) return null;
          continue;
        }
        outcomes.push(...read);
      }
      return outcomes.length > 0 ? outcomes : null;
    }
    const legacy = item.function_call;
    if (isPlainObject(legacy) && !('tool_calls' in item)) {
      if (bare && (!keysWithin(item, WRAPPER_KEYS) || !keysWithin(legacy, FUNCTION_KEYS))) return null;
      return fromParts(legacy.name, argumentsOf(legacy), options);
    }
    const fn = item.function;
    if (isPlainObject(fn)) {
      if (bare && (!keysWithin(item, ENVELOPE_KEYS) || !keysWithin(fn, FUNCTION_KEYS))) return null;
      if (bare && 'type' in item && item.type !== 'function') return null;
      return fromParts(fn.name, argumentsOf(fn), options);
    }
  }
  if (shapes.includes('named') && ('name' in item || 'tool_name' in item)) {
    if (bare && !keysWithin(item, NAMED_KEYS)) return null;
    if (bare && 'type' in item && item.type !== 'function') return null;
    return fromParts('name' in item ? item.name : item.tool_name, argumentsOf(item), options);
  }
  return null;
}

function argumentsOf(object: Record<string, unknown>): { present: boolean; value?: unknown } {
  if ('arguments' in object) return { present: true, value: object.arguments };
  if ('parameters' in object) return { present: true, value: object.parameters };
  return { present: false };
}

function fromParts(rawName: unknown, args: { present: boolean; value?: unknown }, options: CallReadOptions): Outcome[] | null {
  const bare = options.mode === 'bare';
  const fail = (reason: RejectReason, name: string | null): Outcome[] | null =>
    bare && DATA_REASONS.has(reason) ? null : [{ rejected: { name, reason, source: options.source } }];

  if (typeof rawName !== 'string') return fail('invalid-name', null);
  const name = rawName.trim();
  const registered = options.names?.resolve(name);
  if (registered === undefined) {
    if (isPlaceholderName(name)) return fail('placeholder', name);
    if (!IDENTIFIER.test(name)) return fail('invalid-name', name);
  }

  const decoded = decodeArguments(args, options.mode);
  if (typeof decoded === 'string') return fail(decoded, name);
  // A documentation example ("city": "<city>", "...") shows the syntax; it asks for nothing.
  if (hasPlaceholderValues(decoded)) return fail('placeholder', name);
  if (options.truncated) return fail('truncated', name);
  if (options.names !== undefined && registered === undefined) return fail('unregistered', name);
  return [{ call: { name: registered ?? name, arguments: decoded } }];
}

/** The arguments object, or the reason there is none. */
function decodeArguments(args: { present: boolean; value?: unknown }, mode: CallMode): Record<string, unknown> | RejectReason {
  let value = args.value;
  if (!args.present || value === null || value === undefined) return mode === 'markup' ? {} : 'invalid-arguments';
  // Quantized models often double-encode ("arguments": "{\"city\": \"Paris\"}"), now and
  // then twice over.
  for (let depth = 0; depth < 2 && typeof value === 'string'; depth++) {
    if (value.trim() === '') return {};
    value = parseLenientJson(value);
  }
  if (!isPlainObject(value)) return 'invalid-arguments';
  if (looksLikeSchema(value)) return 'tool-definition';
  return value;
}

/** Type names a template writes where a value goes (`"city": "string"`). */
const TYPE_WORDS: ReadonlySet<string> = new Set(['string', 'str', 'number', 'integer', 'int', 'float', 'boolean', 'bool', 'object', 'array']);

/**
 * True for argument values that are template filler rather than values: `<city>`, `<city name>`,
 * `{city}`, `{{city}}`, `${city}`, `...`, `…`, `your_city_here`, `xxx` — any one of them — or
 * every value a bare type name (`"string"`, `"number"`). A value a user could mean (`"Paris"`,
 * `"<b>bold</b>"`, `"a {b} c"`) is not filler.
 */
export function hasPlaceholderValues(args: Record<string, unknown>): boolean {
  const values = Object.values(args);
  if (values.length === 0) return false;
  let typeWords = 0;
  for (const value of values) {
    if (typeof value !== 'string') continue;
    const v = value.trim();
    if (isFillerValue(v)) return true;
    if (TYPE_WORDS.has(v.toLowerCase())) typeWords++;
  }
  return typeWords === values.length;
}

function isFillerValue(v: string): boolean {
  if (v === '...' || v === '…' || v === '<>' || v === '{}') return true;
  if (/^<[A-Za-z_][\w -]{0,40}>$/.test(v) && !/^<(b|i|u|em|strong|br|p|div|span|code|pre|a|li|ul|ol)>$/i.test(v)) return true;
  if (/^\$?\{{1,2}[A-Za-z_][\w .-]{0,40}\}{1,2}$/.test(v)) return true;
  if (/^(your|the|some)[_ -][\w -]{1,40}[_ -]here$/i.test(v) || /^x{3,}$/i.test(v)) return true;
  // `YOUR_CITY`, `CITY_NAME_HERE`, `[city name]`: spelt as filler.
  if (/^[A-Z0-9_]+$/.test(v) && /(^|_)(YOUR|HERE|PLACEHOLDER|EXAMPLE)(_|$)/.test(v)) return true;
  if (/^\[[a-z][a-z _-]{0,40}\]$/.test(v)) return true;
  return false;
}

/** A JSON schema where arguments should be: the model echoed a tool definition instead of calling it. */
function looksLikeSchema(args: Record<string, unknown>): boolean {
  return args.type === 'object' && isPlainObject(args.properties) && Object.keys(args).every((key) => SCHEMA_KEYS.has(key));
}

function keysWithin(object: Record<string, unknown>, allowed: ReadonlySet<string>): boolean {
  for (const key of Object.keys(object)) if (!allowed.has(key)) return false;
  return true;
}
