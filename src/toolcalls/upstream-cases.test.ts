import { describe, expect, it } from 'vitest';
import { MENTIONED_MARKERS, UPSTREAM_CASES, UPSTREAM_TOOLS } from './__fixtures__/upstream-cases.ts';
import { parseToolCalls } from './parse-tool-calls.ts';
import { ToolCallStreamFilter } from './stream-filter.ts';
import { beginsInThinking } from './strip-thinking.ts';

function streamed(raw: string, tools: readonly string[] | undefined, size: number) {
  const cuts: number[] = [];
  for (let i = size; i < raw.length; i += size) cuts.push(i);
  return streamedAt(raw, tools, cuts);
}

function streamedAt(raw: string, tools: readonly string[] | undefined, cuts: readonly number[]) {
  const filter = new ToolCallStreamFilter({ ...(tools ? { tools } : {}), startsInThinking: beginsInThinking(raw) });
  let text = '';
  const calls = [];
  let from = 0;
  for (const cut of [...cuts, raw.length]) {
    const u = filter.push(raw.slice(from, cut));
    text += u.text;
    calls.push(...u.calls);
    from = cut;
  }
  const u = filter.end();
  return { text: text + u.text, calls: [...calls, ...u.calls] };
}

describe('outputs modelled on upstream parser tests', () => {
  for (const c of UPSTREAM_CASES) {
    const tools = c.tools === null ? undefined : (c.tools ?? UPSTREAM_TOOLS);
    it(`${c.id} (${c.source})`, () => {
      const result = parseToolCalls(c.raw, tools ? { tools } : {});
      expect(result.calls).toEqual(c.calls);
      if (c.text !== undefined) expect(result.text).toBe(c.text);
      for (const size of [1, 3, 7]) {
        const s = streamed(c.raw, tools, size);
        expect(s.calls).toEqual(result.calls);
        expect(s.text).toBe(result.text);
      }
      // Split in two at every position, with and without the tool list: the stream hides each
      // family's markers exactly as the parser does.
      for (const list of [tools, undefined]) {
        const expected = parseToolCalls(c.raw, list ? { tools: list } : {});
        for (let cut = 0; cut <= c.raw.length; cut++) {
          expect(streamedAt(c.raw, list, [cut]), `cut at ${cut}`).toEqual({ text: expected.text, calls: expected.calls });
        }
      }
    });
  }
});

describe('family markers mentioned in prose', () => {
  for (const m of MENTIONED_MARKERS) {
    it(`no call, and the prose stays: ${m.raw}`, () => {
      const result = parseToolCalls(m.raw, { tools: UPSTREAM_TOOLS });
      expect(result.calls).toEqual([]);
      expect(result.text).toBe(m.text);
      expect(streamed(m.raw, UPSTREAM_TOOLS, 2)).toEqual({ text: m.text, calls: [] });
    });
  }
});
