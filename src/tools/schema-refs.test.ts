import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { ToolDefinitionError } from './errors.ts';
import { hasSchemaRefs, inlineSchemaRefs } from './schema-refs.ts';
import { ToolRegistry } from './tool-registry.ts';

const inline = (schema: Record<string, unknown>) => inlineSchemaRefs(schema, { toolName: 't' });

describe('inlineSchemaRefs', () => {
  it('writes out a reference beside annotations: the referrer’s default and description win, the definitions go', () => {
    const out = inline({
      type: 'object',
      $defs: { Unit: { type: 'string', enum: ['c', 'f'], description: 'A unit.' } },
      properties: { unit: { $ref: '#/$defs/Unit', default: 'c', description: 'Which unit.' } },
    });
    expect(out).toEqual({ type: 'object', properties: { unit: { type: 'string', enum: ['c', 'f'], default: 'c', description: 'Which unit.' } } });
  });

  it('unwraps a one-element allOf (older pydantic, the SDK’s zod), and keeps both where they disagree', () => {
    const defs = { definitions: { N: { type: 'integer', minimum: 1 } } };
    expect(inline({ type: 'object', ...defs, properties: { n: { allOf: [{ $ref: '#/definitions/N' }], default: 3 } } })).toEqual({
      type: 'object',
      properties: { n: { type: 'integer', minimum: 1, default: 3 } },
    });
    // minimum 5 and minimum 1 both hold: nothing is loosened by the merge.
    expect(inline({ type: 'object', ...defs, properties: { n: { $ref: '#/definitions/N', minimum: 5 } } })).toEqual({
      type: 'object',
      properties: { n: { minimum: 5, allOf: [{ type: 'integer', minimum: 1 }] } },
    });
  });

  it('follows pointers with escapes, anchors, the root, and references inside definitions', () => {
    const out = inline({
      type: 'object',
      $defs: { 'a/b': { type: 'string' }, 'c~d': { $ref: '#/$defs/a~1b' }, named: { $anchor: 'Named', type: 'boolean' } },
      properties: { one: { $ref: '#/$defs/c~0d' }, two: { $ref: '#Named' }, three: { $ref: '#/%24defs/a~1b' } },
    });
    expect(out.properties).toEqual({ one: { type: 'string' }, two: { $anchor: 'Named', type: 'boolean' }, three: { type: 'string' } });
  });

  it('keeps a recursive reference, with the definitions it needs; the rest is written out', () => {
    const out = inline({
      type: 'object',
      $defs: { Node: { type: 'object', properties: { label: { type: 'string' }, next: { $ref: '#/$defs/Node' } } } },
      properties: { head: { $ref: '#/$defs/Node' }, self: { $ref: '#' } },
    });
    expect(out.properties).toMatchObject({
      head: { type: 'object', properties: { label: { type: 'string' }, next: { $ref: '#/$defs/Node' } } },
      self: { type: 'object', properties: { self: { $ref: '#' } } },
    });
    expect(out.$defs).toHaveProperty(['Node', 'properties', 'next', '$ref'], '#/$defs/Node');
  });

  it('leaves data alone: a "$ref" key inside a default, an enum or a const is a value, not a reference', () => {
    const schema = { type: 'object', properties: { doc: { type: 'object', default: { $ref: 'x' }, const: { $ref: 'y' } } } };
    expect(hasSchemaRefs(schema)).toBe(false);
    expect(inline(schema)).toEqual(schema);
  });

  it('refuses, naming the problem: a reference outside the schema, to nothing it defines, or one that grows without bound', () => {
    expect(() => inline({ type: 'object', properties: { a: { $ref: 'https://example.invalid/a.json' } } })).toThrow(
      /refer to 'https:\/\/example.invalid\/a.json', outside their own schema; only references inside it \(such as '#\/\$defs\/Item'\) are followed/,
    );
    expect(() => inline({ type: 'object', $defs: { A: {} }, properties: { a: { $ref: '#/$defs/B' } } })).toThrow(
      "refer to '#/$defs/B', which their schema does not define; it defines '#/$defs/A'",
    );
    // Each definition uses the next twice: 2^30 copies if written out.
    const $defs: Record<string, unknown> = { D30: { type: 'string' } };
    for (let i = 0; i < 30; i++) $defs[`D${i}`] = { type: 'object', properties: { l: { $ref: `#/$defs/D${i + 1}` }, r: { $ref: `#/$defs/D${i + 1}` } } };
    expect(() => inline({ type: 'object', $defs, properties: { root: { $ref: '#/$defs/D0' } } })).toThrow(ToolDefinitionError);
    expect(() => inline({ type: 'object', $defs, properties: { root: { $ref: '#/$defs/D0' } } })).toThrow(/grow past 32,000 characters/);
  });

  it('measures the schema as the model will read it: the text its references copy, not only its parts (issue 67, M3)', () => {
    // 25 KB as published, 190 parts once followed, but each copies a 2,000-character description: 8 MB written out.
    const $defs: Record<string, unknown> = { D11: { type: 'string', description: 'd'.repeat(2_000) } };
    for (let i = 0; i < 11; i++) {
      $defs[`D${i}`] = { type: 'object', description: 'd'.repeat(2_000), properties: { l: { $ref: `#/$defs/D${i + 1}` }, r: { $ref: `#/$defs/D${i + 1}` } } };
    }
    const schema = { type: 'object', $defs, properties: { root: { $ref: '#/$defs/D0' } } };
    expect(JSON.stringify(schema).length).toBeLessThan(32_000);
    expect(() => inline(schema)).toThrow(
      "The parameters of tool 't' grow past 32,000 characters once their references are followed; define the tool with a smaller schema.",
    );
    // The same shape, three doublings with short descriptions, is written out whole.
    const few: Record<string, unknown> = { D3: { type: 'string', description: 'd' } };
    for (let i = 0; i < 3; i++)
      few[`D${i}`] = { type: 'object', description: 'd', properties: { l: { $ref: `#/$defs/D${i + 1}` }, r: { $ref: `#/$defs/D${i + 1}` } } };
    const written = inline({ type: 'object', $defs: few, properties: { root: { $ref: '#/$defs/D0' } } });
    expect(JSON.stringify(written)).not.toContain('$ref');
    expect(JSON.stringify(written).match(/"type":"string"/g)).toHaveLength(8);
  });
});

