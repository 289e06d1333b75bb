import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { parseToolCalls } from './parse-tool-calls.ts';
import { ToolCallStreamFilter } from './stream-filter.ts';
import { beginsInThinking } from './strip-thinking.ts';

/** Pieces that exercise every marker, half-marker and JSON edge the formats care about. */
const PIECES = [
  '<tool_call>',
  '</tool_call>',
  '<tool_call>\n',
  '\n</tool_call>',
  '{',
  '}',
  '[',
  ']',
  '"name"',
  '"arguments"',
  '"parameters"',
  ': ',
  ', ',
  '"get_weather"',
  '"Paris"',
  '{"city": "Paris"}',
  '"function"',
  '"type"',
  '"tool_calls"',
  '"age"',
  '3',
  "'",
  '"',
  '\\',
  '[TOOL_CALLS]',
  '[ARGS]',
  '<|python_tag|>',
  '<|eom_id|>',
  ';',
  '```',
  '```json\n',
  '```python\n',
  '```tool_code\n',
  '\n```',
  '\n',
  '\n\n',
  ' ',
  'hello ',
  'Sure, ',
  '<think>',
  '</think>',
  '<function=web_search>',
  '<parameter=query>',
  '</parameter>',
  '</function>',
  '<function=',
  '`',
  '<',
  '<t',
  '[T',
  'get_weather(city="Paris")',
  'x.call(q=1)',
  '<|',
  'NAME',
  '"function_name"',
  '\u00a0',
  // The families added for issue 11: their openers, closers, separators and string delimiters.
  '<function name="f">',
  '{"a": 1}',
  '</invoke>',
  '<invoke name="f">',
  '<parameter name="a">',
  '<minimax:tool_call>',
  '</minimax:tool_call>',
  '>>>',
  '>>>get_weather\n',
  'all\n',
  '> ',
  '<｜tool▁calls▁begin｜>',
  '<｜tool▁call▁begin｜>',
  'function',
  '<｜tool▁sep｜>',
  '<｜tool▁call▁end｜>',
  '<｜tool▁calls▁end｜>',
  '<start_function_call>',
  'call:get_weather{city:',
  '<escape>',
  '<end_function_call>',
  '<|tool_call>',
  '<tool_call|>',
  '<|"|>',
  '[get_weather(city="Paris")]',
  '<|tool_call_start|>',
  '<|tool_call_end|>',
  '<|python_start|>',
  '<|python_end|>',
  '<|tool_call|>',
  'functools[',
  '<TOOLCALL>',
  '</TOOLCALL>',
  '<|START_ACTION|>',
  '<|END_ACTION|>',
  '"tool_name"',
  '"function_call"',
  '<arg_key>',
  '</arg_key>',
  '<arg_value>',
  '</arg_value>',
  '<|tool_calls_section_begin|>',
  '<|tool_call_begin|>',
  'functions.get_weather:0',
  '<|tool_call_argument_begin|>',
  '<|tool_calls_section_end|>',
  '<|start|>assistant',
  '<|channel|>',
  'commentary to=functions.get_weather',
  ' <|constrain|>json',
  '<|message|>',
  '<|call|>',
  '<|end|>',
  'to=functions.f',
  '<|channel|>analysis<|message|>',
  '[THINK]',
  '[/THINK]',
  '<|channel>thought',
  '<channel|>',
  '```xml\n',
  '```tool_use\n',
  '"<city>"',
  '<tool_calls>',
  '</tool_calls>',
  '<json>',
  '</json>',
  '<function_call>',
  '<seed:tool_call>',
  '</seed:tool_call>',
  '<seed:think>',
  '<|action_start|><|plugin|>',
  '<|action_end|>',
  '<|tools_prefix|>',
  '{"f": {"a": 1}}',
  '<function_calls>',
  '</function_calls>',
];

function run(raw: string, cuts: readonly number[], startsInThinking: boolean): { text: string; calls: unknown[]; rejected: unknown[] } {
  const filter = new ToolCallStreamFilter({ startsInThinking });
  let text = '';
  const calls: unknown[] = [];
  const rejected: unknown[] = [];
  let from = 0;
  for (const cut of [...cuts, raw.length]) {
    const u = filter.push(raw.slice(from, cut));
    text += u.text;
    calls.push(...u.calls);
    rejected.push(...u.rejected);
    from = cut;
  }
  const u = filter.end();
  return { text: text + u.text, calls: [...calls, ...u.calls], rejected: [...rejected, ...u.rejected] };
}

describe('stream filter on generated text', () => {
  it('agrees with the parser for arbitrary mixtures of markers, JSON and prose, however chunked', () => {
    fc.assert(
      fc.property(fc.array(fc.constantFrom(...PIECES), { maxLength: 30 }), fc.uniqueArray(fc.nat(400), { maxLength: 15 }), (pieces, positions) => {
        const raw = pieces.join('');
        const cuts = positions.filter((p) => p <= raw.length).sort((a, b) => a - b);
        const parsed = parseToolCalls(raw);
        const streamed = run(raw, cuts, beginsInThinking(raw));
        expect(streamed).toEqual({ text: parsed.text, calls: parsed.calls, rejected: parsed.rejected });
      }),
      { numRuns: Number(process.env.FUZZ_RUNS ?? 3000) },
    );
  });
});

describe('stream filter on long blocks', () => {
  // Held blocks over 2 KB are re-examined in batches; the decisions must not change.
  const long = 'x'.repeat(3000);
  const LONG_PIECES = [...PIECES, `"${long}"`, long, `{"name": "get_weather", "arguments": {"text": "${long}"}}`, `\`\`\`python\n${long}\n\`\`\`\n`];

  it('agrees with the parser when blocks run to thousands of characters, in small chunks', () => {
    fc.assert(
      fc.property(fc.array(fc.constantFrom(...LONG_PIECES), { maxLength: 12 }), fc.integer({ min: 1, max: 40 }), (pieces, size) => {
        const raw = pieces.join('');
        const cuts: number[] = [];
        for (let i = size; i < raw.length; i += size) cuts.push(i);
        const parsed = parseToolCalls(raw);
        expect(run(raw, cuts, beginsInThinking(raw))).toEqual({ text: parsed.text, calls: parsed.calls, rejected: parsed.rejected });
      }),
      { numRuns: 300 },
    );
  });
});
