import { Validator, type OutputUnit, type Schema } from '@cfworker/json-schema';
import { ToolArgumentsError, ToolDefinitionError } from './errors.ts';
import { describeValue, isPlainObject, type ExpandedProperty, type JsonType, type ObjectSchema } from './tool-schema.ts';
import { findProtoKey, setOwn } from '../toolcalls/own-property.ts';

/** What {@link validateArguments} needs to know about a tool. A registered tool satisfies it. */
export interface ArgumentsTarget {
  /** The registered tool name, quoted in the message. */
  readonly name: string;
  /** The expanded `parameters` block (see {@link expandParameters}). */
  readonly parameters: ObjectSchema;
}

/** The outcome of {@link validateArguments}: the cleaned arguments, or one line for the model. */
export type ArgumentsResult = { readonly ok: true; readonly arguments: Record<string, unknown> } | { readonly ok: false; readonly message: string };

/** How many problems one message lists: enough to fix a call in one retry, short enough for a 0.6B model. */
const MAX_PROBLEMS = 3;

/** Keywords that only say "something below me failed"; their children carry the real reason. */
const WRAPPER_KEYWORDS = new Set(['properties', 'items', 'prefixItems', 'additionalItems', 'allOf', '$ref', 'contains']);

/** One compiled validator per schema: schemas are frozen at registration, so identity is a safe key. */
const validators = new WeakMap<ObjectSchema, Validator>();

/**
 * Checks and cleans the arguments a model wrote for a tool, before its handler runs.
 *
 * Small models get types wrong in predictable, harmless ways, so the obvious readings are accepted
 * instead of spending a round on a retry:
 * - `"5"` for a number or integer becomes `5`; `"true"`/`"false"` for a boolean become booleans;
 *   a number or boolean where a string is expected becomes its string;
 * - a JSON string where an array or object is expected is decoded, and a lone value where an array
 *   is expected is wrapped in one;
 * - an enum value in the wrong case takes the declared spelling;
 * - a key in the wrong case (`City` for `city`) is renamed; unknown keys are dropped;
 * - `null` (or `""` for a non-string parameter) counts as "not given"; declared defaults fill gaps;
 * - the whole argument object may arrive as a JSON string, or as nothing at all (`{}`).
 *
 * Everything else (an object where a string is expected, a missing required argument, a value
 * outside an enum, a violated `minimum`/`pattern`/…) is checked by `@cfworker/json-schema` and
 * reported as one actionable line, for example:
 * `Invalid arguments for get_weather: missing required argument 'city' (string). Call get_weather again with {"city": "..."}.`
 *
 * @param tool - the tool's name and expanded parameters.
 * @param raw - the arguments as parsed from the model's output.
 * @returns `{ ok: true, arguments }` with a fresh, cleaned object, or `{ ok: false, message }`.
 */
