import { describe, expect, it } from 'vitest';
import { parseToolCalls } from './parse-tool-calls.ts';
import { ToolCallStreamFilter } from './stream-filter.ts';

/** The text a user sees when `raw` streams one character at a time. */
function streamed(raw: string): string {
  const filter = new ToolCallStreamFilter();
  let text = '';
  for (const ch of raw) text += filter.push(ch).text;
  return text + filter.end().text;
}

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

  it('removes the closing debris a model leaves right after a call, in the text and in the stream (issue 13)', () => {
    const cases: [string, string][] = [
      ['{"name": "get_weather", "arguments": {"city": "Paris"}}"}}', ''],
      ['{"name": "get_weather", "arguments": {"city": "Paris"}}}\nIt is sunny.', 'It is sunny.'],
      ['<tool_call>\n{"name": "get_weather", "arguments": {"city": "Paris"}}\n</tool_call>"}} Done.', 'Done.'],
    ];
    for (const [raw, text] of cases) {
      const result = parseToolCalls(raw);
      expect(result.calls).toEqual([{ name: 'get_weather', arguments: { city: 'Paris' } }]);
      expect(result.text).toBe(text);
      expect(streamed(raw)).toBe(text);
    }
  });

  it('leaves closers that are prose or templates alone: not right after a call, or opening quoted words', () => {
    for (const raw of ['He said "}} hi"', '{{ name }} and {{ city }}', 'Use `{"a": 1}}`.']) expect(parseToolCalls(raw).text).toBe(raw);
    expect(parseToolCalls('{"name": "get_weather", "arguments": {"city": "Paris"}} "quoted" words').text).toBe('"quoted" words');
  });

  it('removes the tail of a call the output began inside, in the text and in the stream (issue 30, P3)', () => {
    const cases: [string, string][] = [
      ['get_weather", "arguments": {"city": "Paris"}}\n</tool_call>', ''],
      ['"city": "Paris"}}\n</tool_call>\nIt is sunny in Paris.', 'It is sunny in Paris.'],
      ['Paris"}}', ''],
      ['\n\n", "arguments": {"city": "New York"}}</tool_call> It is 20 °C.', 'It is 20 °C.'],
      ['"}}\nDone.', 'Done.'],
    ];
    for (const [raw, text] of cases) {
      const result = parseToolCalls(raw, { tools: ['get_weather'] });
      expect(result.calls, raw).toEqual([]);
      expect(result.text, raw).toBe(text);
      expect(
        result.rejected?.map((r) => r.reason),
        raw,
      ).toEqual(['unparseable']);
      expect(streamed(raw), raw).toBe(text);
    }
  });

  it('keeps answers that only look like a call tail, and holds an answer back one word at most', () => {
    for (const raw of ['He said "hi" and {left}}', 'Use `{"a": 1}}` here.', '"Hello," she said.', '{"name": "Alice"}', '{{ name }}'])
      expect(parseToolCalls(raw).text, raw).toBe(raw);
    const filter = new ToolCallStreamFilter();
    expect(filter.push('Sunny').text).toBe('');
    expect(filter.push(' today').text).toBe('Sunny today');
    // A closing run at the end is held until it is known to close something (or the output ends).
    expect(filter.push(' "yes"}}').text).toBe(' "yes');
    expect(filter.push(' indeed').text).toBe('"}} indeed');
  });

  it('drops a run of closers that ends an answer and closes nothing: JSON debris, not prose (issue 44)', () => {
    for (const [raw, text] of <[string, string][]>[
      ['It is sunny."}}', 'It is sunny.'],
      ['x = f(y)}}', 'x = f(y)'],
      ['Results:\n"a": 1}}', 'Results:\n"a": 1'],
      ['It is 4 °C."}}<|im_end|>', 'It is 4 °C.'],
      ['He said "yes"}}', 'He said "yes"'],
    ]) {
      expect(parseToolCalls(raw).text, raw).toBe(text);
      expect(streamed(raw), raw).toBe(text);
    }
  });

  it('ends an answer where the model began writing the next turn itself (issue 44)', () => {
    for (const [raw, text] of <[string, string][]>[
      ['Hello there.<|im_end|>\n<|im_start|>user\nmore', 'Hello there.'],
      ['Hi.<|eot_id|><|start_header_id|>user<|end_header_id|>\n\nAnd you?', 'Hi.'],
      ['Hi.<end_of_turn>\n<start_of_turn>user\nmore', 'Hi.'],
    ]) {
      expect(parseToolCalls(raw).text, raw).toBe(text);
      expect(streamed(raw), raw).toBe(text);
    }
  });
});
