import { ToolDefinitionError } from './errors.ts';

/** The JSON Schema `type` keywords a parameter may use. */
export type JsonType = 'string' | 'number' | 'integer' | 'boolean' | 'array' | 'object' | 'null';

/** A JSON value, as allowed in `enum` and `default`. */
export type JsonValue = string | number | boolean | null | readonly JsonValue[] | { readonly [key: string]: JsonValue };

/** JSON types a shorthand may name, alone or as `T[]` (an array of `T`). */
const SHORTHAND_TYPES = ['string', 'number', 'integer', 'boolean', 'array', 'object'] as const;
const JSON_TYPES: readonly string[] = [...SHORTHAND_TYPES, 'null'];

/**
 * A parameter written as a bare type name: `'string'` expands to `{ type: 'string' }`, and
 * `'string[]'` to `{ type: 'array', items: { type: 'string' } }`.
 */
export type ShorthandType = (typeof SHORTHAND_TYPES)[number] | `${Exclude<(typeof SHORTHAND_TYPES)[number], 'array'>}[]`;

/**
 * A full JSON Schema for one parameter. Passed through as written, except that `items` and nested
 * `properties` may themselves use the shorthand.
 */
export interface PropertySchema {
  type?: JsonType | readonly JsonType[];
  description?: string;
  enum?: readonly JsonValue[];
  items?: ParameterSpec;
  properties?: { readonly [name: string]: ParameterSpec };
  required?: readonly string[];
  default?: JsonValue;
  /** Any other JSON Schema keyword (`minimum`, `pattern`, …), checked by the validator. */
  [keyword: string]: unknown;
}

/** One parameter: a shorthand type name or a full property schema. */
export type ParameterSpec = ShorthandType | PropertySchema;

/** Parameters keyed by name, as `tool()` takes them: `{ city: 'string', days: { type: 'integer' } }`. */
export type ParameterShorthand = { readonly [name: string]: ParameterSpec };

/**
 * What `tool()` accepts as its third argument: the shorthand map, or a complete
 * `{ type: 'object', properties, required? }` schema (as an OpenAI `parameters` block is written).
 */
export type ParametersInput = ParameterShorthand | ObjectSchemaInput;

/** A complete object schema as a caller may write it. */
export interface ObjectSchemaInput {
  type: 'object';
  properties: ParameterShorthand;
  required?: readonly string[];
  [keyword: string]: unknown;
}

/** An expanded parameter schema, as emitted: every shorthand replaced by its full form. */
export interface ExpandedProperty {
  readonly type?: JsonType | readonly JsonType[];
  readonly description?: string;
  readonly enum?: readonly JsonValue[];
  readonly items?: ExpandedProperty;
  readonly properties?: { readonly [name: string]: ExpandedProperty };
  readonly required?: readonly string[];
  readonly default?: JsonValue;
  readonly [keyword: string]: unknown;
}

/** The `parameters` block of an emitted tool schema. */
export interface ObjectSchema {
  readonly type: 'object';
  readonly properties: { readonly [name: string]: ExpandedProperty };
  readonly required: readonly string[];
  readonly [keyword: string]: unknown;
}

/**
 * The standard OpenAI function envelope a chat template renders:
 * `{ type: 'function', function: { name, description, parameters } }`.
 */
export interface ToolSchema {
  readonly type: 'function';
  readonly function: {
    readonly name: string;
    readonly description: string;
    readonly parameters: ObjectSchema;
  };
}

type ValueOfType<T> = T extends 'string'
  ? string
  : T extends 'number' | 'integer'
    ? number
    : T extends 'boolean'
      ? boolean
      : T extends 'null'
        ? null
        : T extends 'array'
          ? unknown[]
          : T extends 'object'
            ? Record<string, unknown>
            : unknown;

