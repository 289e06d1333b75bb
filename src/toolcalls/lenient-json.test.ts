import { describe, expect, it } from 'vitest';
import { decodeJsonLiteral, isPlainObject, parseLenientJson } from './lenient-json.ts';

describe('parseLenientJson', () => {
  it('parses valid JSON as is', () => {
    expect(parseLenientJson(' {"a": [1, "x"]} ')).toEqual({ a: [1, 'x'] });
  });

  it('repairs what small models get wrong', () => {
    expect(parseLenientJson('{"name": "get_weather", "arguments": {"city": "Paris"')).toEqual({ name: 'get_weather', arguments: { city: 'Paris' } });
    expect(parseLenientJson('{"city": "Paris",},')).toEqual({ city: 'Paris' });
    expect(parseLenientJson("{'city': 'Paris', 'metric': True, 'unit': None}")).toEqual({ city: 'Paris', metric: true, unit: null });
  });

  it('gives undefined for nothing and for hopeless text', () => {
    expect(parseLenientJson('   ')).toBeUndefined();
    expect(parseLenientJson('{"a": 1} {"b": 2}')).toBeUndefined();
  });
});

describe('decodeJsonLiteral', () => {
  it('decodes whole JSON numbers, booleans, null, arrays and objects', () => {
    expect(decodeJsonLiteral('5')).toBe(5);
    expect(decodeJsonLiteral(' -2.5e3 ')).toBe(-2500);
    expect(decodeJsonLiteral('true')).toBe(true);
    expect(decodeJsonLiteral('false')).toBe(false);
    expect(decodeJsonLiteral('null')).toBeNull();
    expect(decodeJsonLiteral('["a", 1]')).toEqual(['a', 1]);
    expect(decodeJsonLiteral('{"k": "v"}')).toEqual({ k: 'v' });
  });

  it('keeps everything else as the original string', () => {
    for (const text of ['rust jobs', '0123', '"quoted"', '5 apples', '[broken', 'True', ' Paris ']) expect(decodeJsonLiteral(text)).toBe(text);
  });
});

describe('isPlainObject', () => {
  it('is true only for non-null, non-array objects', () => {
    expect(isPlainObject({})).toBe(true);
    expect(isPlainObject([])).toBe(false);
    expect(isPlainObject(null)).toBe(false);
    expect(isPlainObject('x')).toBe(false);
  });
});
