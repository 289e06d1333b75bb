import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { minifyAppTemplates } from './minify-app-templates.ts';

const APP = fileURLToPath(new URL('../app/', import.meta.url));
const pageModules = readdirSync(APP, { recursive: true, encoding: 'utf8' })
  .filter((file) => file.endsWith('.ts') && !file.endsWith('.test.ts'))
  .map((file) => join(APP, file));

describe('which page modules the production build squeezes', () => {
  // The styles modules moved into src/app/elements/ once, and a pattern written for src/app/ alone stopped
  // matching them: the CSS shipped unminified until the page's size was measured by source.
  it('minifies the CSS of every styles module of the page, wherever it sits in src/app', () => {
    const styles = pageModules.filter((file) => /styles\.ts$/.test(file) && readFileSync(file, 'utf8').includes('css`'));
    expect(styles.length).toBeGreaterThan(5);
    for (const file of styles) {
      const code = readFileSync(file, 'utf8');
      const squeezed = minifyAppTemplates(code, file);
      expect((squeezed ?? '').length, file).toBeLessThan(code.length);
      // Templates with interpolations are left as written; every other one is one line.
      expect(squeezed, file).not.toMatch(/css`[^`$]*\n[^`$]*`/);
    }
  });

  it("takes the indentation out of every element's markup, and touches no module outside the page", () => {
    const elements = pageModules.filter((file) => !/styles\.ts$/.test(file) && /(?<![\w.])html`[^`]*\n\s/.test(readFileSync(file, 'utf8')));
    expect(elements.length).toBeGreaterThan(5);
    for (const file of elements) {
      const code = readFileSync(file, 'utf8');
      expect((minifyAppTemplates(code, file) ?? '').length, file).toBeLessThan(code.length);
    }
    const library = fileURLToPath(new URL('../loop/prompts.ts', import.meta.url));
    expect(minifyAppTemplates(readFileSync(library, 'utf8'), library)).toBeUndefined();
    expect(minifyAppTemplates('x', join(APP, 'elements', 'chat-message.test.ts'))).toBeUndefined();
  });
});