/** The TypeScript type of a value matching one {@link ParameterSpec}. */
export type ValueOfSpec<S> = S extends `${infer Item}[]`
  ? ValueOfType<Item>[]
  : S extends string
    ? ValueOfType<S>
    : S extends { readonly enum: readonly (infer Value)[] }
      ? Value
      : S extends { readonly type: 'array'; readonly items: infer Item }
        ? ValueOfSpec<Item>[]
        : S extends { readonly type: readonly (infer Type)[] }
          ? ValueOfType<Type>
          : S extends { readonly type: infer Type }
            ? ValueOfType<Type>
            : unknown;

type Simplify<T> = { [K in keyof T]: T[K] } & {};

/**
 * The argument object a handler receives for parameters `S` of which `R` are required, so that
 * `tool('w', '…', { city: 'string' }, ({ city }) => city.toUpperCase())` type-checks.
 * A full `{ type: 'object', properties }` schema is typed loosely, as `Record<string, unknown>`.
 */
export type ArgsOf<S, R extends PropertyKey = keyof S> = S extends ObjectSchemaInput
  ? Record<string, unknown>
  : Simplify<{ -readonly [K in keyof S & R]: ValueOfSpec<S[K]> } & { -readonly [K in Exclude<keyof S, R>]?: ValueOfSpec<S[K]> }>;

/**
 * The names `tool()`'s `required` option may list: the keys of a shorthand map, or any string for a
 * complete object schema (whose keys are `type`, `properties`, … rather than parameter names).
 */
export type ParameterNames<S> = S extends ObjectSchemaInput ? string : Extract<keyof S, string>;

/** Tool names the OpenAI API and every chat template we render accept. */
export const TOOL_NAME_PATTERN = /^[a-zA-Z_][a-zA-Z0-9_-]{0,63}$/;

/**
 * Throws a {@link ToolDefinitionError} unless `name` is a valid tool name.
 *
 * @param name - the proposed name.
 */
export function assertToolName(name: unknown): asserts name is string {
  if (typeof name !== 'string') {
    throw new ToolDefinitionError(
      `A tool name must be a string, got ${describeValue(name)}. Pass a name such as 'get_weather' as the first argument of tool().`,
    );
  }
  if (!TOOL_NAME_PATTERN.test(name)) {
    throw new ToolDefinitionError(
      `Tool name '${name}' is not valid: use 1 to 64 letters, digits, '_' or '-', starting with a letter or '_' (for example 'get_weather').`,
      name,
    );
  }
}

/**
 * Expands the parameters given to `tool()` into the `parameters` block of the OpenAI envelope and
 * checks them, so that a typo fails at registration instead of producing a schema the model and the
 * validator read differently.
 *
 * @param toolName - the (already validated) tool name, quoted in error messages.
 * @param input - the shorthand map, a full object schema, or `undefined`/`{}` for a tool without parameters.
 * @param required - the `required` option; when omitted, the full schema's own `required`, else every parameter.
 * @returns a deeply frozen object schema; frozen because it is shared by the registry, every
 *   snapshot and the emitted envelopes.
 * @throws ToolDefinitionError naming the offending parameter and the accepted forms.
 */
export function expandParameters(toolName: string, input: unknown, required?: unknown): ObjectSchema {
  if (input === undefined || input === null) input = {};
  if (!isPlainObject(input)) {
    throw new ToolDefinitionError(`Parameters of tool '${toolName}' must be an object such as { city: 'string' }, got ${describeValue(input)}.`, toolName);
  }

  // A complete `{ type: 'object', properties }` schema is unwrapped. A shorthand map whose
  // parameters happen to be called `type` and `properties` is far less likely than someone pasting
  // an OpenAI `parameters` block, so the full form wins.
  let shorthand: Record<string, unknown> = input;
  let extra: Record<string, unknown> = {};
  let ownRequired: unknown;
  if (input.type === 'object' && isPlainObject(input.properties)) {
    const { type: _type, properties, required: schemaRequired, ...rest } = input;
    shorthand = properties;
    extra = rest;
    ownRequired = schemaRequired;
  }

  const properties: Record<string, ExpandedProperty> = {};
  for (const [name, spec] of Object.entries(shorthand)) {
    if (name === '') {
      throw new ToolDefinitionError(`Tool '${toolName}' has a parameter with an empty name. Give every parameter a name.`, toolName);
    }
    properties[name] = expandProperty(toolName, name, spec);
  }

  const names = Object.keys(properties);
  const requiredList = checkRequired(toolName, required !== undefined ? required : ownRequired, names);
  return frozenCopy({ ...extra, type: 'object', properties, required: requiredList });
}