export function validateArguments(tool: ArgumentsTarget, raw: unknown): ArgumentsResult {
  const decoded = decodeArgumentObject(raw);
  if (decoded === undefined) {
    return {
      ok: false,
      message: `Invalid arguments for ${tool.name}: the arguments must be a JSON object, got ${describeValue(raw)}. Call ${tool.name} again with ${callTemplate(tool.parameters, {}, new Set())}.`,
    };
  }

  // An argument named __proto__ would set a prototype wherever the object is copied by assignment.
  const protoKey = findProtoKey(decoded);
  if (protoKey !== undefined) {
    return {
      ok: false,
      message: `Invalid arguments for ${tool.name}: ${protoKey} is not allowed as an argument name. Call ${tool.name} again with ${callTemplate(tool.parameters, {}, new Set())}.`,
    };
  }

  const args = coerceObject(decoded, tool.parameters);
  for (const [key, value] of Object.entries(args)) {
    const inexact = inexactNumber(value, key);
    if (inexact === undefined) continue;
    // The template shows a placeholder there, never the changed number.
    return {
      ok: false,
      message: `Invalid arguments for ${tool.name}: ${inexact}. Call ${tool.name} again with ${callTemplate(tool.parameters, args, new Set([key]))}.`,
    };
  }
  let errors: OutputUnit[];
  try {
    errors = validatorFor(tool.parameters).validate(args).errors;
  } catch (error) {
    // Registration compiles each schema (assertCheckable), so this is a schema the validator
    // gives up on only for some values: the call fails, the answer goes on.
    return { ok: false, message: `The arguments for ${tool.name} could not be checked against its schema (${firstLine(error)}); answer without this tool.` };
  }
  if (errors.length === 0) return { ok: true, arguments: args };

  const problems: string[] = [];
  const broken = new Set<string>();
  for (const error of leafErrors(errors)) {
    const problem = describeError(error, tool.parameters, args, broken);
    if (!problems.includes(problem)) problems.push(problem);
  }
  const shown = problems.slice(0, MAX_PROBLEMS).join('; ');
  const more = problems.length > MAX_PROBLEMS ? ` (and ${problems.length - MAX_PROBLEMS} more)` : '';
  return {
    ok: false,
    message: `Invalid arguments for ${tool.name}: ${shown}${more}. Call ${tool.name} again with ${callTemplate(tool.parameters, args, broken)}.`,
  };
}

/**
 * {@link validateArguments} for code that prefers exceptions.
 *
 * @returns the cleaned arguments.
 * @throws ToolArgumentsError carrying the same one-line message.
 */
export function assertValidArguments(tool: ArgumentsTarget, raw: unknown): Record<string, unknown> {
  const result = validateArguments(tool, raw);
  if (!result.ok) throw new ToolArgumentsError(result.message, tool.name);
  return result.arguments;
}

/**
 * The first number in the arguments that is not the one the model wrote: `1e999` parses as Infinity, and
 * a whole number past 2^53 is rounded by the parse (`12345678901234567890` becomes …000). A handler given
 * either would act on a value nobody asked for, so the call is refused with the place named.
 */
function inexactNumber(value: unknown, path: string): string | undefined {
  if (typeof value === 'number') {
    const where = `'${path}'`;
    if (!Number.isFinite(value)) return `${where} is not a finite number`;
    if (Number.isInteger(value) && !Number.isSafeInteger(value))
      return `${where} is a whole number past ${Number.MAX_SAFE_INTEGER}, which cannot be kept exactly (a long identifier belongs in a string)`;
    return undefined;
  }
  const entries = Array.isArray(value) ? value.map((item, i) => [String(i), item] as const) : isPlainObject(value) ? Object.entries(value) : [];
  for (const [key, item] of entries) {
    const found = inexactNumber(item, Array.isArray(value) ? `${path}[${key}]` : `${path}.${key}`);
    if (found !== undefined) return found;
  }
  return undefined;
}

/**
 * Throws a {@link ToolDefinitionError} when the validator cannot use a tool's schema (a reference to
 * nothing, a keyword value it cannot compile), so the tool is refused at registration with the reason
 * instead of failing every call later.
 *
 * @param tool - the tool's name and expanded parameters.
 */
export function assertCheckable(tool: ArgumentsTarget): void {
  try {
    validatorFor(tool.parameters).validate({});
  } catch (error) {
    throw new ToolDefinitionError(`The parameters of tool '${tool.name}' cannot be checked: ${firstLine(error)}.`, tool.name);
  }
}

function firstLine(error: unknown): string {
  const message = error instanceof Error ? error.message : String(error);
  return (message.split('\n')[0] ?? '').trim().replace(/\.$/, '');
}

function validatorFor(parameters: ObjectSchema): Validator {
  let validator = validators.get(parameters);
  if (validator === undefined) {
    // A copy, because the validator annotates the schema it is given and ours is frozen and shared.
    // All errors, not the first: the model should be able to fix every argument in one retry.
    validator = new Validator(structuredClone(parameters) as Schema, '2020-12', false);
    validators.set(parameters, validator);
  }
  return validator;
}