describe('a registered tool’s schema, whatever keywords it uses (issue 53)', () => {
  it('registers a zod 4 schema with shared ids (as the AI SDK and MCP servers convert it), written out for the model', () => {
    const Point = z.object({ x: z.number(), y: z.number() }).meta({ id: 'Point' });
    const parameters = z.toJSONSchema(z.object({ from: Point, to: Point }));
    const registry = new ToolRegistry();
    registry.tool('line', 'Draws a line.', parameters as never, (args) => args);
    const shown = registry.schemas[0]?.function.parameters;
    expect(JSON.stringify(shown)).not.toContain('$ref');
    expect(shown?.properties.to).toEqual({ type: 'object', properties: { x: { type: 'number' }, y: { type: 'number' } }, required: ['x', 'y'] });
  });

  it('checks anyOf, oneOf, allOf, const, formats and 2020-12 keywords, and coerces through them', async () => {
    const registry = new ToolRegistry();
    registry.tool(
      'book',
      'Books a slot.',
      {
        type: 'object',
        properties: {
          kind: { const: 'slot' },
          when: { type: 'string', format: 'date' },
          email: { type: 'string', format: 'email' },
          size: {
            oneOf: [
              { type: 'integer', maximum: 4 },
              { type: 'string', enum: ['large'] },
            ],
          },
          pair: { type: 'array', prefixItems: [{ type: 'string' }, { type: 'integer' }], items: false },
          note: { anyOf: [{ type: 'string' }, { type: 'null' }] },
          extra: { type: 'object', properties: { a: { type: 'string' } }, dependentRequired: { a: ['b'] } },
        },
        required: ['kind', 'when'],
      } as never,
      (args) => args,
    );
    const ok = await registry.runTool('book', { kind: 'slot', when: '2026-12-06', email: 'ada@example.com', size: 3, pair: ['a', 1] });
    expect(ok).toMatchObject({ ok: true });
    const bad = await registry.runTool('book', { kind: 'other', when: 'tomorrow', email: 'nope', size: 9, pair: ['a', 1, 2] });
    expect(bad.ok).toBe(false);
    const error = bad.ok ? '' : bad.error;
    for (const name of ['kind', 'when', 'email']) expect(error).toContain(`'${name}'`);
  });

  it('refuses at registration a schema the validator cannot use, naming the reference, instead of failing every call', () => {
    const registry = new ToolRegistry();
    expect(() => registry.tool('bad', 'Bad.', { item: { $ref: '#/$defs/Missing' } } as never, () => 1)).toThrow(
      /The parameters of tool 'bad' refer to '#\/\$defs\/Missing', which their schema does not define/,
    );
    expect(registry.has('bad')).toBe(false);
  });
});
