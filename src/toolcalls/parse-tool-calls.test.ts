import { describe, expect, it } from 'vitest';
import { parseToolCalls } from './parse-tool-calls.ts';

const CALL = '{"name": "get_weather", "arguments": {"city": "Paris"}}';
const paris = { name: 'get_weather', arguments: { city: 'Paris' } };

describe('parseToolCalls', () => {
  it('returns the prose alone, trimmed, when there is no call', () => {
    expect(parseToolCalls('\n\n  Paris is mild in spring.  \n')).toEqual({ calls: [], text: 'Paris is mild in spring.', rejected: [] });
    expect(parseToolCalls('')).toEqual({ calls: [], text: '', rejected: [] });
  });

  it('strips thinking first, so a call written while thinking is never returned', () => {
    expect(parseToolCalls(`<think>I could call <tool_call>${CALL}</tool_call></think>No call needed.`)).toEqual({
      calls: [],
      text: 'No call needed.',
      rejected: [],
    });
    expect(parseToolCalls(`reasoning about ${CALL}\n</think>\n\nAnswer.`).calls).toEqual([]);
  });

  it('lets the first format in priority order take a stretch of text: JSON in <tool_call> is one Hermes call, not also a bare one', () => {
    expect(parseToolCalls(`<tool_call>${CALL}</tool_call>`).calls).toEqual([paris]);
    expect(parseToolCalls(`[TOOL_CALLS] [${CALL}]`).calls).toEqual([paris]);
    expect(parseToolCalls(`<|python_tag|>${CALL}`).calls).toEqual([paris]);
    expect(parseToolCalls(`\`\`\`json\n${CALL}\n\`\`\``).calls).toEqual([paris]);
  });

  it('reads different places independently, in text order', () => {
    const raw = `First:\n\`\`\`json\n${CALL}\n\`\`\`\nthen <tool_call>{"name": "get_time", "arguments": {"city": "Rome"}}</tool_call>`;
    expect(parseToolCalls(raw).calls.map((c) => c.name)).toEqual(['get_weather', 'get_time']);
  });

  describe('with tools', () => {
    it('keeps registered calls, in the registered spelling', () => {
      expect(parseToolCalls('<tool_call>{"name": "Get_Weather", "arguments": {"city": "Paris"}}</tool_call>', { tools: ['get_weather'] }).calls).toEqual([
        paris,
      ]);
      const envelope = { type: 'function', function: { name: 'get_weather', description: 'Current weather', parameters: {} } };
      expect(parseToolCalls(`<tool_call>${CALL}</tool_call>`, { tools: [envelope, { name: 'get_time' }] }).calls).toEqual([paris]);
    });

    it('drops an unregistered name and never remaps it, even with one tool registered', () => {
      const result = parseToolCalls('<tool_call>{"name": "launch_missiles", "arguments": {}}</tool_call>', { tools: ['delete_account'] });
      expect(result.calls).toEqual([]);
      expect(result.rejected?.map((r) => [r.name, r.reason])).toEqual([['launch_missiles', 'unregistered']]);
    });

    it('strips every call-shaped JSON when the turn offered no tools', () => {
      expect(parseToolCalls(`Sure. ${CALL}`, { tools: [] })).toMatchObject({ calls: [], text: 'Sure.' });
    });
  });

  it('never invents a call from prose, data, code samples, placeholders or thinking', () => {
    const negatives = [
      'I would call get_weather with city Paris.',
      'get_weather(city="Paris") is how you would call it.',
      '{"name": "Alice", "age": 3}',
      `\`\`\`python\n${CALL}\n\`\`\``,
      '{"name": "function_name", "arguments": {"arg1": "value1"}}',
      `<think>${CALL}</think>`,
      `\`${CALL}\``,
    ];
    for (const raw of negatives) expect(parseToolCalls(raw).calls, raw).toEqual([]);
  });
});
