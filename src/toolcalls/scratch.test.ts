import { it } from 'vitest';
import { parseToolCalls, ToolCallStreamFilter } from './index.ts';
it('scratch', () => {
  const cases = [
    '<think>\n\n</think>\n\n<tool_call>\n{"name": "get_weather", "arguments": {"city": "Paris"}}\n</tool_call>',
    'Sure.\n<tool_call>{"name":"a","arguments":{}}</tool_call>\n<tool_call>\n<function=web_search>\n<parameter=query>\nrust jobs\n</parameter>\n<parameter=n>\n5\n</parameter>\n</function>\n</tool_call>',
    '[TOOL_CALLS] [{"name": "get_weather", "arguments": {"city": "Paris"}, "id": "a1"}]',
    '[TOOL_CALLS]get_weather[ARGS]{"city": "Paris"}',
    '{"name": "get_weather", "parameters": {"city": "Paris"}}',
    'Here: {"name": "Alice", "age": 3} ok',
    '<|python_tag|>{"name": "get_weather", "parameters": {"city": "Paris"}}<|eom_id|>',
    '<|python_tag|>brave_search.call(query="rust jobs")',
    'Call:\n```json\n{"name": "get_weather", "arguments": {"city": "Paris"}}\n```\nDone',
    '```python\n{"name": "get_weather", "arguments": {"city": "Paris"}}\n```\nDone',
    '{"tool_calls": [{"id": "c1", "type": "function", "function": {"name": "get_weather", "arguments": "{\\"city\\": \\"Paris\\"}"}}]}',
    '<tool_call>\n{"name": "get_weather", "arguments": {"city": "Paris"',
    '<tool_call>\n{"name": <function-name>, "arguments": <args-json-object>}\n</tool_call>',
    '{"name": "get_weather", "arguments": {"city": "Paris"}\nLet me know',
  ];
  for (const c of cases) {
    const r = parseToolCalls(c);
    const f = new ToolCallStreamFilter();
    let text = ''; const calls = [];
    for (const ch of c) { const u = f.push(ch); text += u.text; calls.push(...u.calls); }
    const e = f.end(); text += e.text; calls.push(...e.calls);
    console.log(JSON.stringify(c), '\n  =>', JSON.stringify(r), '\n  stream', JSON.stringify({calls, text}) === JSON.stringify({calls: r.calls, text: r.text}) ? 'SAME' : JSON.stringify({calls, text}), f.stats);
  }
});
