import { describe, expect, it } from 'vitest';
import { LINEAR_GROWTH_LIMIT, growthRatio } from '../../tests/proxy/helpers/growth.ts';
import { decodeEntities, scanMarkup } from './markup-scan.ts';
import { htmlToText } from './html-to-text.ts';

describe('scanMarkup', () => {
  it('counts elements and nesting depth', () => {
    const scan = scanMarkup('<html><body><div><div><span>x</span></div></div><br><img src=a></body></html>');
    expect(scan.elements).toBe(7);
    expect(scan.maxDepth).toBe(5);
  });

  it('does not count void, self-closing-in-svg and implied-end elements as depth', () => {
    expect(scanMarkup(`<ul>${'<li>a'.repeat(1000)}</ul>`).maxDepth).toBe(1);
    expect(scanMarkup(`<svg>${'<path/>'.repeat(1000)}</svg>`).maxDepth).toBe(1);
    expect(scanMarkup(`${'<br>'.repeat(1000)}`).maxDepth).toBe(0);
  });

  it('counts <div/> as an open div, as the HTML parser does', () => {
    expect(scanMarkup('<div/>'.repeat(500)).maxDepth).toBe(500);
  });

  it('skips comments, doctype, script and style content, and quoted > in attribute values', () => {
    const scan = scanMarkup('<!doctype html><!-- <div><div> --><script>if (a<b) { "<div>" }</script><style>p>a{}</style><a title="x>y" href="/z">t</a>', true);
    expect(scan.elements).toBe(3);
    expect(scan.maxDepth).toBe(1);
    expect(scan.text).toBe('t');
    expect(scan.hrefs).toEqual(['/z']);
  });

  it('treats a quote only at the start of an attribute value as a quote', () => {
    const scan = scanMarkup(`<div x'>${'<div>'.repeat(50)}'>`);
    expect(scan.maxDepth).toBe(51);
  });

  it.each([
    ['unclosed attribute quotes', '<div a="'],
    ['unclosed comments', '<!--'],
    ['unclosed raw-text elements', '<script>'],
    ['stray end tags', '<div></i>'],
  ])('is linear on %s: 8 times the input costs at most ~10 times the work', (_name, unit) => {
    expect(
      growthRatio(
        (html: string) => scanMarkup(html, true),
        (n: number) => unit.repeat(n),
        2_000,
      ),
    ).toBeLessThan(LINEAR_GROWTH_LIMIT);
  });

  it('reads the title and <base href>', () => {
    const scan = scanMarkup('<head><title> A  &lt;B&gt; </title><base href="https://b.example/"></head>');
    expect(scan.title).toBe('A <B>');
    expect(scan.baseHref).toBe('https://b.example/');
  });
});

describe('decodeEntities', () => {
  it('decodes numeric and common named references, leaves unknown ones', () => {
    expect(decodeEntities('&#65;&#x42;&amp;&nbsp;&unknown;&#0;')).toBe('AB&\u00a0&unknown;\ufffd');
  });
});

describe('scanMarkup depth against unmatched end tags (issue 12, lower grade)', () => {
  it('an end tag of an element that is not open does not lower the depth', () => {
    expect(scanMarkup(`<body>${'<div></b>'.repeat(3000)}x`).maxDepth).toBeGreaterThanOrEqual(3000);
    expect(scanMarkup(`<body>${'<span></i></em></div>'.repeat(3000)}x`).maxDepth).toBeGreaterThanOrEqual(3000);
  });

  it('an end tag closes the open element of its name and everything opened inside it', () => {
    expect(scanMarkup('<div><section><span></div><p>x').maxDepth).toBe(3);
    const scan = scanMarkup(`<div>${'<div>'.repeat(10)}</div>${'<b>'.repeat(5)}`);
    expect(scan.maxDepth).toBe(15);
    expect(scanMarkup(`${'<div>'.repeat(100)}${'</div>'.repeat(100)}${'<div>'.repeat(100)}`).maxDepth).toBe(100);
  });

  it('hidden text is not revealed by a stray end tag', () => {
    expect(scanMarkup('<noscript>hidden</object> still hidden</noscript> shown', true).text).toBe('shown');
  });

  it('a page that hides deep nesting behind stray end tags still takes the plain path', () => {
    const html = `<!doctype html><html><body>${'<div></i>'.repeat(5_000)}<p>deep text</p></body></html>`;
    expect(htmlToText(html, 'https://site.example/').method).toBe('plain');
  });
});
