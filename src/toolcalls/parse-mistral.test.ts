import { describe, expect, it } from 'vitest';
import { parseToolCalls } from './parse-tool-calls.ts';

const paris = { name: 'get_weather', arguments: { city: 'Paris' } };

describe('Mistral [TOOL_CALLS]', () => {
  it('reads the v3 array, and a single object', () => {
    expect(parseToolCalls('[TOOL_CALLS] [{"name": "get_weather", "arguments": {"city": "Paris"}, "id": "a1b2c3d4e"}]').calls).toEqual([paris]);
    expect(parseToolCalls('[TOOL_CALLS]{"name": "get_weather", "arguments": {"city": "Paris"}}').calls).toEqual([paris]);
  });

  it('reads the v11 name[ARGS]{…} layout, repeated, and with a call id', () => {
    expect(parseToolCalls('[TOOL_CALLS]get_weather[ARGS]{"city": "Paris"}[TOOL_CALLS]get_time[ARGS]{"city": "Rome"}').calls).toEqual([
      paris,
      { name: 'get_time', arguments: { city: 'Rome' } },
    ]);
    expect(parseToolCalls('[TOOL_CALLS]get_weather[CALL_ID]a1B2c3D4e[ARGS]{"city": "Paris"}').calls).toEqual([paris]);
  });

  it('reads string arguments and an unterminated object', () => {
    expect(parseToolCalls('[TOOL_CALLS] [{"name": "get_weather", "arguments": "{\\"city\\": \\"Paris\\"}"}]').calls).toEqual([paris]);
    expect(parseToolCalls('[TOOL_CALLS]get_weather[ARGS]{"city": "Paris"').calls).toEqual([paris]);
  });

  it('removes a marker that nothing readable follows, keeping the prose', () => {
    expect(parseToolCalls('[TOOL_CALLS]Sure, the weather is fine.')).toEqual({
      calls: [],
      text: 'Sure, the weather is fine.',
      rejected: [{ name: null, reason: 'unparseable', source: '[TOOL_CALLS]' }],
    });
  });

  it('rejects unreadable arguments by name', () => {
    expect(parseToolCalls('[TOOL_CALLS]get_weather[ARGS][1, 2]').rejected?.map((r) => [r.name, r.reason])).toEqual([['get_weather', 'invalid-arguments']]);
  });

  it('reads the array as bare JSON when the marker token was skipped in decoding', () => {
    expect(parseToolCalls('[{"name": "get_weather", "arguments": {"city": "Paris"}}]').calls).toEqual([paris]);
  });
});