/** Expands one parameter (recursively: `items` and nested `properties` may be shorthand too). */
function expandProperty(toolName: string, path: string, spec: unknown): ExpandedProperty {
  if (typeof spec === 'string') {
    const arrayOf = spec.endsWith('[]') ? spec.slice(0, -2) : undefined;
    const base = arrayOf ?? spec;
    if ((SHORTHAND_TYPES as readonly string[]).includes(base) && !(arrayOf !== undefined && base === 'array')) {
      return arrayOf === undefined ? { type: base as JsonType } : { type: 'array', items: { type: base as JsonType } };
    }
    throw unknownType(toolName, path, spec);
  }
  if (!isPlainObject(spec)) {
    throw new ToolDefinitionError(
      `Parameter '${path}' of tool '${toolName}' must be a type name such as 'string' or a schema such as { type: 'string', description: '…' }, got ${describeValue(spec)}.`,
      toolName,
    );
  }

  const expanded: Record<string, unknown> = { ...spec };
  const types = Array.isArray(spec.type) ? (spec.type as unknown[]) : spec.type === undefined ? [] : [spec.type];
  for (const type of types) {
    if (typeof type !== 'string' || !JSON_TYPES.includes(type)) throw unknownType(toolName, path, type);
  }
  if (spec.enum !== undefined && (!Array.isArray(spec.enum) || spec.enum.length === 0)) {
    throw new ToolDefinitionError(
      `The enum of parameter '${path}' of tool '${toolName}' must be a non-empty array of allowed values, such as ['celsius', 'fahrenheit'].`,
      toolName,
    );
  }
  // `items: false` (a tuple's "nothing after these") and `items: true` are whole schemas already.
  if (spec.items !== undefined && !Array.isArray(spec.items) && typeof spec.items !== 'boolean') {
    expanded.items = expandProperty(toolName, `${path}[]`, spec.items);
  }
  if (isPlainObject(spec.properties)) {
    const nested: Record<string, ExpandedProperty> = {};
    for (const [name, child] of Object.entries(spec.properties)) {
      nested[name] = expandProperty(toolName, `${path}.${name}`, child);
    }
    expanded.properties = nested;
  }
  return expanded;
}

function unknownType(toolName: string, path: string, type: unknown): ToolDefinitionError {
  const shown = typeof type === 'string' ? `'${type}'` : describeValue(type);
  return new ToolDefinitionError(
    `Unknown type ${shown} for parameter '${path}' of tool '${toolName}'. Use one of: ${SHORTHAND_TYPES.join(', ')} (or an array of one, such as 'string[]').`,
    toolName,
  );
}

function checkRequired(toolName: string, required: unknown, names: readonly string[]): string[] {
  if (required === undefined) return [...names];
  if (!Array.isArray(required) || !required.every((entry) => typeof entry === 'string')) {
    throw new ToolDefinitionError(
      `The required option of tool '${toolName}' must be an array of parameter names, such as ['city'], got ${describeValue(required)}.`,
      toolName,
    );
  }
  for (const entry of required as string[]) {
    if (!names.includes(entry)) {
      const known = names.length === 0 ? 'it has no parameters' : `its parameters are: ${names.join(', ')}`;
      throw new ToolDefinitionError(`The required option of tool '${toolName}' lists '${entry}', which is not one of its parameters; ${known}.`, toolName);
    }
  }
  return [...new Set(required as string[])];
}

/** True for `{…}` literals (and null-prototype objects), false for arrays, class instances, functions. */
export function isPlainObject(value: unknown): value is Record<string, unknown> {
  if (typeof value !== 'object' || value === null) return false;
  const proto: unknown = Object.getPrototypeOf(value);
  return proto === Object.prototype || proto === null;
}

