import { hiddenFromReaders } from '../../internal.ts';

/**
 * An HTML file too long to read whole, as the text a reader sees: headings as Markdown headings (so its passages
 * keep their heading trail), paragraphs, list items, table rows and preformatted blocks, without scripts, styles or
 * markup. The browser's own parser reads it (no library in the page); tests give another DOM.
 */

/** Elements whose content is not text a reader sees. */
const HIDDEN = new Set(['script', 'style', 'noscript', 'template', 'svg', 'math', 'iframe', 'object', 'canvas', 'head', 'select']);
/** Elements that start and end a block of text. */
const BLOCKS = new Set([
  'address',
  'article',
  'aside',
  'blockquote',
  'body',
  'dd',
  'details',
  'div',
  'dl',
  'dt',
  'fieldset',
  'figcaption',
  'figure',
  'footer',
  'form',
  'header',
  'hr',
  'html',
  'main',
  'nav',
  'ol',
  'p',
  'section',
  'summary',
  'table',
  'tbody',
  'tfoot',
  'thead',
  'ul',
]);

/** True for a text that is an HTML document: by the file's name, else by how the text begins. */
export function isHtmlDocument(name: string, text: string): boolean {
  return /\.x?html?$/i.test(name.split(/[?#]/)[0] ?? '') || /^\s*(?:<!--[\s\S]*?-->\s*)*<(?:!doctype\s+html|html)[\s>]/i.test(text.slice(0, 2000));
}

/** Squeezes whitespace runs to one space. */
const squeeze = (text: string | null | undefined) => (text ?? '').replace(/\s+/g, ' ').trim();

/**
 * The text of an HTML document, in reading order, as light Markdown.
 * @param parse - reads HTML into a document (the page passes `DOMParser`).
 */
export function htmlDocumentText(html: string, parse: (html: string) => Document): string {
  const document = parse(html);
  const blocks: string[] = [];
  let line = '';
  const flush = () => {
    const text = squeeze(line);
    if (text && text !== '-') blocks.push(line.startsWith('- ') ? `- ${squeeze(line.slice(2))}` : text);
    line = '';
  };
  // Depth first with a stack of its own, not by recursion: a file nested a hundred thousand deep is read, not a stack overflow.
  const pending: (Node | (() => void))[] = [];
  const visitChildren = (node: Node) => {
    const children = node.childNodes;
    for (let i = children.length - 1; i >= 0; i--) pending.push(children[i] as Node);
  };
  visitChildren(document.body ?? document.documentElement);
  for (let item = pending.pop(); item !== undefined; item = pending.pop()) {
    if (typeof item === 'function') {
      item();
      continue;
    }
    if (item.nodeType === 3) {
      line += item.nodeValue ?? '';
      continue;
    }
    if (item.nodeType !== 1) continue;
    const element = item as Element;
    const tag = element.tagName.toLowerCase();
    if (HIDDEN.has(tag) || hiddenFromReaders(element)) continue;
    const heading = /^h([1-6])$/.exec(tag);
    if (heading) {
      flush();
      const text = squeeze(element.textContent);
      if (text) blocks.push(`${'#'.repeat(Number(heading[1]))} ${text}`);
    } else if (tag === 'pre') {
      flush();
      blocks.push(`\`\`\`\n${(element.textContent ?? '').replace(/\n+$/, '')}\n\`\`\``);
    } else if (tag === 'li') {
      flush();
      line = '- ';
      pending.push(flush);
      visitChildren(element);
    } else if (tag === 'tr') {
      flush();
      blocks.push(`| ${Array.from(element.children, (cell) => squeeze(cell.textContent)).join(' | ')} |`);
    } else if (tag === 'br') {
      flush();
    } else if (BLOCKS.has(tag)) {
      flush();
      pending.push(flush);
      visitChildren(element);
    } else visitChildren(element);
  }
  flush();
  const title = squeeze(document.title);
  // The title heads the text unless a heading already says it (a page's h1 usually does).
  if (title && !blocks.some((block) => block.replace(/^#+ /, '') === title && block.startsWith('#'))) blocks.unshift(`# ${title}`);
  // List items and table rows one to a line; other blocks apart, as paragraphs.
  return blocks.reduce((text, block, i) => {
    const previous = blocks[i - 1] ?? '';
    const together = (block.startsWith('- ') && previous.startsWith('- ')) || (block.startsWith('| ') && previous.startsWith('| '));
    return i === 0 ? block : `${text}${together ? '\n' : '\n\n'}${block}`;
  }, '');
}
