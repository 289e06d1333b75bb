/**
 * Syntax colours for code blocks (highlight.js) and rendered math (KaTeX, as MathML the browser lays
 * out itself: no fonts or style sheet to load): loaded only when an answer holds code or math.
 */
import DOMPurify from 'dompurify';
import hljs from 'highlight.js/lib/core';
import bash from 'highlight.js/lib/languages/bash';
import c from 'highlight.js/lib/languages/c';
import cpp from 'highlight.js/lib/languages/cpp';
import csharp from 'highlight.js/lib/languages/csharp';
import css from 'highlight.js/lib/languages/css';
import go from 'highlight.js/lib/languages/go';
import java from 'highlight.js/lib/languages/java';
import javascript from 'highlight.js/lib/languages/javascript';
import json from 'highlight.js/lib/languages/json';
import kotlin from 'highlight.js/lib/languages/kotlin';
import markdown from 'highlight.js/lib/languages/markdown';
import php from 'highlight.js/lib/languages/php';
import python from 'highlight.js/lib/languages/python';
import ruby from 'highlight.js/lib/languages/ruby';
import rust from 'highlight.js/lib/languages/rust';
import sql from 'highlight.js/lib/languages/sql';
import swift from 'highlight.js/lib/languages/swift';
import typescript from 'highlight.js/lib/languages/typescript';
import xml from 'highlight.js/lib/languages/xml';
import yaml from 'highlight.js/lib/languages/yaml';
import katex from 'katex';

for (const [name, language] of Object.entries({
  bash,
  c,
  cpp,
  csharp,
  css,
  go,
  java,
  javascript,
  json,
  kotlin,
  markdown,
  php,
  python,
  ruby,
  rust,
  sql,
  swift,
  typescript,
  xml,
  yaml,
})) {
  hljs.registerLanguage(name, language);
}

/**
 * What the highlighter and KaTeX write still goes through DOMPurify: the code and the formula are the
 * model's text, and only highlight.js's own spans (classes `hljs-…`) and MathML come out.
 */
const purify = DOMPurify(window);
purify.addHook('uponSanitizeAttribute', (_node, data) => {
  if (data.attrName === 'class' && !/^hljs-[\w-]+(?: [\w-]+_*)*$/.test(data.attrValue)) data.keepAttr = false;
});

/** Colours every code block whose language highlight.js knows (a block without one, or an unknown one, stays plain). */
export function highlightCode(root: ParentNode): void {
  for (const code of root.querySelectorAll<HTMLElement>('pre code[class*="language-"]')) {
    if (code.dataset.highlighted) continue;
    const language = /language-([\w+-]+)/.exec(code.className)?.[1] ?? '';
    if (!hljs.getLanguage(language)) continue;
    const html = hljs.highlight(code.textContent ?? '', { language, ignoreIllegals: true }).value;
    code.replaceChildren(purify.sanitize(html, { ALLOWED_TAGS: ['span'], ALLOWED_ATTR: ['class'], RETURN_DOM_FRAGMENT: true }));
    code.dataset.highlighted = 'yes';
  }
}

/** Lays out every formula the Markdown marked (`$…$`, `$$…$$`, `\(…\)`, `\[…\]`); one KaTeX cannot read stays as written. */
export function renderMath(root: ParentNode): void {
  for (const element of root.querySelectorAll<HTMLElement>('.math-inline, .math-display')) {
    if (element.dataset.rendered) continue;
    const tex = element.textContent ?? '';
    const mathml = katex.renderToString(tex, {
      output: 'mathml',
      displayMode: element.classList.contains('math-display'),
      throwOnError: false,
      // No \href, \url or \includegraphics, and no macro that expands without end.
      trust: false,
      maxExpand: 500,
      maxSize: 20,
    });
    // The MathML is what a screen reader reads (its TeX stays in the annotation KaTeX writes, not in a name).
    element.replaceChildren(purify.sanitize(mathml, { USE_PROFILES: { mathMl: true }, RETURN_DOM_FRAGMENT: true }));
    element.dataset.rendered = 'yes';
  }
}