/** Accepts an object, a JSON string of one, or nothing; `undefined` for anything else. */
function decodeArgumentObject(raw: unknown): Record<string, unknown> | undefined {
  if (raw === undefined || raw === null) return {};
  if (typeof raw === 'string') {
    // Quantized models often send `""` instead of `{}` for a tool without arguments.
    if (raw.trim() === '') return {};
    const parsed = tryParseJson(raw);
    return isPlainObject(parsed) ? parsed : undefined;
  }
  return isPlainObject(raw) ? raw : undefined;
}

function tryParseJson(text: string): unknown {
  try {
    return JSON.parse(text) as unknown;
  } catch {
    return undefined;
  }
}

function typesOf(schema: ExpandedProperty): readonly JsonType[] {
  if (schema.type === undefined) return [];
  return typeof schema.type === 'string' ? [schema.type] : schema.type;
}

function hasType(value: unknown, type: JsonType): boolean {
  switch (type) {
    case 'string':
      return typeof value === 'string';
    case 'number':
      return typeof value === 'number' && Number.isFinite(value);
    case 'integer':
      return Number.isInteger(value);
    case 'boolean':
      return typeof value === 'boolean';
    case 'null':
      return value === null;
    case 'array':
      return Array.isArray(value);
    case 'object':
      return isPlainObject(value);
  }
}

/** A decimal number as text; deliberately rejects `""`, `" "` and `"0x10"`, which `Number()` accepts. */
const NUMERIC = /^\s*[-+]?(?:\d+\.?\d*|\.\d+)(?:e[-+]?\d+)?\s*$/i;

const NOT_COERCED = Symbol('not coerced');

function coerceTo(value: unknown, type: JsonType): unknown {
  switch (type) {
    case 'number':
    case 'integer': {
      if (typeof value !== 'string' || !NUMERIC.test(value)) return NOT_COERCED;
      const number = Number(value);
      // "1e309" is Infinity, and a long integer string is rounded: neither is the number the model wrote.
      if (!Number.isFinite(number)) return NOT_COERCED;
      return type === 'integer' && !Number.isSafeInteger(number) ? NOT_COERCED : number;
    }
    case 'boolean': {
      if (typeof value !== 'string') return NOT_COERCED;
      const word = value.trim().toLowerCase();
      return word === 'true' ? true : word === 'false' ? false : NOT_COERCED;
    }
    case 'string':
      // A number or boolean has one obvious spelling; an object or array has none, so those stay errors.
      // A whole number past 2^53 was already rounded by the parse: its string would be a different number.
      return (typeof value === 'number' && Number.isFinite(value) && (!Number.isInteger(value) || Number.isSafeInteger(value))) || typeof value === 'boolean'
        ? String(value)
        : NOT_COERCED;
    case 'array': {
      if (typeof value === 'string' && value.trim().startsWith('[')) {
        const parsed = tryParseJson(value);
        if (Array.isArray(parsed)) return parsed;
      }
      // One search query where a list of queries is expected is still clearly a list of one.
      return typeof value === 'string' || typeof value === 'number' || typeof value === 'boolean' ? [value] : NOT_COERCED;
    }
    case 'object': {
      if (typeof value !== 'string' || !value.trim().startsWith('{')) return NOT_COERCED;
      const parsed = tryParseJson(value);
      return isPlainObject(parsed) ? parsed : NOT_COERCED;
    }
    case 'null':
      return NOT_COERCED;
  }
}

