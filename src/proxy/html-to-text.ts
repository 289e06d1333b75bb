import vm from 'node:vm';
import { Readability } from '@mozilla/readability';
import { parseHTML } from 'linkedom';
import TurndownService from 'turndown';
import { gfm } from 'turndown-plugin-gfm';
import { hiddenFromReaders, MAYBE_HIDDEN_SELECTOR } from '../shared/hidden-markup.ts';
import { scanMarkup } from './markup-scan.ts';

/** Limits of {@link htmlToText}; the defaults suit pages up to the reader's 2 MB cap. */
export interface HtmlToTextLimits {
  /** More start tags than this: skip the DOM entirely, plain text from the scanner (default 20,000). */
  maxElements?: number;
  /** Estimated nesting deeper than this: skip the DOM entirely (default 1,500). */
  maxDepth?: number;
  /** Real DOM depth above this: skip Readability, which is super-linear in depth (default 120). */
  readabilityMaxDepth?: number;
  /** More elements than this: skip Readability, which is slow on big documents (default 6,000). */
  readabilityMaxElements?: number;
  /** Hard wall-clock budget for parsing and converting, in ms; past it, plain text (default 1,500). */
  timeBudgetMs?: number;
}

/** What {@link htmlToText} returns. */
export interface PageText {
  /** The page title (Readability's, else `<title>`, else the first heading), possibly empty. */
  title: string;
  /** Markdown (headings, lists, tables, code blocks, absolute links) or plain text on the fallback paths. */
  text: string;
  /** Absolute http(s) addresses of the page's links, fragment removed, deduplicated, document order. */
  links: string[];
  /** Which path produced `text`. */
  method: 'readability' | 'dom' | 'plain';
}

const DEFAULTS: Required<HtmlToTextLimits> = {
  maxElements: 20_000,
  maxDepth: 1_500,
  readabilityMaxDepth: 120,
  readabilityMaxElements: 6_000,
  timeBudgetMs: 1_500,
};

/** Elements removed before any conversion: never page text, sometimes hostile. */
const DROP_SELECTOR = 'script, style, noscript, template, iframe, object, embed, svg, math, canvas, link, meta, base';

/**
 * Removes what is never page text (scripts, styles, embeds) and what the page hides from its readers, as far as its
 * own markup says ({@link hiddenFromReaders}), and squeezes preformatted text: the document every path converts.
 */
function stripUnseen(document: ReturnType<typeof parseHTML>['document']): void {
  for (const element of document.querySelectorAll(DROP_SELECTOR)) element.remove();
  for (const element of [...document.querySelectorAll(MAYBE_HIDDEN_SELECTOR)]) if (hiddenFromReaders(element)) element.remove();
  for (const pre of document.querySelectorAll('pre')) squeezeTextNodes(pre);
}

/** Page furniture removed on the non-Readability path. */
const FURNITURE_SELECTOR = 'nav, header, footer, aside, form, dialog, [role="navigation"], [aria-hidden="true"]';

/** Below this much text, Readability's result is not trusted and the DOM path is used instead. */
const MIN_ARTICLE_CHARS = 200;

const MAX_LINKS = 1000;

/** One reusable context: the hard time budget runs the conversion inside it with a vm timeout. */
const guardContext = vm.createContext({ job: undefined as undefined | (() => unknown) });
const guardScript = new vm.Script('job()');

/**
 * Turns an HTML page into readable Markdown for the model, with a real parser and extractor:
 * linkedom parses, Readability picks the article, turndown (with its GFM plugin plus two rules of
 * ours: pipes escaped in table cells, header-less tables given an empty header row) writes Markdown.
 * Scripts, styles and embedded objects are dropped; headings, lists, tables and code blocks are kept;
 * links are made absolute against the page's address; blank runs are collapsed. Links are collected
 * from the DOM before Readability changes it.
 *
 * Hostile markup is contained in three layers: a linear pre-scan ({@link scanMarkup}) sends pages with
 * too many elements or too deep nesting straight to a plain-text rendering; the real DOM depth decides
 * whether Readability may run; and the whole parse-and-convert step runs under a hard time budget
 * (a `vm` timeout, which interrupts even a runaway synchronous parse) and inside try/catch (stack
 * overflows), both falling back to the plain-text rendering.
 *
 * @param html - the decoded page.
 * @param pageUrl - the page's final address, the base for relative links.
 * @param limits - optional caps (see {@link HtmlToTextLimits}).
 *
 * @remarks Security: hostile-markup guard (the reader must survive any page it fetches). Threat: a
 * page built to hang or crash the proxy — deep nesting makes linkedom and Readability super-linear
 * and overflows their recursion; millions of elements exhaust time and memory.
 */
