import DOMPurify, { type Config } from 'dompurify';
import { Marked } from 'marked';
import { planMarkdown, type MarkdownBlock } from './markdown-blocks.ts';
import type { Source } from '../state/web-research.ts';

/** `$$…$$` or `\[…\]` on lines of their own: a displayed formula. */
const MATH_BLOCK = /^(?:\$\$([\s\S]+?)\$\$|\\\[([\s\S]+?)\\\])[ \t]*(?:\n|$)/;
/** `$…$` (no space inside either dollar, none followed by a digit: "$5 and $10" is money) or `\(…\)`. */
const MATH_INLINE = /^(?:\$(?![\s$])((?:\\.|[^\\$\n])+?)(?<!\s)\$(?!\d)|\\\((.+?)\\\))/;

/**
 * Model output is untrusted: a web page the model read can make it write anything. So raw HTML in
 * the Markdown is shown as text rather than parsed, and what marked produces still goes through
 * DOMPurify with a short allow-list (no images: a remote image is a way to leak the conversation).
 */
const marked = new Marked({
  gfm: true,
  async: false,
  renderer: {
    html: ({ text }) => escapeHtml(text),
  },
  // Formulas are kept whole before emphasis can take their underscores and stars; rich-text.ts lays them out.
  extensions: [
    {
      name: 'mathBlock',
      level: 'block',
      start: (src: string) => /\$\$|\\\[/.exec(src)?.index,
      tokenizer(src: string) {
        const match = MATH_BLOCK.exec(src);
        return match ? { type: 'mathBlock', raw: match[0], text: (match[1] ?? match[2] ?? '').trim() } : undefined;
      },
      renderer: (token) => `<div class="math-display">${escapeHtml(String(token.text))}</div>`,
    },
    {
      name: 'mathInline',
      level: 'inline',
      start: (src: string) => /\$|\\\(/.exec(src)?.index,
      tokenizer(src: string) {
        const match = MATH_INLINE.exec(src);
        return match ? { type: 'mathInline', raw: match[0], text: match[1] ?? match[2] ?? '' } : undefined;
      },
      renderer: (token) => `<span class="math-inline">${escapeHtml(String(token.text))}</span>`,
    },
  ],
  // An answer sits under the page's own headings: its "# Title" is a section, not the page title.
  walkTokens: (token) => {
    if (token.type === 'heading') token.depth = Math.min(6, token.depth + 1);
  },
});

const purify = DOMPurify(window);

purify.addHook('uponSanitizeAttribute', (_node, data) => {
  // Classes from model output could imitate the page's own controls; only code languages and formulas stay.
  if (data.attrName === 'class' && !/^(?:language-[\w+-]+|math-inline|math-display)$/.test(data.attrValue)) data.keepAttr = false;
});
purify.addHook('afterSanitizeAttributes', (node) => {
  if (node.tagName === 'A') {
    node.setAttribute('target', '_blank');
    node.setAttribute('rel', 'noopener noreferrer');
  }
});

const SANITIZE: Config = {
  ALLOWED_TAGS: [
    'p',
    'br',
    'hr',
    'strong',
    'em',
    'del',
    's',
    'code',
    'pre',
    'blockquote',
    'a',
    'ul',
    'ol',
    'li',
    'h1',
    'h2',
    'h3',
    'h4',
    'h5',
    'h6',
    'table',
    'thead',
    'tbody',
    'tr',
    'th',
    'td',
    'sup',
    'sub',
    'input',
    // Only the formula wrappers above make these; raw HTML in an answer is text.
    'span',
    'div',
  ],
  ALLOWED_ATTR: ['href', 'title', 'class', 'type', 'checked', 'disabled', 'align', 'start'],
  // Absolute web and mail links only: no javascript:, data:, or addresses relative to this page.
  ALLOWED_URI_REGEXP: /^(?:https?:|mailto:)/i,
};

function renderBlock(block: MarkdownBlock): DocumentFragment {
  if (block.kind === 'plain') {
    const fragment = document.createDocumentFragment();
    const plain = document.createElement('p');
    plain.className = 'plain';
    plain.textContent = block.text;
    fragment.append(plain);
    return fragment;
  }
  let html: string;
  try {
    html = marked.parse(block.text) as string;
  } catch {
    // A shape the bounds did not foresee (the parser's stack overflowed): plain text, never a broken page.
    return renderBlock({ text: block.text, kind: 'plain' });
  }
  return purify.sanitize(html, { ...SANITIZE, RETURN_DOM_FRAGMENT: true }) as DocumentFragment;
}

function escapeHtml(text: string): string {
  return text.replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`);
}

/**
 * Renders an answer's Markdown into a detached element that is safe to insert: sanitized, links
 * opening in a new tab without access to this page, `[n]` turned into links to the answer's
 * sources, and a copy button on every code block.
 *
 * The answer is rendered block by block within `MARKDOWN_LIMITS` (see {@link planMarkdown}):
 * a block too long or too deeply nested, and whatever comes past the character budget, is shown as
 * plain text. Finished blocks are kept in `cache`, so while an answer streams only its last block is
 * parsed again.
 *
 * @param text - the answer's Markdown.
 * @param sources - the answer's sources, for `[n]` citations.
 * @param cache - the message's rendered blocks, reused across calls (pass the same map each time).
 */
export function renderMarkdown(text: string, sources: readonly Source[] = [], cache?: Map<string, DocumentFragment>): HTMLElement {
  const container = document.createElement('div');
  container.className = 'markdown';
  const blocks = planMarkdown(text);
  const used = new Set<string>();
  blocks.forEach((block, index) => {
    const key = `${block.kind}\u0000${block.text}`;
    const finished = index < blocks.length - 1;
    let fragment = finished ? cache?.get(key) : undefined;
    if (!fragment) {
      fragment = renderBlock(block);
      if (finished) cache?.set(key, fragment);
    }
    if (finished) used.add(key);
    container.append(fragment.cloneNode(true));
  });
  // Only the blocks of this answer stay cached (a regenerated answer starts over).
  if (cache) for (const key of cache.keys()) if (!used.has(key)) cache.delete(key);
  // Task-list checkboxes are the only inputs marked writes; they must not be editable.
  for (const input of container.querySelectorAll('input')) {
    if (input.type !== 'checkbox') input.remove();
    else input.disabled = true;
  }
  if (sources.length) linkCitations(container, sources);
  for (const pre of container.querySelectorAll('pre')) addCopyButton(pre);
  return container;
}

/** `[3]` or `[1, 2]` in the text (not in code or links) becomes links to those sources. */
function linkCitations(root: HTMLElement, sources: readonly Source[]): void {
  const byNumber = new Map(sources.filter((s) => isWebAddress(s.url)).map((s) => [s.n, s]));
  const walker = document.createTreeWalker(root, NodeFilter.SHOW_TEXT);
  const texts: Text[] = [];
  for (let node = walker.nextNode(); node; node = walker.nextNode()) {
    if (!(node.parentElement?.closest('code, pre, a') ?? null)) texts.push(node as Text);
  }
  const pattern = /\[(\d{1,3}(?:\s*,\s*\d{1,3})*)\]/g;
  for (const node of texts) {
    const value = node.data;
    if (!pattern.test(value)) continue;
    pattern.lastIndex = 0;
    const parts: (string | Node)[] = [];
    let at = 0;
    for (let match = pattern.exec(value); match; match = pattern.exec(value)) {
      const numbers = (match[1] ?? '').split(',').map((n) => Number(n.trim()));
      if (!numbers.every((n) => byNumber.has(n))) continue;
      parts.push(value.slice(at, match.index));
      for (const n of numbers) parts.push(citationLink(byNumber.get(n) as Source));
      at = match.index + match[0].length;
    }
    if (at === 0) continue;
    parts.push(value.slice(at));
    node.replaceWith(...parts);
  }
}

function citationLink(source: Source): HTMLAnchorElement {
  const link = document.createElement('a');
  link.className = 'cite';
  link.href = source.url;
  link.target = '_blank';
  link.rel = 'noopener noreferrer';
  link.title = source.title;
  link.textContent = `[${source.n}]`;
  link.setAttribute('aria-label', `Source ${source.n}: ${source.title}`);
  return link;
}

function addCopyButton(pre: HTMLPreElement): void {
  const wrapper = document.createElement('div');
  wrapper.className = 'code-block';
  const bar = document.createElement('div');
  bar.className = 'code-bar';
  const language = /language-([\w+-]+)/.exec(pre.querySelector('code')?.className ?? '')?.[1];
  const label = document.createElement('span');
  label.textContent = language ?? 'code';
  const button = document.createElement('button');
  button.type = 'button';
  button.className = 'copy';
  button.textContent = 'Copy';
  button.setAttribute('aria-label', 'Copy code');
  bar.append(label, button);
  pre.replaceWith(wrapper);
  wrapper.append(bar, pre);
}

/**
 * Colours the code and lays out the formulas of a rendered answer, with code loaded the first time an
 * answer has either (highlight.js and KaTeX stay out of the page until then).
 */
export async function enrichMarkdown(container: HTMLElement): Promise<void> {
  const code = container.querySelector('pre code[class*="language-"]:not([data-highlighted])');
  const math = container.querySelector('.math-inline:not([data-rendered]), .math-display:not([data-rendered])');
  if (!code && !math) return;
  const { highlightCode, renderMath } = await import('./rich-text.ts');
  if (code) highlightCode(container);
  if (math) renderMath(container);
}

/** True for an absolute http(s) address: the only kind a source link may point to. */
export function isWebAddress(url: string): boolean {
  try {
    const { protocol } = new URL(url);
    return protocol === 'https:' || protocol === 'http:';
  } catch {
    return false;
  }
}
