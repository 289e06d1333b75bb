import { css } from 'lit';
import { controls } from './styles.ts';

/** The look of `<nexus-message>` (chat-message.ts): the shared controls, then its own rules. */
export const chatMessageStyles = [
  controls,
  css`
    :host {
      display: block;
    }
    .link-dialog {
      border: 1px solid var(--border);
      border-radius: var(--radius);
      background: var(--surface);
      color: var(--text);
      box-shadow: var(--shadow);
      padding: 1.2rem 1.3rem 1rem;
      width: min(34rem, calc(100vw - 2rem));
    }
    .link-dialog::backdrop {
      background: rgb(10 12 16 / 45%);
    }
    .link-dialog h3 {
      margin: 0 0 0.5rem;
      font-size: 1.05rem;
    }
    .link-dialog .url code {
      display: block;
      overflow-wrap: anywhere;
      max-height: 10rem;
      overflow: auto;
    }
    .link-dialog .warning {
      color: var(--danger, #b42318);
      font-weight: 600;
    }
    .link-dialog .buttons {
      display: flex;
      justify-content: flex-end;
      gap: 0.5rem;
    }
    .turn {
      display: grid;
      grid-template-columns: 2rem minmax(0, 1fr);
      gap: 0.75rem;
    }
    .avatar {
      width: 2rem;
      height: 2rem;
      border-radius: 50%;
      display: grid;
      place-items: center;
      background: var(--accent-soft);
      color: var(--accent);
      font-weight: 700;
      font-size: 0.85rem;
    }
    /* Drawn by CSS so that the answer's text content is the answer alone. */
    .avatar::before {
      content: 'N';
    }
    .body {
      min-width: 0;
      line-height: 1.65;
    }
    .markdown > :first-child {
      margin-top: 0.2rem;
    }
    .markdown > :last-child {
      margin-bottom: 0;
    }
    .markdown p,
    .markdown ul,
    .markdown ol,
    .markdown blockquote,
    .markdown table {
      margin: 0.6rem 0;
    }
    /* A long address or identifier breaks where it must: the chat never scrolls sideways. */
    .markdown {
      overflow-wrap: anywhere;
    }
    .markdown h1,
    .markdown h2,
    .markdown h3,
    .markdown h4 {
      line-height: 1.3;
      margin: 1.1rem 0 0.4rem;
    }
    .markdown h1 {
      font-size: 1.3rem;
    }
    .markdown h2 {
      font-size: 1.15rem;
    }
    .markdown h3,
    .markdown h4 {
      font-size: 1rem;
    }
    .markdown a {
      color: var(--accent);
    }
    .markdown p.plain {
      white-space: pre-wrap;
      overflow-wrap: anywhere;
    }
    .markdown a:not([href]) {
      color: inherit;
    }
    .markdown a.cite {
      text-decoration: none;
      font-size: 0.78em;
      font-weight: 600;
      vertical-align: super;
      line-height: 0;
      padding: 0 0.1em;
    }
    .markdown a.cite:hover {
      text-decoration: underline;
    }
    .markdown blockquote {
      border-left: 3px solid var(--border);
      padding-left: 0.8rem;
      color: var(--muted);
    }
    .markdown :not(pre) > code {
      word-break: break-all;
      background: var(--code-bg);
      padding: 0.1em 0.35em;
      border-radius: 5px;
    }
    .markdown table {
      border-collapse: collapse;
      display: block;
      overflow-x: auto;
    }
    .markdown th,
    .markdown td {
      border: 1px solid var(--border);
      padding: 0.3rem 0.6rem;
      /* Words stay whole in a cell (no letter-by-letter column on a phone): a wide table scrolls in its own box. */
      overflow-wrap: break-word;
      min-width: 4rem;
    }
    .code-block {
      border: 1px solid var(--border);
      border-radius: var(--radius-sm);
      overflow: hidden;
      margin: 0.7rem 0;
      background: var(--code-bg);
    }
    .code-bar {
      display: flex;
      justify-content: space-between;
      align-items: center;
      padding: 0.2rem 0.3rem 0.2rem 0.75rem;
      font-size: 0.75rem;
      color: var(--muted);
      border-bottom: 1px solid var(--border);
    }
    .code-bar button {
      font-size: 0.75rem;
      padding: 0.1rem 0.5rem;
      background: transparent;
      border-color: transparent;
    }
    .code-bar button:hover {
      background: var(--surface-3);
    }
    /* highlight.js's classes (rich-text.ts), in the page's colours for either theme. */
    .hljs-keyword,
    .hljs-built_in,
    .hljs-type,
    .hljs-selector-tag,
    .hljs-meta {
      color: var(--code-keyword);
    }
    .hljs-string,
    .hljs-regexp,
    .hljs-symbol,
    .hljs-attribute,
    .hljs-template-tag {
      color: var(--code-string);
    }
    .hljs-comment,
    .hljs-quote {
      color: var(--code-comment);
      font-style: italic;
    }
    .hljs-number,
    .hljs-literal,
    .hljs-variable,
    .hljs-template-variable {
      color: var(--code-number);
    }
    .hljs-title,
    .hljs-function,
    .hljs-section,
    .hljs-name,
    .hljs-attr {
      color: var(--code-title);
    }
    .math-display {
      margin: 0.7rem 0;
      overflow-x: auto;
      /* Only a formula wider than the column scrolls (and takes a Tab stop to do it): a glyph's few pixels
         above or below the line would make every one a scroller otherwise. */
      overflow-y: hidden;
      padding: 0.2em 0;
      text-align: center;
    }
    .math-display math {
      font-size: 1.15em;
    }
    pre {
      margin: 0;
      padding: 0.75rem;
      max-width: 100%;
      overflow-x: auto;
      font-size: 0.85rem;
      line-height: 1.5;
    }
    .typing {
      display: inline-flex;
      gap: 0.25rem;
      padding: 0.6rem 0;
    }
    .typing span {
      width: 0.4rem;
      height: 0.4rem;
      border-radius: 50%;
      background: var(--faint);
      animation: blink 1.2s infinite ease-in-out;
    }
    .typing span:nth-child(2) {
      animation-delay: 0.2s;
    }
    .typing span:nth-child(3) {
      animation-delay: 0.4s;
    }
    @keyframes blink {
      0%,
      80%,
      100% {
        opacity: 0.25;
      }
      40% {
        opacity: 1;
      }
    }
    @media (prefers-reduced-motion: reduce) {
      .typing span {
        animation: none;
      }
    }
    .note {
      font-size: 0.85rem;
      color: var(--muted);
      margin: 0.4rem 0 0;
    }
    .answer-meta {
      font-size: 0.75rem;
      color: var(--muted);
      margin: 0.35rem 0 0;
    }
    .status {
      font-size: 0.85rem;
      color: var(--muted);
      margin: 0.4rem 0 0;
      font-style: italic;
    }
    .draft {
      font-size: 0.85rem;
      color: var(--muted);
      margin: 0 0 0.4rem;
    }
    .draft p {
      margin: 0.3rem 0 0;
      white-space: pre-wrap;
      overflow-wrap: anywhere;
    }
    .note.failed {
      color: var(--danger);
      white-space: pre-wrap;
    }
    /* Above the answer: the tools ran before it was written. */
    .activity {
      list-style: none;
      margin: 0 0 0.75rem;
      padding: 0.5rem 0.7rem;
      border-left: 2px solid var(--border);
      display: grid;
      gap: 0.3rem;
      font-size: 0.86rem;
      color: var(--muted);
    }
    .activity .passages {
      margin: 0.2rem 0 0;
      padding-left: 1.2rem;
      font-size: 0.85em;
    }
    .activity li {
      min-width: 0;
      overflow-wrap: anywhere;
    }
    .activity .line {
      display: inline;
    }
    .activity .what {
      color: var(--text);
    }
    .activity .failed .what {
      color: var(--danger);
    }
    .activity a {
      color: var(--accent);
    }
    .activity .badge {
      margin-left: 0.35rem;
      vertical-align: 1px;
    }
    .activity .for-you {
      margin: 0.2rem 0 0;
      font-size: 0.85rem;
    }
    .activity details {
      margin-top: 0.25rem;
    }
    .activity summary {
      cursor: pointer;
      font-size: 0.8rem;
      width: fit-content;
    }
    .activity pre {
      background: var(--code-bg);
      border-radius: var(--radius-sm);
      max-height: 16rem;
      font-size: 0.8rem;
      margin-top: 0.3rem;
      white-space: pre-wrap;
    }
    .sources ol {
      margin: 0;
      padding-left: 1.4rem;
    }
    .sources {
      margin: 0.8rem 0 0;
      padding: 0.6rem 0.8rem;
      background: var(--surface-2);
      border-radius: var(--radius-sm);
      font-size: 0.86rem;
    }
    .sources h3 {
      font-size: 0.78rem;
      text-transform: uppercase;
      letter-spacing: 0.04em;
      color: var(--muted);
      margin: 0 0 0.3rem;
    }
    .sources li {
      margin: 0.15rem 0;
      overflow-wrap: anywhere;
    }
    .sources a {
      color: var(--accent);
    }
    .sources .host {
      color: var(--faint);
      margin-left: 0.35rem;
    }
    .actions {
      display: flex;
      flex-wrap: wrap;
      gap: 0.2rem;
      margin-top: 0.4rem;
    }
    /* Small text, but a target a finger can hit (at least 32 px tall). */
    .actions button {
      font-size: 0.8rem;
      padding: 0.15rem 0.6rem;
      min-height: 2rem;
      color: var(--muted);
    }
    .diagnostics {
      min-width: 0;
      overflow-wrap: anywhere;
      margin-top: 0.5rem;
      border: 1px solid var(--border);
      border-radius: var(--radius-sm);
      padding: 0.6rem 0.8rem;
      font-size: 0.82rem;
      background: var(--surface);
    }
    .metrics {
      display: grid;
      grid-template-columns: repeat(auto-fill, minmax(9rem, 1fr));
      gap: 0.3rem 1rem;
      margin: 0 0 0.6rem;
    }
    .metrics div {
      display: flex;
      justify-content: space-between;
      gap: 0.5rem;
      border-bottom: 1px dotted var(--border);
    }
    /* A label never shrinks to a letter a line; a long value (the model) takes the whole row and wraps. */
    .metrics div.wide {
      grid-column: 1 / -1;
    }
    .metrics dt {
      color: var(--muted);
      flex: none;
    }
    .metrics dd {
      min-width: 0;
      text-align: right;
      overflow-wrap: anywhere;
      margin: 0;
      font-variant-numeric: tabular-nums;
      font-weight: 600;
    }
    .entries {
      list-style: none;
      margin: 0;
      padding: 0;
      display: grid;
      grid-template-columns: minmax(0, 1fr);
      gap: 0.4rem;
    }
    .entries .kind {
      font-weight: 600;
    }
    .entries pre {
      background: var(--code-bg);
      border-radius: var(--radius-sm);
      white-space: pre-wrap;
      font-size: 0.78rem;
      max-height: 14rem;
      margin-top: 0.2rem;
    }
  `,
];
