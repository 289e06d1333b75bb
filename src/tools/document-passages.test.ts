import { describe, expect, it } from 'vitest';
import { growthRatio, LINEAR_GROWTH_LIMIT } from '../../tests/proxy/helpers/growth.ts';
import { headingOf, MAX_HEADING_CHARS, passageReference, passagesOf } from './document-passages.ts';

const paragraph = (n: number, words = 40) => Array.from({ length: words }, (_, i) => `word${n}x${i}`).join(' ');

describe('passagesOf', () => {
  it('packs paragraphs to about the target, keeps every line, and says which lines each passage holds', () => {
    const text = Array.from({ length: 30 }, (_, i) => paragraph(i)).join('\n\n');
    const passages = passagesOf({ name: 'notes.txt', text }, { targetChars: 900 });
    expect(passages.length).toBeGreaterThan(5);
    for (const p of passages) expect(p.text.length).toBeLessThanOrEqual(900);
    // Nothing lost, nothing repeated: the passages hold every paragraph once, in order.
    expect(passages.map((p) => p.text).join('\n\n')).toBe(text);
    expect(passages[0]?.lines).toEqual([1, 3]);
    expect(passages.at(-1)?.lines[1]).toBe(59);
    expect(passages.map((p) => p.index)).toEqual(passages.map((_, i) => i));
  });

  it('never packs across a Markdown heading, and gives each passage the headings it sits under', () => {
    const text = ['# Server', '', 'Intro.', '', '## Options', '', '### `bodyLimit`', '', 'Default: 1 MiB.', '', '## Methods', '', 'close() stops it.'].join(
      '\n',
    );
    const passages = passagesOf({ name: 'Server.md', text });
    expect(passages.map((p) => [p.heading, p.text])).toEqual([
      ['Server', '# Server\n\nIntro.'],
      ['Server › Options', '## Options'],
      ['Server › Options › `bodyLimit`', '### `bodyLimit`\n\nDefault: 1 MiB.'],
      ['Server › Methods', '## Methods\n\nclose() stops it.'],
    ]);
  });

  it('keeps a code block whole: a # inside it is no heading, a blank line inside it no paragraph end', () => {
    const text = ['## Setup', '', '```sh', '# install it', '', 'npm install x', '```', '', 'Then run it.'].join('\n');
    const passages = passagesOf({ name: 'README.md', text });
    expect(passages).toHaveLength(1);
    expect(passages[0]?.heading).toBe('Setup');
    expect(passages[0]?.text).toContain('# install it\n\nnpm install x');
  });

  it('reads pages from form feeds, as a PDF read here is joined, and refers to them by page', () => {
    const text = `${paragraph(1)}\n\f\n${paragraph(2)}\n\f\n${paragraph(3)}`;
    const passages = passagesOf({ name: 'report.pdf', text }, { targetChars: 300 });
    expect(passages.map((p) => p.pages)).toEqual([
      [1, 1],
      [1, 1],
      [2, 2],
      [2, 2],
      [3, 3],
      [3, 3],
    ]);
    expect(passageReference(passages[2] as (typeof passages)[number])).toBe('p. 2');
    expect(passageReference({ lines: [4, 9], pages: [2, 3] })).toBe('pp. 2–3');
    expect(passageReference({ lines: [4, 9] })).toBe('lines 4–9');
    expect(passageReference({ lines: [7, 7] })).toBe('line 7');
  });

  it('gives every passage of a table its header row, which a row alone does not repeat', () => {
    const rows = Array.from({ length: 200 }, (_, i) => `${i},city${i},${1000 + i}`);
    const passages = passagesOf({ name: 'towns.csv', text: ['id,name,population', ...rows].join('\n') }, { targetChars: 400 });
    expect(passages.length).toBeGreaterThan(5);
    for (const p of passages) expect(p.heading).toBe('id,name,population');
    expect(passages.flatMap((p) => p.text.split('\n'))).toEqual(rows);
    expect(passages[1]?.lines[0]).toBeGreaterThan(2);
  });

  it('cuts a paragraph longer than the target at sentence ends, and one with none at the target', () => {
    const sentences = Array.from({ length: 40 }, (_, i) => `Sentence number ${i} says something.`).join(' ');
    const cut = passagesOf({ name: 'a.txt', text: sentences }, { targetChars: 300 });
    expect(cut.length).toBeGreaterThan(3);
    for (const p of cut) expect(p.text).toMatch(/^Sentence number \d+ .*something\.$/s);
    const unbroken = passagesOf({ name: 'b.txt', text: 'x'.repeat(1000) }, { targetChars: 300 });
    expect(unbroken.map((p) => p.text.length)).toEqual([300, 300, 300, 100]);
  });

  it('has no passage for a text of blanks, and freezes what it returns', () => {
    expect(passagesOf({ name: 'empty.txt', text: ' \n\n \n' })).toEqual([]);
    const [passage] = passagesOf({ name: 'a.txt', text: 'one line' });
    expect(Object.isFrozen(passage)).toBe(true);
    expect(passage?.lines).toEqual([1, 1]);
  });

  it('reads headings as CommonMark writes them: closing #s after a space dropped, a # inside a word kept', () => {
    expect(headingOf('## Options ##')).toEqual({ level: 2, title: 'Options' });
    expect(headingOf('#   C#   ')).toEqual({ level: 1, title: 'C#' });
    expect(headingOf('### Setup\t#')).toEqual({ level: 3, title: 'Setup' });
    for (const none of ['#NoSpace', '####### seven', '# ', '# ###', 'text # not one']) expect(headingOf(none), none).toBeUndefined();
    expect(headingOf(`# ${'t'.repeat(5_000)}`)?.title).toHaveLength(MAX_HEADING_CHARS);
  });

  // Issue 67, M1: a 10 KB file whose heading held 4,000 spaces froze the tab for 25 s (a backtracking pattern), and a
  // 20,000-character heading above many short paragraphs was copied into every one of them (140 KB took 20 s, 600 KB
  // crashed the tab).
  it('costs work linear in a heading of spaces, and in the paragraphs under a very long heading', () => {
    // The shapes that backtracked: runs of spaces around a `#` inside the title, and a run before a separator `.` does not match.
    const spaces = (n: number) => `# x${' '.repeat(n)}#${' '.repeat(n)}x\n\n# x${' \u00a0'.repeat(n)}\u2028y\n\nShort paragraph.`;
    expect(growthRatio((text: string) => passagesOf({ name: 'a.md', text }), spaces, 1_000)).toBeLessThan(LINEAR_GROWTH_LIMIT);
    const underLongHeading = (n: number) => `# ${'h'.repeat(20_000)}\n\n${'ok\n\n'.repeat(n)}`;
    expect(growthRatio((text: string) => passagesOf({ name: 'a.md', text }), underLongHeading, 2_000)).toBeLessThan(LINEAR_GROWTH_LIMIT);
    const passages = passagesOf({ name: 'a.md', text: underLongHeading(20_000) });
    // Every passage names its heading, cut to a bound, and every passage shares the one string.
    expect(new Set(passages.map((p) => p.heading)).size).toBe(1);
    expect(passages[1]?.heading).toHaveLength(MAX_HEADING_CHARS);
    // Nothing is lost: the heading line itself is still read, in pieces.
    expect(passages.map((p) => p.text.replace(/[^h]/g, '')).join('')).toHaveLength(20_000);
  });
});
