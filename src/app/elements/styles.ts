import { css } from 'lit';

/** The dark palette: used when the system is dark, or when the user chose dark. */
const DARK = css`
  --bg: #0f1115;
  --surface: #161920;
  --surface-2: #1c2029;
  --surface-3: #262b36;
  --text: #e6e8ee;
  --muted: #a1a7b3;
  --faint: #949aa6;
  --border: #2a2f3a;
  --accent: #8b85ff;
  --accent-strong: #a5a0ff;
  --accent-soft: #24234a;
  --on-accent: #0f1115;
  --ok: #4ade80;
  --ok-soft: #12291c;
  --warn: #fbbf24;
  --warn-soft: #2d230f;
  --danger: #f87171;
  --danger-soft: #2e1515;
  --code-bg: #1d212a;
  --code-keyword: #c9a6ff;
  --code-string: #8be0a9;
  --code-comment: #9ca3b0;
  --code-number: #f6b878;
  --code-title: #8cbcff;
  --shadow: 0 1px 2px rgb(0 0 0 / 40%), 0 6px 20px rgb(0 0 0 / 35%);
`;

/**
 * Design tokens, set once on the root element and inherited through every shadow root. Dark mode
 * follows the system setting unless the user chose a theme (`data-theme` on the root element).
 */
export const tokens = css`
  :host {
    --bg: #f6f7f9;
    --surface: #ffffff;
    --surface-2: #f0f2f5;
    --surface-3: #e7eaef;
    --text: #1b1e24;
    --muted: #616875;
    --faint: #636a76;
    --border: #dfe3e9;
    --accent: #4f46e5;
    --accent-strong: #4338ca;
    --accent-soft: #eef0ff;
    --on-accent: #ffffff;
    --ok: #15803d;
    --ok-soft: #eaf7ef;
    --warn: #b45309;
    --warn-soft: #fff6e6;
    --danger: #b42318;
    --danger-soft: #fdeceb;
    --code-bg: #f3f4f7;
    --code-keyword: #6b2fb8;
    --code-string: #0c6b34;
    --code-comment: #5a606b;
    --code-number: #9a4300;
    --code-title: #1c56b0;
    --shadow: 0 1px 2px rgb(16 24 40 / 6%), 0 4px 16px rgb(16 24 40 / 6%);
    --radius: 12px;
    --radius-sm: 8px;
    --font: ui-sans-serif, system-ui, -apple-system, 'Segoe UI', Roboto, 'Helvetica Neue', Arial, sans-serif;
    --mono: ui-monospace, 'SFMono-Regular', 'JetBrains Mono', Menlo, Consolas, monospace;
    color-scheme: light dark;
  }
  :host([data-theme='dark']) {
    ${DARK}
    color-scheme: dark;
  }
  :host([data-theme='light']) {
    color-scheme: light;
  }
  @media (prefers-color-scheme: dark) {
    :host(:not([data-theme='light'])) {
      ${DARK}
    }
  }
`;

/** Buttons, fields and small helpers every element uses. */
export const controls = css`
  :host {
    font-family: var(--font);
    color: var(--text);
  }
  *,
  *::before,
  *::after {
    box-sizing: border-box;
  }
  button,
  input,
  select,
  textarea {
    font: inherit;
    color: inherit;
  }
  button {
    cursor: pointer;
    border: 1px solid var(--border);
    background: var(--surface);
    border-radius: var(--radius-sm);
    padding: 0.4rem 0.8rem;
    line-height: 1.3;
    transition: background 0.15s, border-color 0.15s;
  }
  button:hover:not(:disabled) {
    background: var(--surface-2);
  }
  button:disabled {
    opacity: 0.5;
    cursor: default;
  }
  button.primary {
    background: var(--accent);
    border-color: var(--accent);
    color: var(--on-accent);
    font-weight: 600;
  }
  button.primary:hover:not(:disabled) {
    background: var(--accent-strong);
  }
  button.ghost {
    border-color: transparent;
    background: transparent;
  }
  button.ghost:hover:not(:disabled) {
    background: var(--surface-2);
  }
  button.danger {
    color: var(--danger);
  }
  button.small {
    padding: 0.2rem 0.55rem;
    font-size: 0.82rem;
  }
  :focus-visible {
    outline: 2px solid var(--accent);
    outline-offset: 2px;
  }
  input[type='text'],
  input[type='number'],
  select,
  textarea {
    background: var(--surface);
    border: 1px solid var(--border);
    border-radius: var(--radius-sm);
    padding: 0.45rem 0.6rem;
    width: 100%;
  }
  input:focus,
  select:focus,
  textarea:focus {
    border-color: var(--accent);
    outline: none;
    box-shadow: 0 0 0 3px color-mix(in srgb, var(--accent) 20%, transparent);
  }
  code {
    font-family: var(--mono);
    font-size: 0.88em;
  }
  .muted {
    color: var(--muted);
  }
  .sr-only {
    position: absolute;
    width: 1px;
    height: 1px;
    margin: -1px;
    overflow: hidden;
    clip: rect(0 0 0 0);
    white-space: nowrap;
    border: 0;
  }
  .badge {
    display: inline-flex;
    align-items: center;
    gap: 0.25rem;
    font-size: 0.75rem;
    font-weight: 600;
    padding: 0.05rem 0.45rem;
    border-radius: 999px;
    background: var(--surface-3);
    color: var(--muted);
    white-space: nowrap;
  }
  .badge.ok {
    background: var(--ok-soft);
    color: var(--ok);
  }
  .badge.warn {
    background: var(--warn-soft);
    color: var(--warn);
  }
  .badge.danger {
    background: var(--danger-soft);
    color: var(--danger);
  }
  .badge.accent {
    background: var(--accent-soft);
    color: var(--accent);
  }
`;
