import { describe, expect, it } from 'vitest';
import { parseToolCalls } from './parse-tool-calls.ts';

const paris = { name: 'get_weather', arguments: { city: 'Paris' } };

describe('Hermes / Qwen <tool_call> JSON', () => {
  it("reads Qwen3's layout", () => {
    expect(parseToolCalls('<tool_call>\n{"name": "get_weather", "arguments": {"city": "Paris"}}\n</tool_call>')).toEqual({
      calls: [paris],
      text: '',
      rejected: [],
    });
  });

  it('reads calls with no newlines, several in a row, with prose around', () => {
    const raw =
      'Checking both.<tool_call>{"name":"get_weather","arguments":{"city":"Paris"}}</tool_call><tool_call>{"name":"get_time","arguments":{"city":"Paris"}}</tool_call> One moment.';
    const result = parseToolCalls(raw);
    expect(result.calls.map((c) => c.name)).toEqual(['get_weather', 'get_time']);
    expect(result.text).toBe('Checking both. One moment.');
  });

  it('reads an array of calls inside one tag', () => {
    expect(parseToolCalls('<tool_call>[{"name": "a", "arguments": {}}, {"name": "b", "arguments": {"x": 1}}]</tool_call>').calls).toEqual([
      { name: 'a', arguments: {} },
      { name: 'b', arguments: { x: 1 } },
    ]);
  });

  it('recovers unterminated JSON, a missing closing tag, and the primed prefix completed', () => {
    expect(parseToolCalls('<tool_call>\n{"name": "get_weather", "arguments": {"city": "Paris"').calls).toEqual([paris]);
    expect(parseToolCalls('<tool_call>\n{"name": "get_weather", "arguments": {"city": "Paris"}}\n').calls).toEqual([paris]);
    expect(parseToolCalls('<tool_call>\n{"name": "' + 'get_weather", "arguments": {"city": "Paris"}}').calls).toEqual([paris]);
  });

  it('does not let a missing brace swallow the closing tag or the next call', () => {
    const raw =
      '<tool_call>\n{"name": "get_weather", "arguments": {"city": "Paris"}\n</tool_call>\nDone.<tool_call>{"name": "get_time", "arguments": {"city": "Rome"}\n<tool_call>{"name": "x", "arguments": {}}</tool_call>';
    const result = parseToolCalls(raw);
    expect(result.calls).toEqual([paris, { name: 'get_time', arguments: { city: 'Rome' } }, { name: 'x', arguments: {} }]);
    expect(result.text).toBe('Done.');
  });

  it('keeps prose written after the JSON inside the tag, and removes the stray closing tag', () => {
    const result = parseToolCalls('<tool_call>\n{"name": "get_weather", "arguments": {"city": "Paris"}} Checking now.\n</tool_call>');
    expect(result).toEqual({ calls: [paris], text: 'Checking now.', rejected: [] });
  });

  it('removes the markup of a call that cannot stand, and says why', () => {
    const result = parseToolCalls('Sure.\n<tool_call>\n{"name": <function-name>, "arguments": <args-json-object>}\n</tool_call>');
    expect(result.calls).toEqual([]);
    expect(result.text).toBe('Sure.');
    expect(result.rejected?.map((r) => r.reason)).toEqual(['placeholder']);
  });

  it('reports JSON that is not a call at all as unparseable', () => {
    const result = parseToolCalls('<tool_call>{"city": "Paris"}</tool_call>');
    expect(result.calls).toEqual([]);
    expect(result.rejected).toEqual([{ name: null, reason: 'unparseable', source: '<tool_call>{"city": "Paris"}</tool_call>' }]);
  });

  it('rejects a value cut off mid-string rather than sending a fragment', () => {
    expect(parseToolCalls('<tool_call>{"name": "get_weather", "arguments": {"city": "Par').rejected?.map((r) => r.reason)).toEqual(['truncated']);
  });
});
