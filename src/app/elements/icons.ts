import { html, svg, type SVGTemplateResult } from 'lit';

/** Inline icons (no icon font: it would be one more download, and glyphs vary by system font). */
const icon = (path: SVGTemplateResult) =>
  html`<svg width="16" height="16" viewBox="0 0 24 24" fill="none" stroke="currentColor" stroke-width="2" stroke-linecap="round" stroke-linejoin="round" aria-hidden="true" style="vertical-align:-3px;flex:none">${path}</svg>`;

/** The icons the page uses. */
export const icons = {
  plus: icon(svg`<path d="M12 5v14M5 12h14"/>`),
  close: icon(svg`<path d="M6 6l12 12M18 6L6 18"/>`),
  menu: icon(svg`<path d="M4 7h16M4 12h16M4 17h16"/>`),
  pencil: icon(svg`<path d="M4 20h4L19 9l-4-4L4 16v4zM14 6l4 4"/>`),
  paperclip: icon(svg`<path d="M20 11l-8.5 8.5a5 5 0 0 1-7-7L13 4a3.5 3.5 0 0 1 5 5l-8.5 8.5a2 2 0 0 1-3-3L14 7"/>`),
};
