// biome-ignore-all lint/suspicious/noTemplateCurlyInString: these strings are module source text, templates and all.
import { describe, expect, it } from 'vitest';
import { minifyLitHtml } from './minify-lit-html.ts';

describe('minifying the markup of lit templates', () => {
  it('keeps each line break and drops the indentation after it, in nested templates too, never inside an expression', () => {
    const code = [
      'const view = html`<ul>',
      '    ${items.map((i) => html`<li>',
      '        ${i.name}',
      '      </li>`)}',
      '    <p title="${`a\n    b`}">x</p>',
      '  </ul>`;',
    ].join('\n');
    expect(minifyLitHtml(code)).toBe(
      ['const view = html`<ul>', '${items.map((i) => html`<li>', '${i.name}', '</li>`)}', '<p title="${`a\n    b`}">x</p>', '</ul>`;'].join('\n'),
    );
  });

  it('leaves other template literals, strings and whitespace-as-text templates as they are', () => {
    const code = [
      'const prompt = `Answer:',
      '    in one line`;',
      "const s = 'a\\n    b';",
      'const code = html`<pre>',
      '    kept</pre>`;',
      'const t = css`a {',
      '  color: red; }`;',
    ].join('\n');
    expect(minifyLitHtml(code)).toBe(code);
  });

  it('reads templates without interpolations and svg templates', () => {
    expect(minifyLitHtml('x = html`<b>\n   bold</b>`; y = svg`<g>\n    <path d="M0 0"/>\n  </g>`;')).toBe(
      'x = html`<b>\nbold</b>`; y = svg`<g>\n<path d="M0 0"/>\n</g>`;',
    );
  });
});
