import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { loadFixture } from './__fixtures__/load.ts';
import { FIXTURES, type Fixture } from './__fixtures__/manifest.ts';
import { parseToolCalls } from './parse-tool-calls.ts';
import { ToolCallStreamFilter } from './stream-filter.ts';
import type { RejectedCall, StreamFilterOptions, ToolCall } from './types.ts';

interface Streamed {
  text: string;
  calls: ToolCall[];
  rejected: RejectedCall[];
  maxHeldBack: number;
  maxMarkerHeld: number;
}

/** Feed `raw` cut at `cuts` (sorted positions) and collect everything released. */
function stream(raw: string, cuts: readonly number[], options: StreamFilterOptions = {}): Streamed {
  const filter = new ToolCallStreamFilter(options);
  let text = '';
  const calls: ToolCall[] = [];
  const rejected: RejectedCall[] = [];
  let from = 0;
  for (const cut of [...cuts, raw.length]) {
    const update = filter.push(raw.slice(from, cut));
    text += update.text;
    calls.push(...update.calls);
    rejected.push(...update.rejected);
    from = cut;
  }
  const last = filter.end();
  text += last.text;
  calls.push(...last.calls);
  rejected.push(...last.rejected);
  return { text, calls, rejected, maxHeldBack: filter.stats.maxHeldBack, maxMarkerHeld: filter.stats.maxMarkerHeld };
}

function optionsOf(fixture: Fixture): StreamFilterOptions {
  return { ...(fixture.tools === undefined ? {} : { tools: fixture.tools }), ...(fixture.startsInThinking ? { startsInThinking: true } : {}) };
}

/**
 * The invariant: however the output is chunked, the filter releases exactly the parser's text
 * (equal strings — both are trimmed the same way, so no looser comparison is needed) and the
 * parser's calls and rejections, in order.
 */
describe('ToolCallStreamFilter agrees with parseToolCalls on every fixture, however it is chunked', () => {
  for (const fixture of FIXTURES) {
    describe(fixture.file, () => {
      const raw = loadFixture(fixture.file);
      const options = optionsOf(fixture);
      const parsed = parseToolCalls(raw, options);
      const expected = { text: parsed.text, calls: parsed.calls, rejected: parsed.rejected };
      const same = (s: Streamed) => ({ text: s.text, calls: s.calls, rejected: s.rejected });

      it('matches the fixture expectation in one chunk', () => {
        const whole = stream(raw, [], options);
        expect(same(whole)).toEqual(expected);
        expect(whole.text).toBe(fixture.text);
        expect(whole.calls).toEqual(fixture.calls);
      });

      it('gives the same result split in two at every position', () => {
        for (let cut = 0; cut <= raw.length; cut++) expect(same(stream(raw, [cut], options)), `cut at ${cut}`).toEqual(expected);
      });

      it('gives the same result one character at a time', () => {
        const cuts = Array.from({ length: raw.length }, (_, i) => i);
        expect(same(stream(raw, cuts, options))).toEqual(expected);
      });

      it('gives the same result for random multi-splits', () => {
        fc.assert(
          fc.property(fc.uniqueArray(fc.integer({ min: 0, max: raw.length }), { maxLength: 12 }), (positions) => {
            const cuts = [...positions].sort((a, b) => a - b);
            expect(same(stream(raw, cuts, options))).toEqual(expected);
          }),
          { numRuns: 60 },
        );
      });
    });
  }
});

