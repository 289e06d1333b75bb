import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { removeThinking, stripThinking, ThinkingStripper, thinkingOf } from './strip-thinking.ts';

describe('stripThinking', () => {
  it("removes Qwen3's empty thinking block and trims", () => {
    expect(stripThinking('<think>\n\n</think>\n\nHello!')).toBe('Hello!');
  });

  it('removes every block, wherever it is', () => {
    expect(stripThinking('A<think>x</think>B<think>y</think>C')).toBe('ABC');
  });

  it('removes an unclosed <think> and everything after it', () => {
    expect(stripThinking('Answer first. <think>and then I wondered')).toBe('Answer first.');
  });

  it('removes a leading orphan </think> with everything before it', () => {
    expect(stripThinking('The user wants Paris.\n</think>\n\nIt is sunny.')).toBe('It is sunny.');
  });

  it('drops a stray </think> later on, alone', () => {
    expect(stripThinking('<think>a</think>B</think>C')).toBe('BC');
  });

  it('hides a call the model only considered', () => {
    expect(stripThinking('<think>maybe <tool_call>{"name": "x"}</tool_call></think>No call needed.')).toBe('No call needed.');
  });

  it('leaves text without thinking alone (apart from the trim)', () => {
    expect(stripThinking('  plain <b>text</b> < think >  ')).toBe('plain <b>text</b> < think >');
  });

  it('is linear on many tags', () => {
    const text = '<think>a</think>b</think>'.repeat(50_000);
    expect(removeThinking(text)).toBe('b'.repeat(50_000));
  });
});

describe('ThinkingStripper', () => {
  function streamed(raw: string, cuts: readonly number[], startsInThinking = false): string {
    const stripper = new ThinkingStripper({ startsInThinking });
    let out = '';
    let from = 0;
    for (const cut of [...cuts, raw.length]) {
      out += stripper.push(raw.slice(from, cut));
      from = cut;
    }
    return out + stripper.end();
  }

  it('recognises tags split at any byte', () => {
    const raw = 'A<think>hidden</think>B</think>C<thi';
    for (let cut = 0; cut <= raw.length; cut++) expect(streamed(raw, [cut])).toBe(removeThinking(raw));
  });

  it('holds at most a partial tag, and only outside thinking', () => {
    const stripper = new ThinkingStripper();
    expect(stripper.push('Hello </thi')).toBe('Hello ');
    expect(stripper.heldBack).toBe(5);
    expect(stripper.push('nk><think>secret</thi')).toBe('');
    expect(stripper.thinking).toBe(true);
    expect(stripper.heldBack).toBe(0);
    expect(stripper.push('nk>ok')).toBe('ok');
  });

  it('starts inside thinking when the prompt opened the block', () => {
    expect(streamed('reasoning...</think>\n\nAnswer', [3, 15], true)).toBe('\n\nAnswer');
  });

  it('matches removeThinking for any text and chunking (no orphan close)', () => {
    const piece = fc.constantFrom('<think>', '</think>', '<', '<t', '</th', 'a', ' ', '\n', 'think>');
    fc.assert(
      fc.property(fc.array(piece, { maxLength: 25 }), fc.uniqueArray(fc.nat(200), { maxLength: 8 }), (pieces, positions) => {
        const raw = pieces.join('');
        const open = raw.indexOf('<think>');
        const close = raw.indexOf('</think>');
        const orphan = close >= 0 && (open < 0 || close < open);
        const cuts = positions.filter((p) => p <= raw.length).sort((a, b) => a - b);
        expect(streamed(raw, cuts, orphan)).toBe(removeThinking(raw));
      }),
      { numRuns: 500 },
    );
  });
});

describe('thinkingOf', () => {
  it('gives the reasoning that stripThinking removes, block by block, in every syntax', () => {
    expect(thinkingOf('<think>\nThe user wants the weather.\n</think>\n\nIt is sunny.')).toBe('The user wants the weather.');
    expect(thinkingOf('Check the city first.</think>It is sunny.')).toBe('Check the city first.');
    expect(thinkingOf('[THINK]one[/THINK]a<thinking>two</thinking>b')).toBe('one\n\ntwo');
    expect(thinkingOf('<think>cut off mid-thought')).toBe('cut off mid-thought');
    expect(thinkingOf('No reasoning here.')).toBe('');
    expect(thinkingOf('<think>\n\n</think>\n\nEmpty block.')).toBe('');
  });
});
