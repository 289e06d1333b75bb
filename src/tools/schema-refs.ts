import { ToolDefinitionError } from './errors.ts';
import { describeValue, isPlainObject, mapSubschemas } from './tool-schema.ts';

/** Where schemas keep the definitions their references point at (2019-09+, and draft 7 and before). */
const DEFINITIONS = ['$defs', 'definitions'];
/** Keywords that describe a value rather than constrain it: on a `$ref`'s side, the referrer's word wins. */
const ANNOTATIONS = new Set(['title', 'description', 'default', 'examples', 'deprecated', 'readOnly', 'writeOnly', '$comment']);

/**
 * How many schema nodes a tool's parameters may grow to once references are followed. A definition
 * used twice is copied twice; a chain of definitions each using the next twice doubles at every link,
 * so a small schema can ask for an unbounded copy. Ten thousand nodes is far past any real tool's.
 */
const MAX_NODES = 10_000;

/**
 * Characters a tool's parameters may grow to once references are followed: the schema as the model reads it. The
 * node bound alone let a 29 KB schema whose definitions double eleven times, each with a long description, grow
 * to 57.5 M characters (issue 67, M3), so the text is counted as it is copied, not only the parts.
 */
const MAX_EXPANDED_SCHEMA_CHARS = 32_000;

/** What {@link inlineSchemaRefs} needs beyond the schema. */
export interface InlineRefsOptions {
  /** The tool's name, quoted in errors. */
  readonly toolName: string;
}

interface Walk {
  readonly root: Record<string, unknown>;
  readonly fail: (why: string) => ToolDefinitionError;
  nodes: number;
  /** Characters copied so far: each node's own text (its keywords but its subschemas) every time it is written out. */
  chars: number;
  recursive: boolean;
  anchors?: Map<string, unknown>;
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
  const fail = (why: string) => new ToolDefinitionError(`The parameters of tool '${options.toolName}' ${why}`, options.toolName);
  const state: Walk = { root: schema, fail, nodes: 0, chars: 0, recursive: false };
  const out = walk(
    mapSubschemas(schema, (child) => child, isDefinitions),
    [],
    state,
  ) as Record<string, unknown>;
  // A recursive reference points into the definitions as published: they stay, resolved as far as they go.
  if (!state.recursive) return out;
  for (const key of DEFINITIONS) {
    const defs = schema[key];
    if (isPlainObject(defs)) out[key] = Object.fromEntries(Object.entries(defs).map(([name, def]) => [name, walk(def, [`#/${key}/${name}`], state)]));
  }
  return out;
}

/** True when a schema holds a reference anywhere (outside data such as `default`, `enum` or `const`). */
export function hasSchemaRefs(schema: unknown): boolean {
  let found = false;
  const visit = (node: unknown): unknown => {
    if (isPlainObject(node) && !found) {
      found = typeof node.$ref === 'string';
      mapSubschemas(node, visit);
    }
    return node;
  };
  visit(schema);
  return found;
}

const isDefinitions = (key: string) => DEFINITIONS.includes(key);

/** A node's own text as JSON, its subschemas left out (they are counted when walked), measured once per node. */
const ownCharsOf = new WeakMap<object, number>();
function ownChars(node: Record<string, unknown>): number {
  let chars = ownCharsOf.get(node);
  if (chars === undefined) {
    chars = JSON.stringify(mapSubschemas(node, () => 0, isDefinitions))?.length ?? 0;
    ownCharsOf.set(node, chars);
  }
  return chars;
}