describe('ToolCallStreamFilter', () => {
  it('releases prose at once, holding only a trailing whitespace run', () => {
    const filter = new ToolCallStreamFilter();
    expect(filter.push('The weather ')).toEqual({ text: 'The weather', calls: [], rejected: [], reasoning: '' });
    expect(filter.push('is fine.').text).toBe(' is fine.');
  });

  it('hands a call over with the chunk that completes it, and never shows its markup', () => {
    const filter = new ToolCallStreamFilter();
    expect(filter.push('Checking.\n<tool_').text).toBe('Checking.');
    expect(filter.push('call>\n{"name": "get_weather", "arguments": {"city": "Pa').calls).toEqual([]);
    const done = filter.push('ris"}}\n</tool_call>');
    expect(done.calls).toEqual([{ name: 'get_weather', arguments: { city: 'Paris' } }]);
    expect(done.text).toBe('');
    expect(filter.end().text).toBe('');
  });

  it('releases a code sample as it streams, without waiting for the fence to close', () => {
    const filter = new ToolCallStreamFilter();
    expect(filter.push('```python\nprint("<tool_call>")\n').text).toBe('```python\nprint("<tool_call>")');
    expect(filter.push('```').text).toBe('\n```');
  });

  it('holds no more than the longest marker prefix while undecided about a marker', () => {
    const filter = new ToolCallStreamFilter();
    for (const ch of 'Text <|python_tag|>{"name": "get_weather", "parameters": {}} and <tool_call>x</tool_call> and [TOOL_CALLS]') filter.push(ch);
    filter.end();
    expect(filter.stats.maxMarkerHeld).toBe('<|python_tag|>'.length - 1);
    expect(filter.stats.heldBack).toBe(0);
  });

  it('counts a bare JSON candidate as held until it is decided', () => {
    const filter = new ToolCallStreamFilter();
    const call = '{"name": "get_weather", "parameters": {"city": "Paris"}}';
    const calls = [...call].flatMap((ch) => filter.push(ch).calls);
    expect(calls).toHaveLength(1);
    filter.end();
    expect(filter.maxHeldBack).toBe(call.length - 1);
    expect(filter.stats.maxMarkerHeld).toBe(1);
  });

  it('hides the preamble when told the output starts inside thinking', () => {
    const filter = new ToolCallStreamFilter({ startsInThinking: true });
    expect(filter.push('The user wants Paris.\n</th').text).toBe('');
    expect(filter.push('ink>\n\nIt is sunny.').text).toBe('It is sunny.');
  });

  it('applies the tool list like the parser', () => {
    const filter = new ToolCallStreamFilter({ tools: ['get_time'] });
    const update = filter.push('<tool_call>{"name": "get_weather", "arguments": {}}</tool_call>');
    expect(update.calls).toEqual([]);
    expect(update.rejected.map((r) => r.reason)).toEqual(['unregistered']);
  });

  it('ends once', () => {
    const filter = new ToolCallStreamFilter();
    filter.push('Hi there.');
    expect(filter.end().text).toBe('');
    expect(filter.end()).toEqual({ text: '', calls: [], rejected: [], reasoning: '' });
    expect(() => filter.push('more')).toThrow(/after end/);
  });
});

describe('ToolCallStreamFilter: reasoning given out as it is settled (issue 42)', () => {
  it('gives the text of a reasoning block piece by piece, tags left out, whatever the chunking, and never in the visible text', () => {
    const raw = 'Hmm<think>The user wants the weather.</think>It is sunny.';
    for (const size of [1, 2, 5, 64]) {
      const filter = new ToolCallStreamFilter();
      let reasoning = '';
      let text = '';
      for (let i = 0; i < raw.length; i += size) {
        const update = filter.push(raw.slice(i, i + size));
        reasoning += update.reasoning;
        text += update.text;
      }
      const last = filter.end();
      reasoning += last.reasoning;
      text += last.text;
      expect(reasoning, `chunks of ${size}`).toBe('The user wants the weather.');
      expect(text, `chunks of ${size}`).toBe('HmmIt is sunny.');
    }
  });

  it('gives an unclosed block, and one the prompt opened, as reasoning', () => {
    const open = new ToolCallStreamFilter({ startsInThinking: true });
    const a = open.push('Planning the call. </think>Done.');
    const end = open.end();
    expect([a.reasoning + end.reasoning, a.text + end.text]).toEqual(['Planning the call. ', 'Done.']);
    const unclosed = new ToolCallStreamFilter();
    const b = unclosed.push('<think>still thinking </th');
    const c = unclosed.end();
    expect(b.reasoning + c.reasoning).toBe('still thinking </th');
    expect(b.text + c.text).toBe('');
  });
});
