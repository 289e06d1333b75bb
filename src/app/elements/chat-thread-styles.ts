import { css } from 'lit';
import { controls } from './styles.ts';

/** The look of `<nexus-thread>` (chat-thread.ts): the shared controls, then its own rules. */
export const chatThreadStyles = [
  controls,
  css`
    :host {
      display: block;
    }
    .log {
      display: grid;
      gap: 1.4rem;
    }
    .user {
      display: flex;
      flex-direction: column;
      align-items: flex-end;
      gap: 0.2rem;
    }
    .bubble {
      background: var(--accent-soft);
      border-radius: 16px 16px 4px 16px;
      padding: 0.6rem 0.95rem;
      max-width: min(85%, 38rem);
      white-space: pre-wrap;
      overflow-wrap: anywhere;
      line-height: 1.55;
    }
    /* Small text, but a target a finger can hit (at least 32 px tall and 44 px wide). */
    .user .edit-link {
      font-size: 0.8rem;
      color: var(--muted);
      padding: 0.1rem 0.6rem;
      min-height: 2rem;
      min-width: 2.75rem;
    }
    .versions {
      display: flex;
      align-items: center;
      gap: 0.2rem;
      font-size: 0.8rem;
      color: var(--muted);
    }
    .versions button {
      min-height: 2rem;
      min-width: 2rem;
      padding: 0 0.4rem;
    }
    .answer-versions {
      margin-top: -1rem;
    }
    .editor {
      width: min(100%, 38rem);
      display: grid;
      gap: 0.4rem;
    }
    .editor textarea {
      min-height: 5rem;
      resize: vertical;
    }
    .editor .buttons {
      display: flex;
      gap: 0.4rem;
      justify-content: flex-end;
    }
    .empty {
      text-align: center;
      padding: 2.5rem 1rem 1rem;
      color: var(--muted);
    }
    .empty h2 {
      color: var(--text);
      font-size: 1.3rem;
      margin: 0 0 0.4rem;
    }
    .empty p {
      margin: 0 auto 1.2rem;
      max-width: 30rem;
    }
    .attached {
      display: flex;
      flex-wrap: wrap;
      justify-content: flex-end;
      gap: 0.3rem;
      list-style: none;
      margin: 0.3rem 0 0;
      padding: 0;
    }
    .attached li {
      border: 1px solid var(--border);
      border-radius: var(--radius);
      padding: 0.05rem 0.6rem;
      font-size: 0.78rem;
      color: var(--muted);
      max-width: 100%;
    }
    .attached .muted {
      color: var(--muted);
      font-size: 0.8em;
    }
    .attached pre {
      white-space: pre-wrap;
      overflow-wrap: anywhere;
      max-height: 12rem;
      overflow: auto;
      color: var(--text);
    }
    .suggestions {
      display: flex;
      flex-wrap: wrap;
      gap: 0.5rem;
      justify-content: center;
    }
    .suggestions button {
      border-radius: 999px;
      font-size: 0.88rem;
    }
    .memory-start {
      margin: 0;
      padding: 0.45rem 0.8rem;
      border-top: 1px dashed var(--border);
      border-bottom: 1px dashed var(--border);
      color: var(--muted);
      font-size: 0.85rem;
      text-align: center;
    }
    .memory-notice {
    margin: 0.5rem 0 0;
    color: var(--muted);
    font-size: 0.85rem;
    text-align: center;
  }
  .memory-notice .link {
    background: none;
    border: 0;
    color: var(--accent);
    text-decoration: underline;
    cursor: pointer;
    font: inherit;
    padding: 0;
  }
`,
];
