/** Elements with no end tag. */
const VOID = new Set(['area', 'base', 'br', 'col', 'embed', 'hr', 'img', 'input', 'keygen', 'link', 'meta', 'param', 'source', 'track', 'wbr']);

/**
 * Elements whose end tag may be left out (or that the parser closes implicitly); they are not
 * counted towards nesting depth, so sloppy but ordinary markup does not look deep.
 */
const IMPLIED_END = new Set(['p', 'li', 'dt', 'dd', 'tr', 'td', 'th', 'thead', 'tbody', 'tfoot', 'option', 'optgroup', 'rt', 'rp']);

/** Elements whose content is raw text up to the matching end tag (as htmlparser2, linkedom's parser, reads them). */
const RAW_TEXT = new Set(['script', 'style', 'textarea', 'title', 'xmp']);

/** Raw-text elements whose content is not page text. */
const HIDDEN_RAW = new Set(['script', 'style', 'xmp', 'textarea']);

/** Elements whose descendants' text is not page text. */
const HIDDEN = new Set(['noscript', 'template', 'iframe', 'noembed', 'noframes', 'object', 'svg', 'math']);

/** Elements in which `/>` really closes the element (foreign content). */
const FOREIGN = new Set(['svg', 'math']);

/** Elements that start a new line in the plain-text rendering. */
const BLOCK = new Set([
  'address',
  'article',
  'aside',
  'blockquote',
  'br',
  'dd',
  'div',
  'dl',
  'dt',
  'fieldset',
  'figcaption',
  'figure',
  'footer',
  'form',
  'h1',
  'h2',
  'h3',
  'h4',
  'h5',
  'h6',
  'header',
  'hr',
  'li',
  'main',
  'nav',
  'ol',
  'p',
  'pre',
  'section',
  'table',
  'tr',
  'ul',
]);

/** Result of {@link scanMarkup}. */
export interface MarkupScan {
  /** Start tags seen. */
  elements: number;
  /** Deepest nesting of non-void, explicitly closed elements (an estimate; see IMPLIED_END). */
  maxDepth: number;
  /** The `<title>` text, whitespace collapsed. */
  title: string;
  /** Visible text with block breaks, entities decoded, blank runs collapsed (only with `collectText`). */
  text: string;
  /** Raw `href` values of `<a>` elements, in order (only with `collectText`). */
  hrefs: string[];
  /** The first `<base href>`, if any. */
  baseHref: string | undefined;
}

/**
 * Reads HTML once, left to right, with a small state machine (comments, doctype, raw-text elements,
 * quoted attribute values) and no DOM: counts elements, estimates nesting depth and, when asked,
 * collects the visible text and link targets. Linear in the input and never recursive.
 *
 * It is the guard in front of the real parser: linkedom's parse time grows super-linearly with
 * nesting depth (100,000 levels took 6.5 s) and Readability's even faster, so pages over the caps
 * never reach them, and this scan's text is their plain-text fallback.
 *
 * @param html - the decoded page.
 * @param collectText - also build `text` and `hrefs`.
 *
 * @remarks Security: part of the hostile-markup guard of the HTML-to-text step. Threat: a page built
 * to hang or crash the proxy (deep nesting, millions of elements) — this scan is bounded by the input
 * size, which rule 5 caps at 2 MB.
 */
