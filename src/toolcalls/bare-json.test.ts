import { describe, expect, it } from 'vitest';
import { parseToolCalls } from './parse-tool-calls.ts';
import { ToolCallStreamFilter } from './stream-filter.ts';

const CALL = '{"name": "get_weather", "arguments": {"city": "Paris"}}';

describe('bare JSON acceptance', () => {
  const keep = (raw: string) => expect(parseToolCalls(raw), raw).toEqual({ calls: [], text: raw, rejected: [] });

  it('keeps data, explanations and examples as text', () => {
    keep('{"name": "Alice", "age": 3}');
    keep('In JSON, {"name": "Alice", "email": "a@example.com"} is an object.');
    keep('{"name": "function_name", "arguments": {"arg1": "value1"}}');
    keep('{"name": "NAME", "parameters": {}}');
    keep('{"name": "...", "arguments": {}}');
    keep('{"name": <function-name>, "arguments": <args-json-object>}');
    keep('{"name": "get_weather", "description": "Get the weather", "parameters": {"type": "object", "properties": {}}}');
    keep(`{"example": ${CALL}}`);
    keep(`Use \`${CALL}\` to call it.`);
    keep('Sets look like {1, 2, 3} and {a, b}.');
    keep('{"name": "get_weather"}');
  });

  it('does not extract a call nested inside data, even when the data arrives in pieces', () => {
    const raw = `{"log": [${CALL}], "ok": true} and ${CALL}`;
    const result = parseToolCalls(raw);
    expect(result.calls).toHaveLength(1);
    expect(result.text).toBe(`{"log": [${CALL}], "ok": true} and`);
  });

  it('removes a call-shaped object naming an unregistered tool, and reports it', () => {
    const result = parseToolCalls(`Here: ${CALL}`, { tools: ['get_time'] });
    expect(result.calls).toEqual([]);
    expect(result.text).toBe('Here:');
    expect(result.rejected?.map((r) => [r.name, r.reason])).toEqual([['get_weather', 'unregistered']]);
  });

  it('releases a data object from the stream at its first foreign key, before it closes', () => {
    const filter = new ToolCallStreamFilter();
    expect(filter.push('Record: {"name": "Alice", ').text).toBe('Record:');
    // Its closing quote waits for what follows it (a quote that may close nothing is held at the end).
    expect(filter.push('"age"').text).toBe(' {"name": "Alice", "age');
    expect(filter.push(': 3}').text).toBe('": 3');
    expect(filter.end().text).toBe('}');
  });
});