export function htmlToText(html: string, pageUrl: string, limits: HtmlToTextLimits = {}): PageText {
  const caps = { ...DEFAULTS, ...limits };
  const scan = scanMarkup(html, false);
  if (scan.elements > caps.maxElements || scan.maxDepth > caps.maxDepth) return plainText(html, pageUrl);
  const result = withinBudget(() => convertWithDom(html, pageUrl, scan.elements <= caps.readabilityMaxElements, caps.readabilityMaxDepth), caps.timeBudgetMs);
  return result ?? plainText(html, pageUrl);
}

/**
 * The fallback rendering: the scanner's visible text and links, no DOM. Linear in the input.
 * @param html - the decoded page.
 * @param pageUrl - base for relative links.
 */
export function plainText(html: string, pageUrl: string): PageText {
  const scan = scanMarkup(html, true);
  const base = safeBase(scan.baseHref, pageUrl);
  const links = absoluteLinks(scan.hrefs, base);
  return { title: scan.title, text: collapseBlankRuns(scan.text), links, method: 'plain' };
}

function convertWithDom(html: string, pageUrl: string, allowReadability: boolean, readabilityMaxDepth: number): PageText {
  let { document } = parseHTML(html);
  if (!document.body || document.documentElement?.nodeName !== 'HTML') {
    ({ document } = parseHTML(`<!doctype html><html><head></head><body>${html}</body></html>`));
  }
  const baseElement = document.querySelector('base[href]');
  const base = safeBase(baseElement?.getAttribute('href') ?? undefined, pageUrl);
  stripUnseen(document);

  const hrefs: string[] = [];
  for (const anchor of document.querySelectorAll('a[href]')) {
    const href = anchor.getAttribute('href');
    if (href) hrefs.push(href);
  }
  const links = absoluteLinks(hrefs, base);
  let title = (document.title ?? '').replace(/\s+/g, ' ').trim();
  if (!title) title = (document.querySelector('h1')?.textContent ?? '').replace(/\s+/g, ' ').trim();

  const body = document.body;
  if (!body) return { title, text: '', links, method: 'dom' };

  let contentHtml: string | undefined;
  let method: PageText['method'] = 'dom';
  if (allowReadability && domDepth(body) <= readabilityMaxDepth) {
    try {
      // Readability changes the document, which is why the links were read first.
      const article = new Readability(document as unknown as Document, { keepClasses: true, charThreshold: 300 }).parse();
      const articleText = (article?.textContent ?? '').trim();
      if (article?.content && articleText.length >= MIN_ARTICLE_CHARS) {
        contentHtml = article.content;
        method = 'readability';
        if (article.title) title = article.title.replace(/\s+/g, ' ').trim();
      }
    } catch {
      contentHtml = undefined;
    }
    if (!contentHtml) {
      // Readability may have modified the DOM before giving up: start again from the source.
      ({ document } = parseHTML(html));
      if (!document.body || document.documentElement?.nodeName !== 'HTML') {
        ({ document } = parseHTML(`<!doctype html><html><head></head><body>${html}</body></html>`));
      }
      stripUnseen(document);
    }
  }
  if (!contentHtml) {
    for (const element of document.querySelectorAll(FURNITURE_SELECTOR)) element.remove();
    const main = document.querySelector('main, article, [role="main"]') ?? document.body;
    contentHtml = main?.innerHTML ?? '';
  }
  let text: string;
  try {
    text = markdownService(base).turndown(contentHtml);
  } catch {
    const { document: again } = parseHTML(`<!doctype html><html><body>${contentHtml}</body></html>`);
    text = (again.body?.textContent ?? '').replace(/[ \t]+/g, ' ');
  }
  return { title, text: collapseBlankRuns(text), links, method };
}