export function scanMarkup(html: string, collectText = false): MarkupScan {
  const n = html.length;
  let i = 0;
  let elements = 0;
  let depth = 0;
  let maxDepth = 0;
  let title = '';
  let baseHref: string | undefined;
  const hrefs: string[] = [];
  const out: string[] = [];
  let pending = '';
  let hidden = 0;
  let foreign = 0;
  // The open elements that count towards depth, and how many of each name are open: an end tag
  // closes the innermost open element of its name and everything opened inside it, as the HTML
  // parser does, and an end tag of an element that is not open is ignored (counting it down would
  // let a page hide real nesting behind stray end tags). Each pop pays for its push: linear.
  const open: string[] = [];
  const openCount = new Map<string, number>();

  const emitText = (raw: string): void => {
    if (collectText && raw && hidden === 0) pending += raw;
  };
  const flush = (): void => {
    if (pending) {
      out.push(decodeEntities(pending).replace(/[ \t\r\n\f\u00a0]+/g, ' '));
      pending = '';
    }
  };
  const lineBreak = (): void => {
    if (!collectText) return;
    flush();
    out.push('\n');
  };

  while (i < n) {
    const lt = html.indexOf('<', i);
    if (lt < 0) {
      emitText(html.slice(i));
      break;
    }
    if (lt > i) emitText(html.slice(i, lt));
    i = lt;
    const next = html.charCodeAt(i + 1);
    if (html.startsWith('<!--', i)) {
      const end = html.indexOf('-->', i + 4);
      i = end < 0 ? n : end + 3;
      continue;
    }
    if (next === 33 /* ! */ || next === 63 /* ? */) {
      const end = html.indexOf('>', i + 2);
      i = end < 0 ? n : end + 1;
      continue;
    }
    const closing = next === 47; /* / */
    const nameStart = closing ? i + 2 : i + 1;
    if (!isLetter(html.charCodeAt(nameStart))) {
      emitText('<');
      i += 1;
      continue;
    }
    let j = nameStart;
    while (j < n && !isTagNameEnd(html.charCodeAt(j))) j++;
    const name = html.slice(nameStart, j).toLowerCase();
    // Skip attributes up to the closing '>'. Quotes count only where a value starts (after '='),
    // as in the HTML tokenizer: a stray quote elsewhere must not hide the markup that follows.
    const attrStart = j;
    while (j < n) {
      const c = html.charCodeAt(j);
      if (c === 62 /* > */) break;
      if (c === 61 /* = */) {
        j++;
        while (j < n && isSpace(html.charCodeAt(j))) j++;
        const q = html.charCodeAt(j);
        if (q === 34 || q === 39) {
          const end = html.indexOf(q === 34 ? '"' : "'", j + 1);
          j = end < 0 ? n : end + 1;
        }
        continue;
      }
      j++;
    }
    const tagEnd = j;
    i = Math.min(n, j + 1);
    if (closing) {
      if ((openCount.get(name) ?? 0) > 0) {
        for (;;) {
          const popped = open.pop() as string;
          openCount.set(popped, (openCount.get(popped) ?? 1) - 1);
          depth--;
          if (HIDDEN.has(popped) && hidden > 0) hidden--;
          if (FOREIGN.has(popped) && foreign > 0) foreign--;
          if (popped === name) break;
        }
      }
      if (BLOCK.has(name)) lineBreak();
      continue;
    }
    elements++;
    const attrs = html.slice(attrStart, tagEnd);
    // `<div/>` opens a div in HTML; only inside svg/math does `/>` close the element.
    const selfClosing = attrs.endsWith('/') && (foreign > 0 || FOREIGN.has(name));
    if (collectText && name === 'a') {
      const href = readAttribute(attrs, 'href');
      if (href !== undefined && hrefs.length < 2000) hrefs.push(href);
    }
    if (name === 'base' && baseHref === undefined) baseHref = readAttribute(attrs, 'href');
    if (BLOCK.has(name)) lineBreak();
    else if (name === 'td' || name === 'th') emitText(' | ');
    if (RAW_TEXT.has(name) && !selfClosing) {
      const close = findClosingTag(html, name, i);
      const content = html.slice(i, close);
      if (name === 'title' && !title) title = decodeEntities(content).replace(/\s+/g, ' ').trim();
      else if (!HIDDEN_RAW.has(name)) emitText(content);
      const gt = close < n ? html.indexOf('>', close) : -1;
      i = gt < 0 ? n : gt + 1;
      continue;
    }
    if (!VOID.has(name) && !IMPLIED_END.has(name) && !selfClosing) {
      if (HIDDEN.has(name)) hidden++;
      if (FOREIGN.has(name)) foreign++;
      open.push(name);
      openCount.set(name, (openCount.get(name) ?? 0) + 1);
      depth++;
      if (depth > maxDepth) maxDepth = depth;
    }
  }
  flush();

  let text = '';
  if (collectText) {
    text = out
      .join('')
      .split('\n')
      .map((line) => line.trim())
      .join('\n')
      .replace(/\n{3,}/g, '\n\n')
      .trim();
  }
  return { elements, maxDepth, title, text, hrefs, baseHref };
}

