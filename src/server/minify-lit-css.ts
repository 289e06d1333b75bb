/**
 * Lit's `css` templates reach the bundle as written — indentation, line breaks and all — since the
 * bundler minifies JavaScript, not the CSS inside a template literal. The page's styles are a fifth of
 * its first paint, so the production build squeezes them: each `css` template of a styles module loses
 * its comments and its whitespace runs (one space kept where one may matter, none around braces and
 * semicolons). Interpolations (`${…}`) are left alone.
 */

/** `code` with the text of every css`…` template minified. */
export function minifyLitCss(code: string): string {
  return code.replace(/\bcss`((?:[^`\\$]|\\.|\$(?!\{))*)`/g, (_whole, body: string) => `css\`${minifyCssText(body)}\``);
}

/** CSS text without comments, whitespace runs shortened to one space, and no space beside `{`, `}` and `;`. */
function minifyCssText(css: string): string {
  return css
    .replace(/\/\*[\s\S]*?\*\//g, '')
    .replace(/\s+/g, ' ')
    .replace(/\s*([{};])\s*/g, '$1')
    .replace(/;}/g, '}')
    .trim();
}
