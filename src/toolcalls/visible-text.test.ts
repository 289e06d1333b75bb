import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { isTrimmable, VisibleText } from './visible-text.ts';

describe('VisibleText', () => {
  it('drops leading whitespace and holds a whitespace run until something visible follows', () => {
    const visible = new VisibleText();
    visible.write('\n\n  Hello');
    expect(visible.take()).toBe('Hello');
    visible.write(' \n');
    expect(visible.take()).toBe('');
    expect(visible.heldBack).toBe(2);
    visible.write('world  ');
    expect(visible.take()).toBe(' \nworld');
  });

  it('concatenates to exactly the trim of everything written, however it was split', () => {
    fc.assert(
      fc.property(fc.array(fc.constantFrom('a', ' ', '\n', '\t', '\u00a0', '\u3000', 'b c', '\ufeff', '\u200b'), { maxLength: 20 }), (pieces) => {
        const visible = new VisibleText();
        let out = '';
        for (const piece of pieces) {
          visible.write(piece);
          out += visible.take();
        }
        expect(out).toBe(pieces.join('').trim());
      }),
    );
  });
});

describe('isTrimmable', () => {
  it('agrees with String.prototype.trim on every UTF-16 code unit', () => {
    for (let c = 0; c < 0x10000; c++) expect(isTrimmable(c), c.toString(16)).toBe(String.fromCharCode(c).trim() === '');
  });
});
