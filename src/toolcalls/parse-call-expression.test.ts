import { describe, expect, it } from 'vitest';
import { parseCallExpression } from './parse-call-expression.ts';

describe('parseCallExpression', () => {
  it("reads Llama's tool.call(…), Gemma's print(default_api.tool(…)) and a plain call", () => {
    expect(parseCallExpression('brave_search.call(query="rust jobs")')).toEqual({ name: 'brave_search', arguments: { query: 'rust jobs' } });
    expect(parseCallExpression("print(default_api.get_weather(city='London', days=3))")).toEqual({
      name: 'get_weather',
      arguments: { city: 'London', days: 3 },
    });
    expect(parseCallExpression('get_time()')).toEqual({ name: 'get_time', arguments: {} });
  });

  it('reads Python literals and keeps commas inside strings and lists', () => {
    expect(parseCallExpression('f(a=True, b=None, c=[1, 2], d="x, y", e={"k": \'v\'})')).toEqual({
      name: 'f',
      arguments: { a: true, b: null, c: [1, 2], d: 'x, y', e: { k: 'v' } },
    });
  });

  it('refuses positional arguments and non-calls', () => {
    expect(parseCallExpression('get_weather("Paris")')).toBeUndefined();
    expect(parseCallExpression('just some words')).toBeUndefined();
    expect(parseCallExpression('get_weather(city="Paris") and more')).toBeUndefined();
  });
});
