import { describe, expect, it } from 'vitest';
import { parseToolCalls } from './parse-tool-calls.ts';

describe('markup residue', () => {
  it('removes an empty or dangling <tool_call>', () => {
    expect(parseToolCalls('Let me check.\n<tool_call>')).toEqual({ calls: [], text: 'Let me check.', rejected: [] });
    expect(parseToolCalls('within <tool_call></tool_call> tags')).toEqual({ calls: [], text: 'within  tags', rejected: [] });
  });

  it('reads a call expression inside <tool_call>', () => {
    expect(parseToolCalls('<tool_call>get_weather(city="Paris")</tool_call>').calls).toEqual([{ name: 'get_weather', arguments: { city: 'Paris' } }]);
  });

  it('reports garbage inside <tool_call>, and removes it up to the end of its paragraph only', () => {
    const result = parseToolCalls('I use <tool_call> tags for calls.\n\nSecond paragraph.');
    expect(result.text).toBe('I use \n\nSecond paragraph.');
    expect(result.rejected?.map((r) => r.reason)).toEqual(['unparseable']);
  });

  it('removes a stray </tool_call>', () => {
    expect(parseToolCalls('Done.</tool_call>')).toEqual({ calls: [], text: 'Done.', rejected: [] });
  });

  it('leaves markup written as inline code alone', () => {
    const raw = 'Wrap the JSON in `<tool_call>` and `</tool_call>` tags.';
    expect(parseToolCalls(raw)).toEqual({ calls: [], text: raw, rejected: [] });
  });
});
