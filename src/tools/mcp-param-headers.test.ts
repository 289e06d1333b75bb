import { describe, expect, it } from 'vitest';
import { invalidHeaderDeclaration } from './mcp-param-headers.ts';

const withProperty = (property: Record<string, unknown>) => ({ type: 'object', properties: { value: property } });

describe('x-mcp-header declarations (MCP 2026-07-28, SEP-2243)', () => {
  it('takes a schema without marks, and marks on string, integer and boolean properties at any depth through properties', () => {
    expect(invalidHeaderDeclaration({ type: 'object', properties: { q: { type: 'string' } } })).toBeUndefined();
    expect(
      invalidHeaderDeclaration({
        type: 'object',
        properties: {
          region: { type: 'string', 'x-mcp-header': 'Region' },
          priority: { type: 'integer', 'x-mcp-header': 'Priority' },
          options: { type: 'object', properties: { verbose: { type: 'boolean', 'x-mcp-header': 'Verbose' } } },
        },
      }),
    ).toBeUndefined();
  });

  it.each([
    ['an empty name', withProperty({ type: 'string', 'x-mcp-header': '' }), /non-empty string/],
    ['a name with a space', withProperty({ type: 'string', 'x-mcp-header': 'My Header' }), /RFC 9110/],
    ['a name with a colon', withProperty({ type: 'string', 'x-mcp-header': 'A:B' }), /RFC 9110/],
    ['a name outside ASCII', withProperty({ type: 'string', 'x-mcp-header': 'Régión' }), /RFC 9110/],
    ['a number property', withProperty({ type: 'number', 'x-mcp-header': 'Score' }), /string, integer or boolean.*"number"/],
    ['an object property', withProperty({ type: 'object', 'x-mcp-header': 'Data' }), /"object"/],
    ['an array property', withProperty({ type: 'array', items: { type: 'string' }, 'x-mcp-header': 'Items' }), /"array"/],
    ['a property with no type', withProperty({ 'x-mcp-header': 'Any' }), /null/],
    ['a mark on the schema itself', { type: 'object', 'x-mcp-header': 'Root', properties: {} }, /reached through "properties" alone/],
    ['a mark under items', withProperty({ type: 'array', items: { type: 'string', 'x-mcp-header': 'Item' } }), /under items/],
    ['a mark under anyOf', withProperty({ anyOf: [{ type: 'string', 'x-mcp-header': 'Either' }] }), /under anyOf/],
    ['a mark in $defs', { type: 'object', properties: {}, $defs: { a: { type: 'string', 'x-mcp-header': 'Def' } } }, /under \$defs/],
    [
      'the same name twice, in another case',
      { type: 'object', properties: { a: { type: 'string', 'x-mcp-header': 'MyField' }, b: { type: 'string', 'x-mcp-header': 'myfield' } } },
      /declared twice/,
    ],
  ])('refuses %s, naming the rule', (_what, schema, reason) => {
    expect(invalidHeaderDeclaration(schema)).toMatch(reason);
  });
});
