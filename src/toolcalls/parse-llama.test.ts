import { describe, expect, it } from 'vitest';
import { parseToolCalls } from './parse-tool-calls.ts';

const paris = { name: 'get_weather', arguments: { city: 'Paris' } };

describe('Llama', () => {
  it('reads a bare object with parameters or arguments, and with "type": "function"', () => {
    expect(parseToolCalls('{"name": "get_weather", "parameters": {"city": "Paris"}}').calls).toEqual([paris]);
    expect(parseToolCalls('{"name": "get_weather", "arguments": {"city": "Paris"}}').calls).toEqual([paris]);
    expect(parseToolCalls('{"type": "function", "name": "get_weather", "parameters": {"city": "Paris"}}').calls).toEqual([paris]);
  });

  it('reads JSON after <|python_tag|>, several separated by semicolons, with the end token', () => {
    expect(parseToolCalls('<|python_tag|>{"name": "get_weather", "parameters": {"city": "Paris"}}<|eom_id|>')).toEqual({
      calls: [paris],
      text: '',
      rejected: [],
    });
    expect(parseToolCalls('<|python_tag|>{"name": "a", "parameters": {}}; {"name": "b", "parameters": {}}<|eot_id|>').calls.map((c) => c.name)).toEqual([
      'a',
      'b',
    ]);
  });

  it('reads the built-in tool call style after <|python_tag|>', () => {
    expect(parseToolCalls('<|python_tag|>brave_search.call(query="Menlo Park weather")').calls).toEqual([
      { name: 'brave_search', arguments: { query: 'Menlo Park weather' } },
    ]);
  });

  it('removes a python tag that nothing readable follows', () => {
    expect(parseToolCalls('<|python_tag|> 42 is the answer').text).toBe('42 is the answer');
  });

  it('accepts a bare call in the middle of a sentence when it is unmistakably one', () => {
    const result = parseToolCalls('Calling {"name": "get_weather", "parameters": {"city": "Paris"}} now.');
    expect(result).toEqual({ calls: [paris], text: 'Calling  now.', rejected: [] });
  });

  it('keeps prose after a bare call, even when the call lost a brace', () => {
    expect(parseToolCalls('{"name": "get_weather", "parameters": {"city": "Paris"}} Hope this helps!').text).toBe('Hope this helps!');
    expect(parseToolCalls('{"name": "get_weather", "parameters": {"city": "Paris"}\nHope this helps!')).toEqual({
      calls: [paris],
      text: 'Hope this helps!',
      rejected: [],
    });
  });
});
