import { ToolDefinitionError } from './errors.ts';
import { describeValue, isPlainObject } from './tool-schema.ts';

/** Keywords whose value is a map of name to subschema. */
const SCHEMA_MAPS = new Set(['properties', 'patternProperties', 'dependentSchemas']);
/** Keywords whose value is a list of subschemas. */
const SCHEMA_LISTS = new Set(['anyOf', 'oneOf', 'allOf', 'prefixItems']);
/** Keywords whose value is one subschema (`items` may also be a draft-7 tuple list). */
const SCHEMA_ONE = new Set([
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
/** Where schemas keep the definitions their references point at (2019-09+, and draft 7 and before). */
const DEFINITION_KEYWORDS = ['$defs', 'definitions'] as const;
/** Keywords that describe a value rather than constrain it: on a `$ref`'s side, the referrer's word wins. */
const ANNOTATIONS = new Set(['title', 'description', 'default', 'examples', 'deprecated', 'readOnly', 'writeOnly', '$comment']);

/**
 * How many schema nodes a tool's parameters may grow to once references are followed. A definition
 * used twice is copied twice; a chain of definitions each using the next twice doubles at every link,
 * so a small schema can ask for an unbounded copy. Ten thousand nodes is far past any real tool's.
 */
const MAX_NODES = 10_000;

/** What {@link inlineSchemaRefs} needs beyond the schema. */
export interface InlineRefsOptions {
  /** The tool's name, quoted in errors. */
  readonly toolName: string;
}

/**
 * A schema with every reference inside it (`$ref: '#/$defs/Item'`, `'#/definitions/Point'`, `'#'`, an
 * `$anchor`) replaced by what it points at, so the model reads the whole shape (a `$ref` means nothing
 * to it), and the coercion and the per-argument questions see each argument's real type.
 *
 * Pydantic, FastMCP and the MCP SDK's zod conversion publish nested models as definitions plus
 * references, with the reference alone, beside annotations (`{ $ref, default }`) or wrapped in a
 * one-element `allOf`. All three come out as one plain schema: the referrer's annotations override the
 * definition's, and a one-element `allOf` that adds nothing conflicting is merged into its parent.
 * Where a keyword conflicts, both are kept as `allOf`, so nothing is loosened.
 *
 * A recursive reference (a tree whose children are trees) cannot be written out; it stays a `$ref`
 * and the definitions it needs stay beside it, where the validator follows them.
 *
 * @param schema - a tool's whole parameters schema, as published.
 * @param options - the tool's name, for errors.
 * @returns a new schema (the input is not changed).
 * @throws ToolDefinitionError for a reference outside the schema (a URL), one to nothing it defines,
 *   or a schema that grows past {@link MAX_NODES} nodes once followed.
 */
export function inlineSchemaRefs(schema: Record<string, unknown>, options: InlineRefsOptions): Record<string, unknown> {
  const state: WalkState = { root: schema, toolName: options.toolName, nodes: 0, keptRecursion: false, anchors: undefined };
  const out = walk(schema, [], state) as Record<string, unknown>;
  const result: Record<string, unknown> = {};
  for (const [key, value] of Object.entries(out)) {
    if ((DEFINITION_KEYWORDS as readonly string[]).includes(key)) continue;
    result[key] = value;
  }
  // A recursive reference points into the definitions as published: keep them, resolved as far as they go.
  if (state.keptRecursion) {
    for (const key of DEFINITION_KEYWORDS) {
      const definitions = schema[key];
      if (isPlainObject(definitions)) {
        result[key] = Object.fromEntries(Object.entries(definitions).map(([name, def]) => [name, walk(def, [`#/${key}/${escapePointer(name)}`], state)]));
      }
    }
  }
  return result;
}

/** True when a schema holds a reference anywhere (outside data such as `default`, `enum` or `const`). */
export function hasSchemaRefs(schema: unknown): boolean {
  if (Array.isArray(schema)) return schema.some(hasSchemaRefs);
  if (!isPlainObject(schema)) return false;
  for (const [key, value] of Object.entries(schema)) {
    if ((key === '$ref' || key === '$dynamicRef' || key === '$recursiveRef') && typeof value === 'string') return true;
    if (isSchemaKeyword(key) && hasSchemaRefs(SCHEMA_MAPS.has(key) || key === '$defs' || key === 'definitions' ? Object.values(value as object) : value)) {
      return true;
    }
  }
  return false;
}

interface WalkState {
  readonly root: Record<string, unknown>;
  readonly toolName: string;
  nodes: number;
  keptRecursion: boolean;
  anchors: Map<string, unknown> | undefined;
}

function isSchemaKeyword(key: string): boolean {
  return SCHEMA_MAPS.has(key) || SCHEMA_LISTS.has(key) || SCHEMA_ONE.has(key) || key === '$defs' || key === 'definitions';
}

/** One node, its references followed; `expanding` lists the references being followed above it. */
function walk(node: unknown, expanding: readonly string[], state: WalkState): unknown {
  if (!isPlainObject(node)) return node;
  if (++state.nodes > MAX_NODES) {
    throw new ToolDefinitionError(
      `The parameters of tool '${state.toolName}' grow past ${MAX_NODES.toLocaleString('en-US')} parts once their references are followed; define the tool with a smaller schema.`,
      state.toolName,
    );
  }
  const { $ref: ref, ...rest } = node;
  const own = walkKeywords(rest, expanding, state);
  if (ref === undefined) return unwrapSingleAllOf(own);
  if (typeof ref !== 'string') {
    throw new ToolDefinitionError(
      `A $ref in the parameters of tool '${state.toolName}' must be a string such as '#/$defs/Item', got ${describeValue(ref)}.`,
      state.toolName,
    );
  }
  if (expanding.includes(ref)) {
    state.keptRecursion = true;
    return { $ref: ref, ...own };
  }
  const target = lookUp(ref, state);
  return merge(walk(target, [...expanding, ref], state), own);
}

/** The node's own keywords, each subschema walked; data (`default`, `enum`, `const`, …) copied as it is. */
function walkKeywords(node: Record<string, unknown>, expanding: readonly string[], state: WalkState): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const [key, value] of Object.entries(node)) {
    if (SCHEMA_MAPS.has(key) && isPlainObject(value)) {
      out[key] = Object.fromEntries(Object.entries(value).map(([name, child]) => [name, walk(child, expanding, state)]));
    } else if ((SCHEMA_LISTS.has(key) || SCHEMA_ONE.has(key)) && Array.isArray(value)) {
      out[key] = value.map((child) => walk(child, expanding, state));
    } else if (SCHEMA_ONE.has(key)) {
      out[key] = walk(value, expanding, state);
    } else {
      out[key] = value;
    }
  }
  return out;
}