/** Returns the coerced value, or the value unchanged for the validator to report. */
function coerceValue(value: unknown, schema: ExpandedProperty | undefined): unknown {
  if (schema === undefined) return value;
  const types = typesOf(schema);
  let result = value;
  if (types.length > 0 && !types.some((type) => hasType(result, type))) {
    for (const type of types) {
      const coerced = coerceTo(result, type);
      if (coerced !== NOT_COERCED) {
        result = coerced;
        break;
      }
    }
  }
  if (schema.enum !== undefined) result = matchEnum(result, schema.enum);
  if (Array.isArray(result) && schema.items !== undefined) {
    const items = schema.items;
    result = result.map((item: unknown) => coerceValue(item, items));
  } else if (isPlainObject(result) && schema.properties !== undefined) {
    result = coerceObject(result, schema);
  }
  return result;
}

/** The declared spelling of an enum value written in another case or as a string (`"5"` for `5`). */
function matchEnum(value: unknown, allowed: readonly unknown[]): unknown {
  if (allowed.includes(value)) return value;
  const loose = (candidate: unknown): boolean =>
    typeof value === 'string' && typeof candidate === 'string'
      ? candidate.toLowerCase() === value.trim().toLowerCase()
      : (typeof value === 'string' || typeof value === 'number' || typeof value === 'boolean') &&
        (typeof candidate === 'number' || typeof candidate === 'boolean') &&
        String(candidate) === String(value).trim();
  const matches = allowed.filter(loose);
  // Two candidates differing only in case: picking one would be a guess, so leave it to the validator.
  return matches.length === 1 ? matches[0] : value;
}

interface ObjectLikeSchema {
  readonly properties?: { readonly [name: string]: ExpandedProperty };
  readonly required?: readonly string[];
  readonly [keyword: string]: unknown;
}

function coerceObject(input: Record<string, unknown>, schema: ObjectLikeSchema): Record<string, unknown> {
  const properties = schema.properties ?? {};
  const names = Object.keys(properties);
  const keepUnknown = schema.additionalProperties !== undefined && schema.additionalProperties !== false;
  const output: Record<string, unknown> = {};

  for (const [key, value] of Object.entries(input)) {
    let name: string | undefined = Object.hasOwn(properties, key) ? key : undefined;
    if (name === undefined) {
      const lower = key.toLowerCase();
      const candidates = names.filter((candidate) => candidate.toLowerCase() === lower && !Object.hasOwn(input, candidate));
      if (candidates.length === 1) name = candidates[0];
    }
    if (name === undefined) {
      // Models add keys of their own (`"reason": …`, `"units": …`); refusing the call over them
      // would cost a round for no benefit, and the handler never sees them.
      if (keepUnknown) setOwn(output, key, value);
      continue;
    }
    const property = properties[name];
    const types = property === undefined ? [] : typesOf(property);
    if (value === null && !types.includes('null')) continue;
    if (value === '' && types.length > 0 && !types.includes('string')) continue;
    output[name] = coerceValue(value, property);
  }

  for (const name of names) {
    const fallback = properties[name]?.default;
    if (!Object.hasOwn(output, name) && fallback !== undefined) output[name] = structuredClone(fallback);
  }
  return output;
}

/** Drops "a child failed" errors when the child's own error is also present. */
function leafErrors(errors: readonly OutputUnit[]): OutputUnit[] {
  const leaves = errors.filter((error) => !WRAPPER_KEYWORDS.has(error.keyword) && !error.keyword.endsWith('Of'));
  return leaves.length > 0 ? leaves : [...errors];
}

function pointerSegments(location: string): string[] {
  const pointer = location.startsWith('#') ? location.slice(1) : location;
  if (pointer === '' || pointer === '/') return [];
  return pointer
    .slice(1)
    .split('/')
    .map((segment) => decodeURIComponent(segment).replaceAll('~1', '/').replaceAll('~0', '~'));
}

/** `['tags', '0']` → `tags[0]`; `['address', 'city']` → `address.city`. */
function formatPath(segments: readonly string[]): string {
  let path = '';
  for (const segment of segments) {
    if (/^\d+$/.test(segment) && path !== '') path += `[${segment}]`;
    else path += path === '' ? segment : `.${segment}`;
  }
  return path;
}

