import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { parseToolCalls } from './parse-tool-calls.ts';
import { ToolCallStreamFilter } from './stream-filter.ts';

/** Pieces that exercise every marker, half-marker and JSON edge the formats care about. */
const PIECES = [
  '<tool_call>', '</tool_call>', '<tool_call>\n', '\n</tool_call>', '{', '}', '[', ']', '"name"', '"arguments"', '"parameters"', ': ', ', ',
  '"get_weather"', '"Paris"', '{"city": "Paris"}', '"function"', '"type"', '"tool_calls"', '"age"', '3', "'", '"', '\\', '[TOOL_CALLS]',
  '[ARGS]', '<|python_tag|>', '<|eom_id|>', ';', '```', '```json\n', '```python\n', '```tool_code\n', '\n```', '\n', '\n\n', ' ', 'hello ',
  'Sure, ', '<think>', '</think>', '<function=web_search>', '<parameter=query>', '</parameter>', '</function>', '<function=', '`',
  '<', '<t', '[T', 'get_weather(city="Paris")', 'x.call(q=1)', '<|', 'NAME', '"function_name"', '\u00a0',
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

/** An orphan `</think>` can only be honoured by a stream told up front (see `startsInThinking`). */
function opensInThinking(raw: string): boolean {
  const open = raw.indexOf('<think>');
  const close = raw.indexOf('</think>');
  return close >= 0 && (open < 0 || close < open);
}

describe('stream filter on generated text', () => {
  it('agrees with the parser for arbitrary mixtures of markers, JSON and prose, however chunked', () => {
    fc.assert(
      fc.property(
        fc.array(fc.constantFrom(...PIECES), { maxLength: 30 }),
        fc.uniqueArray(fc.nat(400), { maxLength: 15 }),
        (pieces, positions) => {
          const raw = pieces.join('');
          const cuts = positions.filter((p) => p <= raw.length).sort((a, b) => a - b);
          const parsed = parseToolCalls(raw);
          const streamed = run(raw, cuts, opensInThinking(raw));
          expect(streamed).toEqual({ text: parsed.text, calls: parsed.calls, rejected: parsed.rejected });
        },
      ),
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
        expect(run(raw, cuts, opensInThinking(raw))).toEqual({ text: parsed.text, calls: parsed.calls, rejected: parsed.rejected });
      }),
      { numRuns: 300 },
    );
  });
});
