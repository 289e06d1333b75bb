import { describe, expect, it } from 'vitest';
import { parseToolCalls } from './parse-tool-calls.ts';

const paris = { name: 'get_weather', arguments: { city: 'Paris' } };

describe('OpenAI-shaped JSON', () => {
  it('reads {"function": …}, {"type": "function", "function": …} and {"tool_calls": [...]}', () => {
    expect(parseToolCalls('{"function": {"name": "get_weather", "arguments": {"city": "Paris"}}}').calls).toEqual([paris]);
    expect(parseToolCalls('{"type": "function", "function": {"name": "get_weather", "arguments": "{\\"city\\": \\"Paris\\"}"}}').calls).toEqual([paris]);
    expect(
      parseToolCalls(
        '{"role": "assistant", "content": null, "tool_calls": [{"id": "call_1", "type": "function", "function": {"name": "get_weather", "arguments": "{\\"city\\": \\"Paris\\"}"}}]}',
      ).calls,
    ).toEqual([paris]);
  });

  it('reads an array of envelopes', () => {
    expect(parseToolCalls('[{"type": "function", "function": {"name": "get_weather", "arguments": {"city": "Paris"}}}]').calls).toEqual([paris]);
  });

  it('does not take a tool definition for a call', () => {
    const definition =
      '{"type": "function", "function": {"name": "get_weather", "description": "Weather", "parameters": {"type": "object", "properties": {}}}}';
    expect(parseToolCalls(definition)).toEqual({ calls: [], text: definition, rejected: [] });
  });

  it('is read inside explicit markup too', () => {
    expect(parseToolCalls('<tool_call>{"function": {"name": "get_weather", "arguments": {"city": "Paris"}}}</tool_call>').calls).toEqual([paris]);
  });
});
