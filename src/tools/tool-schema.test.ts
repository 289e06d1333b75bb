import { describe, expect, it } from 'vitest';
import { ToolDefinitionError } from './errors.ts';
import { assertToolName, expandParameters, promptParameters } from './tool-schema.ts';

describe('expandParameters', () => {
  it('expands every shorthand type name to { type }', () => {
    const schema = expandParameters('t', {
      city: 'string',
      days: 'integer',
      lat: 'number',
      metric: 'boolean',
      extra: 'object',
      list: 'array',
    });
    expect(schema).toEqual({
      type: 'object',
      properties: {
        city: { type: 'string' },
        days: { type: 'integer' },
        lat: { type: 'number' },
        metric: { type: 'boolean' },
        extra: { type: 'object' },
        list: { type: 'array' },
      },
      required: ['city', 'days', 'lat', 'metric', 'extra', 'list'],
    });
  });

  it("expands 'T[]' to an array of T", () => {
    expect(expandParameters('t', { tags: 'string[]', scores: 'number[]' }).properties).toEqual({
      tags: { type: 'array', items: { type: 'string' } },
      scores: { type: 'array', items: { type: 'number' } },
    });
  });

  it('passes a full property object through, expanding shorthand nested in items and properties', () => {
    const schema = expandParameters(
      'search',
      {
        q: 'string',
        limit: { type: 'number', description: 'max results', minimum: 1 },
        filters: { type: 'object', properties: { lang: 'string' } },
        ids: { type: 'array', items: 'integer' },
      },
      ['q'],
    );
    expect(schema.properties).toEqual({
      q: { type: 'string' },
      limit: { type: 'number', description: 'max results', minimum: 1 },
      filters: { type: 'object', properties: { lang: { type: 'string' } } },
      ids: { type: 'array', items: { type: 'integer' } },
    });
    expect(schema.required).toEqual(['q']);
  });

  it('accepts a complete { type: object, properties, required } schema, as OpenAI writes parameters', () => {
    const schema = expandParameters('w', {
      type: 'object',
      properties: { city: { type: 'string' }, unit: { type: 'string', enum: ['c', 'f'] } },
      required: ['city'],
      additionalProperties: false,
    });
    expect(schema).toEqual({
      type: 'object',
      properties: { city: { type: 'string' }, unit: { type: 'string', enum: ['c', 'f'] } },
      required: ['city'],
      additionalProperties: false,
    });
  });

  it('treats no parameters as an empty object schema', () => {
    expect(expandParameters('t', {})).toEqual({ type: 'object', properties: {}, required: [] });
    expect(expandParameters('t', undefined)).toEqual({ type: 'object', properties: {}, required: [] });
  });

  it('returns a frozen copy and never freezes the caller’s objects', () => {
    const units = ['c', 'f'];
    const schema = expandParameters('t', { unit: { type: 'string', enum: units } });
    expect(Object.isFrozen(schema)).toBe(true);
    expect(Object.isFrozen(schema.properties.unit)).toBe(true);
    expect(Object.isFrozen(units)).toBe(false);
  });

  it('names the parameter and lists the allowed types for an unknown type', () => {
    expect(() => expandParameters('get_weather', { city: 'strng' })).toThrow(
      "Unknown type 'strng' for parameter 'city' of tool 'get_weather'. Use one of: string, number, integer, boolean, array, object (or an array of one, such as 'string[]').",
    );
    expect(() => expandParameters('t', { n: { type: 'float' } })).toThrow("Unknown type 'float' for parameter 'n'");
    expect(() => expandParameters('t', { list: 'array[]' })).toThrow("Unknown type 'array[]' for parameter 'list'");
    expect(() => expandParameters('t', { tags: { type: 'array', items: 'text' } })).toThrow("Unknown type 'text' for parameter 'tags[]'");
  });

  it('rejects a parameter that is neither a type name nor a schema', () => {
    expect(() => expandParameters('t', { n: 5 })).toThrow(
      "Parameter 'n' of tool 't' must be a type name such as 'string' or a schema such as { type: 'string', description: '…' }, got the number 5.",
    );
  });

  it('rejects parameters that are not an object', () => {
    expect(() => expandParameters('t', ['city'])).toThrow("Parameters of tool 't' must be an object such as { city: 'string' }, got an array.");
    expect(() => expandParameters('t', 'city')).toThrow(ToolDefinitionError);
  });

  it('rejects an empty enum', () => {
    expect(() => expandParameters('t', { unit: { type: 'string', enum: [] } })).toThrow(
      "The enum of parameter 'unit' of tool 't' must be a non-empty array of allowed values",
    );
  });

  it('rejects a required entry that is not a parameter, listing the parameters', () => {
    expect(() => expandParameters('search', { query: 'string', limit: 'number' }, ['q'])).toThrow(
      "The required option of tool 'search' lists 'q', which is not one of its parameters; its parameters are: query, limit.",
    );
    expect(() => expandParameters('ping', {}, ['host'])).toThrow("lists 'host', which is not one of its parameters; it has no parameters.");
    expect(() => expandParameters('t', { q: 'string' }, 'q')).toThrow(
      "The required option of tool 't' must be an array of parameter names, such as ['city'], got the string \"q\".",
    );
  });
});

describe('assertToolName', () => {
  it.each(['get_weather', 'getWeather', '_private', 'search-web', 'a', 'x'.repeat(64)])('accepts %s', (name) => {
    expect(() => assertToolName(name)).not.toThrow();
  });

  it.each(['get weather', '1tool', '-x', '', 'wetter.jetzt', 'x'.repeat(65), 'météo'])('rejects %j, saying what is allowed', (name) => {
    expect(() => assertToolName(name)).toThrow(
      `Tool name '${name}' is not valid: use 1 to 64 letters, digits, '_' or '-', starting with a letter or '_' (for example 'get_weather').`,
    );
  });

  it('rejects a name that is not a string', () => {
    expect(() => assertToolName(42)).toThrow("A tool name must be a string, got the number 42. Pass a name such as 'get_weather'");
  });
});

describe('promptParameters', () => {
  it('drops what only a validator needs, at every depth, and keeps properties named like keywords (issue 42)', () => {
    const zodLike = {
      $schema: 'https://json-schema.org/draft/2020-12/schema',
      type: 'object',
      properties: {
        $schema: { type: 'string' },
        place: { type: 'object', properties: { city: { type: 'string' } }, required: ['city'], additionalProperties: false },
        tags: { type: 'array', items: { type: 'object', properties: { k: { type: 'string' } }, additionalProperties: false } },
        n: { type: 'integer', minimum: Number.MIN_SAFE_INTEGER, maximum: Number.MAX_SAFE_INTEGER },
        pct: { type: 'number', minimum: 0, maximum: 100 },
        extra: { type: 'object', additionalProperties: { type: 'string' } },
      },
      required: ['place'],
      additionalProperties: false,
    };
    expect(promptParameters(zodLike)).toEqual({
      type: 'object',
      properties: {
        $schema: { type: 'string' },
        place: { type: 'object', properties: { city: { type: 'string' } }, required: ['city'] },
        tags: { type: 'array', items: { type: 'object', properties: { k: { type: 'string' } } } },
        n: { type: 'integer' },
        pct: { type: 'number', minimum: 0, maximum: 100 },
        extra: { type: 'object', additionalProperties: { type: 'string' } },
      },
      required: ['place'],
    });
  });
});
