import { describe, expect, it } from 'vitest';
import { minifyLitCss } from './minify-lit-css.ts';

describe('minifying the CSS of lit templates', () => {
  it('drops comments and whitespace runs, keeping the spaces selectors and values need', () => {
    const code =
      'export const s = [controls, css`\n  /* the box */\n  :host {\n    display: block;\n  }\n  .a .b:hover,\n  .c > .d {\n    margin: 0 auto 1rem;\n    font: 0.9rem/1.4 var(--mono);\n  }\n`];';
    expect(minifyLitCss(code)).toBe(
      'export const s = [controls, css`:host{display: block}.a .b:hover, .c > .d{margin: 0 auto 1rem;font: 0.9rem/1.4 var(--mono)}`];',
    );
  });

  it('leaves templates with interpolations and other code as they are', () => {
    const code = ['const x = `a  b`;', ' const y = css`a { color: $', '{red}; }`;'].join('');
    expect(minifyLitCss(code)).toBe(code);
  });
});