/** What a reference inside the schema points at: a JSON pointer from the root, or a named anchor. */
function lookUp(ref: string, state: WalkState): unknown {
  const outside = (): ToolDefinitionError =>
    new ToolDefinitionError(
      `The parameters of tool '${state.toolName}' refer to '${ref}', outside their own schema; only references inside it (such as '#/$defs/Item') are followed.`,
      state.toolName,
    );
  if (!ref.startsWith('#')) throw outside();
  const fragment = safeDecode(ref.slice(1));
  let target: unknown;
  if (fragment === '') target = state.root;
  else if (fragment.startsWith('/')) target = atPointer(state.root, fragment);
  else target = anchorsOf(state).get(fragment);
  if (target === undefined || (typeof target !== 'boolean' && !isPlainObject(target))) {
    const defined = DEFINITION_KEYWORDS.flatMap((key) =>
      isPlainObject(state.root[key]) ? Object.keys(state.root[key]).map((name) => `#/${key}/${name}`) : [],
    );
    throw new ToolDefinitionError(
      `The parameters of tool '${state.toolName}' refer to '${ref}', which their schema does not define; ${defined.length ? `it defines ${defined.map((d) => `'${d}'`).join(', ')}` : 'it defines nothing to refer to'}.`,
      state.toolName,
    );
  }
  return target;
}

function atPointer(root: unknown, pointer: string): unknown {
  let node: unknown = root;
  for (const raw of pointer.slice(1).split('/')) {
    const part = raw.replaceAll('~1', '/').replaceAll('~0', '~');
    if (Array.isArray(node)) node = node[Number(part)];
    else if (isPlainObject(node) && Object.hasOwn(node, part)) node = node[part];
    else return undefined;
  }
  return node;
}

/** Every `$anchor` (and draft-7 `$id: '#name'`) in the schema, found once. */
function anchorsOf(state: WalkState): Map<string, unknown> {
  if (state.anchors) return state.anchors;
  const anchors = new Map<string, unknown>();
  const stack: unknown[] = [state.root];
  while (stack.length) {
    const node = stack.pop();
    if (Array.isArray(node)) stack.push(...node);
    if (!isPlainObject(node)) continue;
    if (typeof node.$anchor === 'string') anchors.set(node.$anchor, node);
    if (typeof node.$id === 'string' && node.$id.startsWith('#')) anchors.set(node.$id.slice(1), node);
    for (const [key, value] of Object.entries(node)) {
      if (!isSchemaKeyword(key)) continue;
      stack.push(SCHEMA_MAPS.has(key) || key === '$defs' || key === 'definitions' ? Object.values(value as object) : value);
    }
  }
  state.anchors = anchors;
  return anchors;
}

/**
 * A definition with the referrer's own keywords: annotations override, other keywords join where the
 * definition lacks them; a keyword both set differently keeps both schemas under `allOf`.
 */
function merge(target: unknown, referrer: Record<string, unknown>): unknown {
  if (Object.keys(referrer).length === 0) return target;
  if (!isPlainObject(target)) return { ...referrer, allOf: [...asList(referrer.allOf), target] };
  const conflict = Object.keys(referrer).some((key) => !ANNOTATIONS.has(key) && key in target && JSON.stringify(target[key]) !== JSON.stringify(referrer[key]));
  if (conflict) return { ...referrer, allOf: [...asList(referrer.allOf), target] };
  return { ...target, ...referrer };
}

/** `{ allOf: [X], default }` (how older pydantic and zod wrap a reference) as one schema, when they agree. */
function unwrapSingleAllOf(node: Record<string, unknown>): Record<string, unknown> {
  const { allOf, ...rest } = node;
  if (!Array.isArray(allOf) || allOf.length !== 1 || !isPlainObject(allOf[0])) return node;
  const merged = merge(allOf[0], rest);
  return isPlainObject(merged) && !('allOf' in merged && merged.allOf !== (allOf[0] as Record<string, unknown>).allOf) ? merged : node;
}

function asList(value: unknown): unknown[] {
  return Array.isArray(value) ? value : [];
}

function escapePointer(name: string): string {
  return name.replaceAll('~', '~0').replaceAll('/', '~1');
}

function safeDecode(text: string): string {
  try {
    return decodeURIComponent(text);
  } catch {
    return text;
  }
}
