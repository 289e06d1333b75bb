/**
 * A tool's `x-mcp-header` declarations (MCP 2026-07-28, Streamable HTTP, "Schema Extension"; SEP-2243): a
 * property so marked is mirrored into an `Mcp-Param-{name}` request header, so a gateway can route on it
 * without reading the body. The specification says a client must exclude a tool whose declarations break
 * its rules, so a malformed one never reaches the model: one bad tool must not cost the others.
 */

/** RFC 9110's `token` (section 5.6.2): what a header's name may be made of. */
const HEADER_TOKEN = /^[!#$%&'*+\-.^_`|~0-9A-Za-z]+$/;
/** The property types a header can carry as it is written in the body: `number` is excluded by the specification. */
const HEADER_TYPES = new Set(['string', 'integer', 'boolean']);
const MARK = 'x-mcp-header';

/**
 * Why a tool's input schema's `x-mcp-header` declarations are invalid, or undefined when they are valid
 * (or absent). A declaration must sit on a property reached through `properties` alone (not under `items`,
 * a combinator, a condition, a definition or `additionalProperties`), name a header in RFC 9110's token
 * characters, be on a string, integer or boolean property, and be unique ignoring case.
 *
 * @param inputSchema - the tool's input schema as the server listed it.
 */
export function invalidHeaderDeclaration(inputSchema: unknown): string | undefined {
  const seen = new Map<string, string>();
  // Walked with a stack, so a schema's depth cannot overflow the call stack. `path` is the chain of property
  // names from the root, or undefined once the walk left that chain (the only place a mark may be).
  const stack: { node: unknown; path: string[] | undefined; where: string }[] = [{ node: inputSchema, path: [], where: 'the schema' }];
  while (stack.length) {
    const { node, path, where } = stack.pop() as (typeof stack)[number];
    if (node === null || typeof node !== 'object' || Array.isArray(node)) {
      if (Array.isArray(node)) for (const item of node) stack.push({ node: item, path: undefined, where });
      continue;
    }
    const schema = node as Record<string, unknown>;
    if (MARK in schema) {
      const fault = markFault(schema, where, path !== undefined && path.length > 0, seen);
      if (fault) return fault;
    }
    for (const [key, child] of Object.entries(schema)) {
      if (!child || typeof child !== 'object') continue;
      if (key === 'properties' && path !== undefined && !Array.isArray(child)) {
        for (const [name, sub] of Object.entries(child as Record<string, unknown>))
          stack.push({ node: sub, path: [...path, name], where: [...path, name].join('.') });
      } else {
        // Anywhere else (items, anyOf, $defs, if/then, additionalProperties…) a mark is out of reach.
        stack.push({ node: child, path: undefined, where: `${where} (under ${key})` });
      }
    }
  }
  return undefined;
}

/** What is wrong with one marked property, if anything; records its header name for the uniqueness rule. */
function markFault(schema: Record<string, unknown>, where: string, property: boolean, seen: Map<string, string>): string | undefined {
  const header = schema[MARK];
  if (!property) return `${where}: x-mcp-header is allowed only on a property reached through "properties" alone`;
  if (typeof header !== 'string' || header === '') return `${where}: x-mcp-header must be a non-empty string`;
  if (!HEADER_TOKEN.test(header)) return `${where}: x-mcp-header ${JSON.stringify(header)} is not an HTTP header name (RFC 9110 token)`;
  const type = schema.type;
  if (typeof type !== 'string' || !HEADER_TYPES.has(type)) {
    return `${where}: x-mcp-header is allowed only on a string, integer or boolean property (this one is ${JSON.stringify(type ?? null)})`;
  }
  const earlier = seen.get(header.toLowerCase());
  if (earlier !== undefined) return `x-mcp-header ${JSON.stringify(header)} is declared twice (also as ${JSON.stringify(earlier)}; header names ignore case)`;
  seen.set(header.toLowerCase(), header);
  return undefined;
}
