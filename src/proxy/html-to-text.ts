import vm from 'node:vm';
import { Readability } from '@mozilla/readability';
import { parseHTML } from 'linkedom';
import TurndownService from 'turndown';
import { gfm } from 'turndown-plugin-gfm';
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
  let result: PageText | undefined;
  guardContext.job = () => {
    result = convertWithDom(html, pageUrl, scan.elements <= caps.readabilityMaxElements, caps.readabilityMaxDepth);
  };
  try {
    guardScript.runInContext(guardContext, { timeout: caps.timeBudgetMs });
  } catch {
    result = undefined;
  } finally {
    guardContext.job = undefined;
  }
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
  for (const element of document.querySelectorAll(DROP_SELECTOR)) element.remove();

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
      for (const element of document.querySelectorAll(DROP_SELECTOR)) element.remove();
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
      const code = (node.textContent ?? '').replace(/\n+$/, '');
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
    if (hasPrevious(parent, (n) => (n.nodeName === 'THEAD' || n.nodeName === 'TBODY' || n.nodeName === 'TR') && (n.textContent ?? '').trim() !== '')) return false;
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
 * Trims trailing spaces, and turns runs of blank lines into one blank line.
 * @param text - Markdown or plain text.
 */
export function collapseBlankRuns(text: string): string {
  return text
    .replace(/\r\n?/g, '\n')
    .replace(/[ \t\u00a0]+$/gm, '')
    .replace(/\n{3,}/g, '\n\n')
    .trim();
}
