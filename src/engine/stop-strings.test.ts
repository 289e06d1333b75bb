import { describe, expect, it } from 'vitest';
import { stopStringWatcher } from './stop-strings.ts';

/** A codec where each id is one word, and id 0 is a special token that decodes to nothing. */
const words = ['', 'get', '_weather', '"', ',', ' "', 'arguments', '}', '\n', '</tool_call>', 'x'];
const decode = (ids: number[]) => ids.map((id) => words[id] ?? '?').join('');

describe('stopStringWatcher', () => {
  it('sees a stop string that just appeared, however long the generation before it', () => {
    const stop = stopStringWatcher(decode, ['</tool_call>']);
    const long = Array.from({ length: 5_000 }, () => 10);
    expect(stop(long)).toBe(false);
    expect(stop([...long, 8, 9])).toBe(true);
  });

  it('sees a stop string spread over several tokens, special tokens in between included', () => {
    const stop = stopStringWatcher(decode, ['"}\n']);
    expect(stop([10, 10, 3, 0, 0, 7, 0, 8])).toBe(true);
    expect(stop([10, 10, 3, 7])).toBe(false);
  });

  it('decodes only the tail: the cost of a step does not grow with the generation', () => {
    let decoded = 0;
    const counting = (ids: number[]) => {
      decoded += ids.length;
      return decode(ids);
    };
    const stop = stopStringWatcher(counting, ['</tool_call>']);
    const generated: number[] = [];
    for (let i = 0; i < 2_000; i++) {
      generated.push(10);
      stop(generated);
    }
    // Whole re-decodes would be 2,000,500 ids; the tail is at most 32 a step.
    expect(decoded).toBeLessThanOrEqual(2_000 * 32);
  });

  it('never stops without stop strings', () => {
    expect(stopStringWatcher(decode, [])([9])).toBe(false);
    expect(stopStringWatcher(decode, [''])([9])).toBe(false);
  });
});