/** A short, human-readable description of a wrong value, for error messages. */
export function describeValue(value: unknown): string {
  if (value === null) return 'null';
  if (Array.isArray(value)) return 'an array';
  if (typeof value === 'function') return 'a function';
  if (typeof value === 'string') return `the string ${JSON.stringify(value.length > 40 ? `${value.slice(0, 40)}…` : value)}`;
  if (typeof value === 'object') return 'an object';
  if (typeof value === 'undefined') return 'undefined';
  return `the ${typeof value} ${String(value)}`;
}

/**
 * A frozen deep copy. Copied first so that freezing never reaches into objects the caller still owns
 * (an `enum` array shared with their own code, say).
 */
function frozenCopy<T>(value: T): T {
  if (Array.isArray(value)) return Object.freeze(value.map((item: unknown) => frozenCopy(item))) as T;
  if (isPlainObject(value)) {
    const copy: Record<string, unknown> = {};
    for (const [key, child] of Object.entries(value)) copy[key] = frozenCopy(child);
    return Object.freeze(copy) as T;
  }
  return value;
}

/** Keywords of a schema node whose values are maps of subschemas, lists of them, or one. */
const SUBSCHEMA_MAPS = new Set(['properties', 'patternProperties', 'dependentSchemas', '$defs', 'definitions']);
const SUBSCHEMA_LISTS = new Set(['anyOf', 'oneOf', 'allOf', 'prefixItems']);
const SUBSCHEMA_ONE = new Set([
  'items',
  'additionalItems',
  'additionalProperties',
  'unevaluatedItems',
  'unevaluatedProperties',
  'contains',
  'propertyNames',
  'not',
  'if',
  'then',
  'else',
]);

/**
 * A schema node with each of its subschemas replaced by `map(subschema)` (under `properties`, `anyOf`,
 * `items`, `$defs`… every keyword whose value is a schema), and its data (`enum`, `const`, `default`,
 * `examples`…) copied as it is. Keys for which `drop(key, value)` holds are left out.
 */
export function mapSubschemas(
  node: Record<string, unknown>,
  map: (subschema: unknown) => unknown,
  drop?: (key: string, value: unknown) => boolean,
): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const [key, value] of Object.entries(node)) {
    if (drop?.(key, value)) continue;
    if (SUBSCHEMA_MAPS.has(key) && isPlainObject(value)) out[key] = Object.fromEntries(Object.entries(value).map(([name, child]) => [name, map(child)]));
    else if ((SUBSCHEMA_LISTS.has(key) || SUBSCHEMA_ONE.has(key)) && Array.isArray(value)) out[key] = value.map(map);
    else if (SUBSCHEMA_ONE.has(key)) out[key] = map(value);
    else out[key] = value;
  }
  return out;
}

/**
 * A tool's parameters as the model reads them: the same schema without what only a validator needs.
 * The AI SDK (zod's `toJSONSchema`) and MCP servers send `$schema` and `additionalProperties: false` on
 * every object; rendered into a chat template they are bytes a small model never saw in training, and
 * a zod tool would render differently from the same tool written as plain JSON Schema. Validation
 * still uses the schema as given.
 *
 * @param schema - an expanded parameters schema.
 * @returns a deeply frozen copy without `$schema`, `additionalProperties: false` and zod's safe-integer
 *   bounds, anywhere.
 */
export function promptParameters<T>(schema: T): T {
  return frozenCopy(withoutValidatorKeywords(schema)) as T;
}

function withoutValidatorKeywords(node: unknown): unknown {
  if (!isPlainObject(node)) return node;
  return mapSubschemas(
    node,
    withoutValidatorKeywords,
    // zod writes every `.int()` with the safe-integer bounds: they say nothing a model could use.
    (key, value) =>
      key === '$schema' ||
      (key === 'additionalProperties' && value === false) ||
      (key === 'minimum' && value === Number.MIN_SAFE_INTEGER) ||
      (key === 'maximum' && value === Number.MAX_SAFE_INTEGER),
  );
}
