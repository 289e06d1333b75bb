import { describe, expect, it } from 'vitest';
import { TOOL_CALL_SITES } from './formats.ts';
import { Segmenter } from './segmenter.ts';
import type { CallSite } from './site.ts';
import type { ToolCall } from './types.ts';

function collect(sites: readonly CallSite[], chunks: readonly string[]): { text: string; calls: ToolCall[] } {
  let text = '';
  const calls: ToolCall[] = [];
  const segmenter = new Segmenter(sites, undefined, { text: (t) => (text += t), found: (c) => calls.push(...c) });
  for (const [i, chunk] of chunks.entries()) segmenter.write(chunk, i === chunks.length - 1);
  return { text, calls };
}

/** A toy site: `<<name>>` is a call of `name`. */
const toy: CallSite = {
  opener: '<<',
  scan(text, at, context) {
    const end = text.indexOf('>>', at);
    if (end < 0) return context.final ? { kind: 'none' } : { kind: 'more', phase: 'block' };
    return { kind: 'block', end: end + 2 };
  },
  read(text, at, end) {
    return { claimed: true, calls: [{ name: text.slice(at + 2, end - 2), arguments: {} }], rejected: [] };
  },
};

describe('Segmenter', () => {
  it('sends text through and blocks out as calls, with any site list', () => {
    expect(collect([toy], ['a <<x>> b <<y', '>> c'])).toEqual({
      text: 'a  b  c',
      calls: [
        { name: 'x', arguments: {} },
        { name: 'y', arguments: {} },
      ],
    });
  });

  it('gives an undecidable opener back as text at the end', () => {
    expect(collect([toy], ['a <<x', ' b'])).toEqual({ text: 'a <<x b', calls: [] });
  });

  it('holds only the undecided tail and counts it', () => {
    const segmenter = new Segmenter(TOOL_CALL_SITES, undefined, { text: () => undefined, found: () => undefined });
    segmenter.write('Hello <tool_c', false);
    expect(segmenter.holdPhase).toBe('marker');
    expect(segmenter.heldBack).toBe(7);
    segmenter.write('all>{"name": "x"', false);
    expect(segmenter.holdPhase).toBe('block');
    expect(segmenter.heldBack).toBe(0);
  });

  it('reads nothing right after a backtick', () => {
    expect(collect(TOOL_CALL_SITES, ['`<tool_call>{"name": "x"}</tool_call>`']).calls).toEqual([]);
  });
});