function isLetter(c: number): boolean {
  return (c >= 65 && c <= 90) || (c >= 97 && c <= 122);
}

function isSpace(c: number): boolean {
  return c === 32 || c === 9 || c === 10 || c === 12 || c === 13;
}

function isTagNameEnd(c: number): boolean {
  return c === 32 || c === 9 || c === 10 || c === 12 || c === 13 || c === 47 || c === 62;
}

/** Index of `</name` (case-insensitive) at or after `from`, or the input length. */
function findClosingTag(html: string, name: string, from: number): number {
  const needle = `</${name}`;
  let k = from;
  for (;;) {
    const lt = html.indexOf('</', k);
    if (lt < 0) return html.length;
    if (html.slice(lt, lt + needle.length).toLowerCase() === needle) {
      const after = html.charCodeAt(lt + needle.length);
      if (Number.isNaN(after) || isTagNameEnd(after)) return lt;
    }
    k = lt + 2;
  }
}

/** Reads one attribute's value from the text between a tag name and its '>'. */
function readAttribute(attrs: string, wanted: string): string | undefined {
  let k = 0;
  const n = attrs.length;
  while (k < n) {
    while (k < n && /[\s/]/.test(attrs[k] ?? '')) k++;
    const start = k;
    while (k < n && !/[\s=/>]/.test(attrs[k] ?? '')) k++;
    const name = attrs.slice(start, k).toLowerCase();
    if (!name) {
      k++;
      continue;
    }
    while (k < n && /\s/.test(attrs[k] ?? '')) k++;
    let value = '';
    if (attrs[k] === '=') {
      k++;
      while (k < n && /\s/.test(attrs[k] ?? '')) k++;
      const q = attrs[k];
      if (q === '"' || q === "'") {
        const end = attrs.indexOf(q, k + 1);
        value = attrs.slice(k + 1, end < 0 ? n : end);
        k = end < 0 ? n : end + 1;
      } else {
        const begin = k;
        while (k < n && !/[\s>]/.test(attrs[k] ?? '')) k++;
        value = attrs.slice(begin, k);
      }
    }
    if (name === wanted) return decodeEntities(value).trim();
  }
  return undefined;
}

const NAMED_ENTITIES: Readonly<Record<string, string>> = {
  amp: '&',
  lt: '<',
  gt: '>',
  quot: '"',
  apos: "'",
  nbsp: '\u00a0',
  ndash: '\u2013',
  mdash: '\u2014',
  hellip: '\u2026',
  laquo: '\u00ab',
  raquo: '\u00bb',
  copy: '\u00a9',
  reg: '\u00ae',
  trade: '\u2122',
  rsquo: '\u2019',
  lsquo: '\u2018',
  rdquo: '\u201d',
  ldquo: '\u201c',
  middot: '\u00b7',
  bull: '\u2022',
  euro: '\u20ac',
};

/**
 * Decodes numeric character references and the common named entities; unknown names stay as written.
 * @param text - text from an HTML document.
 */
export function decodeEntities(text: string): string {
  if (!text.includes('&')) return text;
  return text.replace(/&(#x[0-9a-f]{1,6}|#[0-9]{1,7}|[a-z][a-z0-9]{1,31});/gi, (whole, body: string) => {
    if (body[0] === '#') {
      const code = body[1] === 'x' || body[1] === 'X' ? parseInt(body.slice(2), 16) : parseInt(body.slice(1), 10);
      if (!Number.isFinite(code) || code <= 0 || code > 0x10ffff || (code >= 0xd800 && code <= 0xdfff)) return '\ufffd';
      return String.fromCodePoint(code);
    }
    return NAMED_ENTITIES[body.toLowerCase()] ?? whole;
  });
}
