import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';

// Issue 30, P2.4: the page's text colours meet WCAG AA (4.5:1) on every surface they sit on, in both
// palettes. Read from the design tokens themselves, so a token change that fails is caught here.

const source = readFileSync(new URL('./styles.ts', import.meta.url), 'utf8');

/** The `--name: #rrggbb` tokens of a block of the styles source. */
function tokensOf(block: string): Map<string, string> {
  return new Map([...block.matchAll(/--([\w-]+):\s*(#[0-9a-f]{6})\b/gi)].map((m) => [m[1] ?? '', (m[2] ?? '').toLowerCase()]));
}

const dark = tokensOf(source.slice(source.indexOf('const DARK'), source.indexOf('export const tokens')));
const light = tokensOf(source.slice(source.indexOf('export const tokens'), source.indexOf("[data-theme='dark']")));

function luminance(hex: string): number {
  const [r, g, b] = [1, 3, 5].map((i) => Number.parseInt(hex.slice(i, i + 2), 16) / 255).map((c) => (c <= 0.03928 ? c / 12.92 : ((c + 0.055) / 1.055) ** 2.4));
  return 0.2126 * (r ?? 0) + 0.7152 * (g ?? 0) + 0.0722 * (b ?? 0);
}

function contrast(a: string, b: string): number {
  const [hi, lo] = [luminance(a), luminance(b)].sort((x, y) => y - x);
  return ((hi ?? 0) + 0.05) / ((lo ?? 0) + 0.05);
}

describe('text contrast of the design tokens', () => {
  it.each([
    ['light', light],
    ['dark', dark],
  ])('%s: text, muted and faint text are at least 4.5:1 on every surface', (_name, palette) => {
    for (const text of ['text', 'muted', 'faint']) {
      for (const surface of ['bg', 'surface', 'surface-2', 'surface-3', 'code-bg']) {
        const ratio = contrast(palette.get(text) ?? '#000000', palette.get(surface) ?? '#000000');
        expect(ratio, `${text} on ${surface}: ${ratio.toFixed(2)}:1`).toBeGreaterThanOrEqual(4.5);
      }
    }
  });

  it('read both palettes', () => {
    for (const palette of [light, dark])
      expect([...palette.keys()]).toEqual(expect.arrayContaining(['text', 'muted', 'faint', 'bg', 'surface', 'surface-2', 'surface-3']));
  });
});
