import { describe, expect, it } from 'vitest';
import { findFirst, isNameChar, isNameStart, matchLiteral, skipSpace } from './site.ts';

describe('site helpers', () => {
  it('skipSpace skips spaces, tabs and line breaks', () => {
    expect(skipSpace(' \t\r\n x', 0)).toBe(5);
    expect(skipSpace('   ', 1)).toBe(3);
  });

  it('matchLiteral says maybe only for a prefix cut short by the end of unfinished text', () => {
    expect(matchLiteral('a<tool_call>', 1, '<tool_call>', false)).toBe('yes');
    expect(matchLiteral('a<tool_c', 1, '<tool_call>', false)).toBe('maybe');
    expect(matchLiteral('a<tool_c', 1, '<tool_call>', true)).toBe('no');
    expect(matchLiteral('a<tool_x', 1, '<tool_call>', false)).toBe('no');
    expect(matchLiteral('a', 1, '<tool_call>', false)).toBe('maybe');
  });

  it('findFirst finds the earliest of several literals', () => {
    expect(findFirst('ab </function> <tool_call>', 0, ['<tool_call>', '</function>'])).toEqual({ index: 3, literal: '</function>' });
    expect(findFirst('nothing here', 0, ['<tool_call>'])).toEqual({ index: -1, literal: '' });
  });

  it('name characters', () => {
    expect([...'aZ_'].every((c) => isNameStart(c.charCodeAt(0)))).toBe(true);
    expect(isNameStart('1'.charCodeAt(0))).toBe(false);
    expect([...'a1_.-'].every((c) => isNameChar(c.charCodeAt(0)))).toBe(true);
    expect(isNameChar(' '.charCodeAt(0))).toBe(false);
  });
});