/** Longest run of blanks kept inside a line of page text (indentation and alignment survive). */
const MAX_BLANK_RUN = 64;

/**
 * Shortens every long whitespace run in a `<pre>`'s text: three or more line breaks become one
 * blank line (the next line's indentation kept), and a run of blanks longer than
 * {@link MAX_BLANK_RUN} is cut to it. Turndown's final trim (`/[\t\r\n\s]+$/`) rescans a run from
 * every position in it, so inside `<pre>` and `<code>`, where whitespace is kept, a long run cost
 * the square of its length; with runs bounded, it is linear. Elsewhere turndown collapses whitespace
 * before that trim (inline `<code>` included), so only `<pre>` needs it.
 */
function squeezeTextNodes(root: Node | null): void {
  const stack: Node[] = root ? [root] : [];
  while (stack.length > 0) {
    const node = stack.pop() as Node;
    if (node.nodeType === 3) {
      const text = node.nodeValue ?? '';
      const squeezed = squeezeBlankRuns(text);
      if (squeezed !== text) node.nodeValue = squeezed;
      continue;
    }
    for (let child = node.firstChild; child; child = child.nextSibling) stack.push(child);
  }
}

/**
 * The text with whitespace runs bounded (see {@link squeezeTextNodes}). One pass, linear.
 * @param text - a text node's value.
 */
export function squeezeBlankRuns(text: string): string {
  const n = text.length;
  let out = '';
  let copied = 0;
  let i = 0;
  while (i < n) {
    if (!isWhitespace(text.charCodeAt(i))) {
      i++;
      continue;
    }
    const start = i;
    let newlines = 0;
    let lastBreak = -1;
    while (i < n && isWhitespace(text.charCodeAt(i))) {
      const c = text.charCodeAt(i);
      if (c === 10 || (c === 13 && text.charCodeAt(i + 1) !== 10)) {
        newlines++;
        lastBreak = i;
      }
      i++;
    }
    if (newlines < 3 && i - start <= MAX_BLANK_RUN) continue;
    const indent = text.slice(lastBreak + 1, i).slice(0, MAX_BLANK_RUN);
    const replacement = newlines === 0 ? text.slice(start, start + MAX_BLANK_RUN) : `${'\n'.repeat(Math.min(newlines, 2))}${indent}`;
    out += text.slice(copied, start) + replacement;
    copied = i;
  }
  return copied === 0 ? text : out + text.slice(copied);
}

function isWhitespace(c: number): boolean {
  return c === 32 || c === 9 || c === 10 || c === 13 || c === 12 || c === 0xa0;
}

/** Deepest element nesting under `root`, measured without recursion. */
function domDepth(root: Element): number {
  let max = 0;
  const stack: Array<[Element, number]> = [[root, 1]];
  while (stack.length > 0) {
    const [element, depth] = stack.pop() as [Element, number];
    if (depth > max) max = depth;
    for (const child of Array.from(element.children)) stack.push([child, depth + 1]);
  }
  return max;
}