/** One node, its references followed; `expanding` lists the references being followed above it. */
function walk(node: unknown, expanding: readonly string[], state: Walk): unknown {
  if (!isPlainObject(node)) return node;
  if (++state.nodes > MAX_NODES)
    throw state.fail(`grow past ${MAX_NODES.toLocaleString('en-US')} parts once their references are followed; define the tool with a smaller schema.`);
  state.chars += ownChars(node);
  if (state.chars > MAX_EXPANDED_SCHEMA_CHARS) {
    throw state.fail(
      `grow past ${MAX_EXPANDED_SCHEMA_CHARS.toLocaleString('en-US')} characters once their references are followed; define the tool with a smaller schema.`,
    );
  }
  const { $ref: ref, ...rest } = node;
  const own = mapSubschemas(rest, (child) => walk(child, expanding, state));
  if (ref === undefined) return Array.isArray(own.allOf) && own.allOf.length === 1 ? unwrap(own) : own;
  if (typeof ref !== 'string') throw state.fail(`have a $ref that is not text (${describeValue(ref)}); write one such as '#/$defs/Item'.`);
  if (expanding.includes(ref)) {
    state.recursive = true;
    return { $ref: ref, ...own };
  }
  return merge(walk(lookUp(ref, state), [...expanding, ref], state), own);
}

/** What a reference inside the schema points at: a JSON pointer from the root, or a named anchor. */
function lookUp(ref: string, state: Walk): unknown {
  if (!ref.startsWith('#')) throw state.fail(`refer to '${ref}', outside their own schema; only references inside it (such as '#/$defs/Item') are followed.`);
  let fragment = ref.slice(1);
  try {
    fragment = decodeURIComponent(fragment);
  } catch {
    // Not percent-encoded: read as written.
  }
  let target: unknown = state.root;
  if (fragment.startsWith('/')) {
    for (const part of fragment.slice(1).split('/')) {
      const key = part.replaceAll('~1', '/').replaceAll('~0', '~');
      target = isPlainObject(target) && Object.hasOwn(target, key) ? target[key] : Array.isArray(target) ? target[Number(key)] : undefined;
    }
  } else if (fragment) target = anchorsOf(state).get(fragment);
  if (typeof target === 'boolean' || isPlainObject(target)) return target;
  const defined = DEFINITIONS.flatMap((key) => Object.keys(isPlainObject(state.root[key]) ? state.root[key] : {}).map((name) => `'#/${key}/${name}'`));
  throw state.fail(
    `refer to '${ref}', which their schema does not define; ${defined.length ? `it defines ${defined.join(', ')}` : 'it defines nothing to refer to'}.`,
  );
}

/** Every `$anchor` (and draft-7 `$id: '#name'`) in the schema, found once. */
function anchorsOf(state: Walk): Map<string, unknown> {
  if (state.anchors) return state.anchors;
  const anchors = new Map<string, unknown>();
  const visit = (node: unknown): unknown => {
    if (!isPlainObject(node)) return node;
    const name = typeof node.$anchor === 'string' ? node.$anchor : typeof node.$id === 'string' && node.$id.startsWith('#') ? node.$id.slice(1) : undefined;
    if (name) anchors.set(name, node);
    return mapSubschemas(node, visit);
  };
  visit(state.root);
  state.anchors = anchors;
  return anchors;
}

/**
 * A definition with the referrer's own keywords: annotations override, other keywords join where the
 * definition lacks them; a keyword both set differently keeps both schemas under `allOf`.
 */
function merge(target: unknown, referrer: Record<string, unknown>): unknown {
  if (Object.keys(referrer).length === 0) return target;
  const agree =
    isPlainObject(target) &&
    Object.keys(referrer).every((key) => ANNOTATIONS.has(key) || !(key in target) || JSON.stringify(target[key]) === JSON.stringify(referrer[key]));
  return agree ? { ...target, ...referrer } : { ...referrer, allOf: [...(Array.isArray(referrer.allOf) ? referrer.allOf : []), target] };
}

/** `{ allOf: [X], default }` (how older pydantic and zod wrap a reference) as one schema, where they agree. */
function unwrap(node: Record<string, unknown>): Record<string, unknown> {
  const { allOf, ...rest } = node as { allOf: unknown[] };
  const merged = merge(allOf[0], rest);
  return isPlainObject(merged) && merged.allOf === (isPlainObject(allOf[0]) ? allOf[0].allOf : undefined) ? merged : node;
}
