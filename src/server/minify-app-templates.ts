/**
 * Which of the page's modules the production build squeezes, and how: a styles module's `css` templates
 * (src/server/minify-lit-css.ts), any other page module's `html` indentation (src/server/minify-lit-html.ts).
 * Matched by path, so the test beside this file checks every styles module of `src/app` is found.
 */
import { minifyLitCss } from './minify-lit-css.ts';
import { minifyLitHtml } from './minify-lit-html.ts';

const PAGE_MODULE = /[\\/]src[\\/]app[\\/](?:[\w-]+[\\/])*[\w-]+\.ts$/;
const STYLES_MODULE = /(?:^|[\\/-])styles\.ts$/;

/** `code` of the module `id` with its lit templates squeezed; undefined for a module that is not the page's. */
export function minifyAppTemplates(code: string, id: string): string | undefined {
  if (!PAGE_MODULE.test(id) || id.endsWith('.test.ts')) return undefined;
  return STYLES_MODULE.test(id) ? minifyLitCss(code) : minifyLitHtml(code, id);
}
