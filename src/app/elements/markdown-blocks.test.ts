import { describe, expect, it } from 'vitest';
import { MARKDOWN_LIMITS, nestingDepth, planMarkdown } from './markdown-blocks.ts';

describe('planMarkdown (issue 28, N10)', () => {
  it('splits at blank lines before a line at the margin, keeping indented continuations and fenced code whole', () => {
    const text = ['# Title', '', '1. **Step**', '', '   Details of the step.', '2. Next', '', '```js', 'a();', '', 'b();', '```', '', 'The end.'].join('\n');
    expect(planMarkdown(text).map((b) => b.text)).toEqual([
      '# Title\n',
      '1. **Step**\n\n   Details of the step.\n2. Next\n',
      '```js\na();\n\nb();\n```\n',
      'The end.',
    ]);
    expect(planMarkdown(text).every((b) => b.kind === 'markdown')).toBe(true);
    expect(
      planMarkdown(text)
        .map((b) => b.text)
        .join('\n'),
    ).toBe(text);
  });

  it('measures nesting by list markers, quote marks and indentation', () => {
    expect(nestingDepth('plain words')).toBe(0);
    expect(nestingDepth('- item')).toBe(1);
    expect(nestingDepth('    - item')).toBe(3);
    expect(nestingDepth('- - > 1. deep')).toBe(4);
    expect(nestingDepth('-not a marker')).toBe(0);
    expect(nestingDepth('>>>> quoted')).toBe(4);
  });

  it('shows 8 KB of nested list items as plain text instead of overflowing the parser', () => {
    const nested = Array.from({ length: 400 }, (_, i) => `${'  '.repeat(i)}- item ${i}`).join('\n');
    expect(nested.length).toBeGreaterThan(8_000);
    expect(planMarkdown(nested)).toEqual([{ text: nested, kind: 'plain' }]);
    expect(planMarkdown(`${'- '.repeat(4_000)}x`)[0]?.kind).toBe('plain');
  });

  it('renders Markdown up to the character budget, and the rest as plain text', () => {
    const paragraph = 'word '.repeat(1_000).trim();
    const blocks = planMarkdown(Array.from({ length: 20 }, () => paragraph).join('\n\n'));
    const markdownChars = blocks.filter((b) => b.kind === 'markdown').reduce((sum, b) => sum + b.text.length, 0);
    expect(markdownChars).toBeLessThanOrEqual(MARKDOWN_LIMITS.maxChars);
    expect(blocks.at(-1)?.kind).toBe('plain');
    expect(planMarkdown('x'.repeat(MARKDOWN_LIMITS.maxBlockChars + 1))[0]?.kind).toBe('plain');
  });

  it('shows a block of unmatched emphasis delimiters as plain text, but not code or ordinary prose', () => {
    expect(planMarkdown('*a '.repeat(2_400))[0]?.kind).toBe('plain');
    expect(planMarkdown('Some *emphasis* and **bold** and ~~struck~~ words. '.repeat(40))[0]?.kind).toBe('markdown');
    expect(planMarkdown(['```c', 'int **p = *q;'.repeat(200), '```'].join('\n'))[0]?.kind).toBe('markdown');
  });
});