function schemaAt(root: ObjectSchema, segments: readonly string[]): ExpandedProperty | undefined {
  let schema: ExpandedProperty | undefined = root;
  for (const segment of segments) {
    if (schema === undefined) return undefined;
    schema = /^\d+$/.test(segment) && schema.items !== undefined ? schema.items : schema.properties?.[segment];
  }
  return schema;
}

function valueAt(root: unknown, segments: readonly string[]): unknown {
  let value = root;
  for (const segment of segments) {
    if (typeof value !== 'object' || value === null) return undefined;
    value = (value as Record<string, unknown>)[segment];
  }
  return value;
}

function article(type: string): string {
  return /^[aeiou]/.test(type) ? `an ${type}` : `a ${type}`;
}

/** A short label of what a parameter holds: `string`, `integer`, `array of string`, `one of "c", "f"`. */
function typeLabel(schema: ExpandedProperty | undefined): string {
  if (schema === undefined) return 'value';
  if (schema.enum !== undefined) return `one of ${schema.enum.map((value) => JSON.stringify(value)).join(', ')}`;
  const types = typesOf(schema);
  if (types.length === 0) return 'value';
  return types.map((type) => (type === 'array' && schema.items?.type !== undefined ? `array of ${typeLabel(schema.items)}` : type)).join(' or ');
}

function describeError(error: OutputUnit, root: ObjectSchema, args: Record<string, unknown>, broken: Set<string>): string {
  const segments = pointerSegments(error.instanceLocation);
  if (error.keyword === 'required') {
    // cfworker reports the missing key only inside its message: `… required property "city".`
    const missing = /"((?:[^"\\]|\\.)*)"\.?$/.exec(error.error)?.[1] ?? '';
    const path = [...segments, missing];
    broken.add(path[0] ?? missing);
    return `missing required argument '${formatPath(path)}' (${typeLabel(schemaAt(root, path))})`;
  }

  broken.add(segments[0] ?? '');
  const path = formatPath(segments);
  const schema = schemaAt(root, segments);
  const value = valueAt(args, segments);
  const subject = path === '' ? 'the arguments' : `argument '${path}'`;
  switch (error.keyword) {
    case 'type': {
      const types = schema === undefined ? [] : typesOf(schema);
      const expected = types.length === 0 ? 'of another type' : types.map(article).join(' or ');
      return `${subject} must be ${expected}, not ${describeValue(value)}`;
    }
    case 'enum':
    case 'const':
      return `${subject} must be ${typeLabel(schema)}, not ${JSON.stringify(value) ?? 'undefined'}`;
    default:
      return `${subject} is invalid: ${error.error.replace(/\.$/, '')}`;
  }
}

const PLACEHOLDERS: Readonly<Record<JsonType, string>> = {
  string: '"..."',
  number: '<number>',
  integer: '<integer>',
  boolean: '<true or false>',
  array: '[...]',
  object: '{...}',
  null: 'null',
};

/**
 * The call to make next, written out: required arguments, plus optional ones the model already
 * gave; good values are repeated as given and bad or missing ones are shown as a placeholder.
 * Small models copy a concrete example far more reliably than they follow a description.
 */
function callTemplate(parameters: ObjectSchema, args: Record<string, unknown>, broken: ReadonlySet<string>): string {
  const entries: string[] = [];
  for (const [name, schema] of Object.entries(parameters.properties)) {
    const given = Object.hasOwn(args, name);
    if (!given && !parameters.required.includes(name)) continue;
    const value =
      given && !broken.has(name)
        ? JSON.stringify(args[name])
        : schema.enum?.length === 1
          ? JSON.stringify(schema.enum[0])
          : PLACEHOLDERS[typesOf(schema)[0] ?? 'string'];
    entries.push(`${JSON.stringify(name)}: ${value}`);
  }
  return `{${entries.join(', ')}}`;
}