function markdownService(base: string): TurndownService {
  const service = new TurndownService({
    headingStyle: 'atx',
    codeBlockStyle: 'fenced',
    bulletListMarker: '-',
    emDelimiter: '_',
    hr: '---',
  });
  // The text is read by a model, not rendered: Markdown escapes would only add noise (`snake\_case`).
  service.escape = (text: string): string => text;
  service.use(gfm);
  service.remove(['img', 'picture', 'video', 'audio', 'button', 'input', 'select', 'textarea', 'script', 'style']);

  service.addRule('absoluteLinks', {
    filter: (node) => node.nodeName === 'A' && (node as HTMLElement).getAttribute('href') !== null,
    replacement: (content, node) => {
      const label = content.replace(/\s+/g, ' ').trim();
      const target = absolute((node as HTMLElement).getAttribute('href') ?? '', base);
      if (!label) return '';
      return target ? `[${label}](${target})` : label;
    },
  });
  service.addRule('plainPre', {
    filter: (node) => node.nodeName === 'PRE' && node.firstChild?.nodeName !== 'CODE',
    replacement: (_content, node) => {
      const code = trimTrailingNewlines(node.textContent ?? '');
      const fence = code.includes('```') ? '~~~~' : '```';
      return `\n\n${fence}\n${code}\n${fence}\n\n`;
    },
  });
  service.addRule('tableCell', {
    filter: ['th', 'td'],
    replacement: (content, node) => {
      const cell = content.replace(/\n+/g, ' ').replace(/\|/g, '\\|').trim();
      return `${isFirstCell(node) ? '| ' : ' '}${cell} |`;
    },
  });
  service.addRule('tableRow', {
    filter: 'tr',
    replacement: (content, node) => {
      const row = `\n${content}`;
      return isHeaderRow(node as HTMLTableRowElement) ? `${row}\n${separator(cellCount(node as HTMLTableRowElement))}` : row;
    },
  });
  service.addRule('table', {
    filter: 'table',
    replacement: (content, node) => {
      const rowElements = Array.from((node as HTMLTableElement).rows);
      const first = rowElements[0];
      const rows = content.replace(/\n{2,}/g, '\n').trim();
      if (!first) return rows ? `\n\n${rows}\n\n` : '';
      if (isHeaderRow(first)) return `\n\n${rows}\n\n`;
      // GFM needs a header row; a table without one gets an empty header of the widest row.
      let width = 0;
      for (const row of rowElements) width = Math.max(width, cellCount(row));
      const header = `|${' |'.repeat(width)}`;
      return `\n\n${header}\n${separator(width)}\n${rows}\n\n`;
    },
  });
  return service;
}

/** The text without its trailing newlines; a scan from the end, where `/\n+$/` would rescan every run. */
function trimTrailingNewlines(text: string): string {
  let end = text.length;
  while (end > 0 && text.charCodeAt(end - 1) === 10) end--;
  return text.slice(0, end);
}

function isFirstCell(node: Node): boolean {
  let previous = node.previousSibling;
  while (previous) {
    if (previous.nodeName === 'TD' || previous.nodeName === 'TH') return false;
    previous = previous.previousSibling;
  }
  return true;
}

function cellCount(row: HTMLTableRowElement): number {
  return Array.from(row.childNodes).filter((n) => n.nodeName === 'TD' || n.nodeName === 'TH').length;
}

function separator(width: number): string {
  return `|${' --- |'.repeat(Math.max(1, width))}`;
}

/**
 * A header row: inside THEAD, or the table's first row made only of TH cells. Looks only at nearby
 * siblings (never `table.rows`, which is rebuilt on every access and would make big tables quadratic).
 */
function isHeaderRow(row: HTMLTableRowElement): boolean {
  const parent = row.parentNode;
  if (!parent) return false;
  if (parent.nodeName === 'THEAD') return true;
  if (hasPrevious(row, (n) => n.nodeName === 'TR')) return false;
  if (parent.nodeName === 'TBODY' || parent.nodeName === 'TFOOT') {
    // Not the first row if an earlier section of the table holds rows.
    if (hasPrevious(parent, (n) => (n.nodeName === 'THEAD' || n.nodeName === 'TBODY' || n.nodeName === 'TR') && (n.textContent ?? '').trim() !== ''))
      return false;
  } else if (parent.nodeName !== 'TABLE') {
    return false;
  }
  const cells = Array.from(row.childNodes).filter((n) => n.nodeName === 'TD' || n.nodeName === 'TH');
  return cells.length > 0 && cells.every((n) => n.nodeName === 'TH');
}

function hasPrevious(node: Node, test: (n: Node) => boolean): boolean {
  for (let p = node.previousSibling; p; p = p.previousSibling) if (test(p)) return true;
  return false;
}

