import { css } from 'lit';

/** What the page's modal dialogs share: the box, the backdrop, the title, the words and the button row. */
export const dialogStyles = css`
  dialog {
    border: 1px solid var(--border);
    border-radius: var(--radius);
    background: var(--surface);
    color: var(--text);
    box-shadow: var(--shadow);
    padding: 1.3rem 1.4rem 1.1rem;
    width: min(32rem, calc(100vw - 2rem));
  }
  dialog::backdrop {
    background: rgb(10 12 16 / 45%);
    backdrop-filter: blur(2px);
  }
  h2 {
    margin: 0 0 0.3rem;
    font-size: 1.1rem;
  }
  .description {
    margin: 0 0 0.9rem;
    color: var(--muted);
    font-size: 0.9rem;
  }
  .why {
    font-size: 0.82rem;
    color: var(--muted);
    margin: 0 0 1rem;
  }
  .buttons {
    display: flex;
    justify-content: flex-end;
    flex-wrap: wrap;
    gap: 0.5rem;
  }
`;
