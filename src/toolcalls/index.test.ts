import { describe, expect, it } from 'vitest';
import * as toolcalls from './index.ts';

describe('browser-llm-nexus/toolcalls', () => {
  it('exports the documented API, working', () => {
    const raw = '<think>hm</think>Checking.<tool_call>{"name": "get_weather", "arguments": {"city": "Paris"}}</tool_call>';
    expect(toolcalls.parseToolCalls(raw, { tools: ['get_weather'] })).toMatchObject({
      calls: [{ name: 'get_weather', arguments: { city: 'Paris' } }],
      text: 'Checking.',
    });
    expect(toolcalls.stripThinking(raw)).toBe('Checking.<tool_call>{"name": "get_weather", "arguments": {"city": "Paris"}}</tool_call>');
    const filter = new toolcalls.ToolCallStreamFilter({ tools: ['get_weather'] });
    const first = filter.push(raw.slice(0, 30));
    const rest = filter.push(raw.slice(30));
    expect(first.text + rest.text + filter.end().text).toBe('Checking.');
    expect([...first.calls, ...rest.calls].map((c) => c.name)).toEqual(['get_weather']);
    expect(toolcalls.TOOL_CALL_FORMATS.map((f) => f.id)).toContain('harmony');
    expect(toolcalls.LONGEST_MARKER).toBe(30);
  });
});