function safeBase(baseHref: string | undefined, pageUrl: string): string {
  if (baseHref) {
    try {
      const base = new URL(baseHref, pageUrl);
      if (base.protocol === 'https:' || base.protocol === 'http:') return base.href;
    } catch {
      // ignore a broken <base>
    }
  }
  return pageUrl;
}

function absolute(href: string, base: string): string | undefined {
  try {
    const url = new URL(href.trim(), base);
    if (url.protocol !== 'https:' && url.protocol !== 'http:') return undefined;
    return url.href;
  } catch {
    return undefined;
  }
}

function absoluteLinks(hrefs: readonly string[], base: string): string[] {
  const seen = new Set<string>();
  const links: string[] = [];
  for (const href of hrefs) {
    const target = absolute(href, base);
    if (!target) continue;
    const url = new URL(target);
    url.hash = '';
    if (seen.has(url.href)) continue;
    seen.add(url.href);
    links.push(url.href);
    if (links.length >= MAX_LINKS) break;
  }
  return links;
}

/**
 * Trims trailing spaces, tabs and no-break spaces from every line, turns runs of blank lines into one
 * blank line, and trims the whole. One pass over the text, so its cost is linear in the input
 * whatever the page holds (a regex such as `/[ \t]+$/gm` rescans a long run of blanks from every
 * position in it: quadratic, and 80,000 spaces stalled the server for 30 s).
 * @param text - Markdown or plain text.
 *
 * @remarks Security: runs on page bytes. Threat: a page built to freeze the server that shares the
 * proxy's event loop.
 */
export function collapseBlankRuns(text: string): string {
  const parts: string[] = [];
  let blankLines = 0;
  let wroteLine = false;
  let lineStart = 0;
  const n = text.length;
  for (let i = 0; i <= n; i++) {
    const c = i < n ? text.charCodeAt(i) : 10;
    if (c !== 10 && c !== 13) continue;
    let end = i;
    while (end > lineStart && isBlank(text.charCodeAt(end - 1))) end--;
    if (end === lineStart) {
      blankLines++;
    } else {
      if (wroteLine) parts.push(blankLines > 0 ? '\n\n' : '\n');
      parts.push(text.slice(lineStart, end));
      wroteLine = true;
      blankLines = 0;
    }
    if (c === 13 && i + 1 < n && text.charCodeAt(i + 1) === 10) i++;
    lineStart = i + 1;
  }
  // The whole is trimmed too: leading blanks of the first line go (inner and leading blanks of other lines stay).
  return parts.join('').trim();
}

function isBlank(c: number): boolean {
  return c === 32 || c === 9 || c === 0xa0;
}

/**
 * The text of a `text/plain` or `text/markdown` body: {@link collapseBlankRuns} under the same hard
 * time budget as the HTML path, so no body can hold the event loop longer than that; past it, the
 * body is returned as it came (line endings normalised), cut to the byte cap's worth of characters.
 * @param body - the decoded body.
 * @param limits - the `timeBudgetMs` of {@link HtmlToTextLimits} (default 1,500 ms).
 * @param transform - the transformation (a seam for the budget's test; default {@link collapseBlankRuns}).
 *
 * @remarks Security: page bytes. Threat: a body built to freeze the shared event loop.
 */
export function plainBodyToText(body: string, limits: HtmlToTextLimits = {}, transform: (text: string) => string = collapseBlankRuns): string {
  const budget = limits.timeBudgetMs ?? DEFAULTS.timeBudgetMs;
  const result = withinBudget(() => transform(body), budget);
  return result ?? body.split('\r\n').join('\n').trim();
}

/** Runs `job` under a hard wall-clock budget (a `vm` timeout interrupts even a synchronous loop). */
function withinBudget<T>(job: () => T, budgetMs: number): T | undefined {
  let result: T | undefined;
  guardContext.job = () => {
    result = job();
  };
  try {
    guardScript.runInContext(guardContext, { timeout: budgetMs });
  } catch {
    result = undefined;
  } finally {
    guardContext.job = undefined;
  }
  return result;
}
