import { css } from 'lit';
import { controls } from './styles.ts';

/** The look of `<nexus-conversations>` (conversation-list.ts): the shared controls, then its own rules. */
export const conversationListStyles = [
  controls,
  css`
    :host {
      display: flex;
      flex-direction: column;
      gap: 0.75rem;
      min-height: 0;
    }
    .new {
      width: 100%;
      text-align: left;
      font-weight: 600;
      display: flex;
      align-items: center;
      gap: 0.5rem;
    }
    h2 {
      font-size: 0.75rem;
      text-transform: uppercase;
      letter-spacing: 0.05em;
      color: var(--faint);
      margin: 0.4rem 0.3rem 0;
    }
    ul {
      list-style: none;
      margin: 0;
      padding: 0;
      display: grid;
      gap: 0.15rem;
      overflow-y: auto;
    }
    li {
      display: flex;
      align-items: center;
      border-radius: var(--radius-sm);
    }
    li:hover,
    li.current {
      background: var(--surface-3);
    }
    .open {
      flex: 1;
      min-width: 0;
      text-align: left;
      border: 0;
      background: transparent;
      padding: 0.45rem 0.55rem;
      display: grid;
    }
    .open:hover:not(:disabled) {
      background: transparent;
    }
    /* Two lines, so conversations that start alike still read apart; the whole title is its tooltip. */
    .title {
      display: -webkit-box;
      -webkit-box-orient: vertical;
      -webkit-line-clamp: 2;
      line-clamp: 2;
      overflow: hidden;
      overflow-wrap: anywhere;
      font-size: 0.9rem;
    }
    .when {
      font-size: 0.75rem;
      color: var(--faint);
    }
    .action {
      border: 0;
      background: transparent;
      color: var(--faint);
      padding: 0.2rem 0.35rem;
      opacity: 0;
    }
    .delete {
      margin-right: 0.2rem;
    }
    li:hover .action,
    li.current .action,
    .action:focus-visible {
      opacity: 1;
    }
    @media (hover: none) {
      .action {
        opacity: 1;
      }
    }
    .search,
    .rename {
      width: 100%;
    }
    .undo,
    .import-error {
      font-size: 0.82rem;
      margin: 0 0.3rem;
    }
    .import-error {
      color: var(--danger);
    }
    .link {
      border: 0;
      background: transparent;
      color: var(--accent);
      padding: 0;
      text-decoration: underline;
    }
    .files {
      display: flex;
      flex-wrap: wrap;
      gap: 0.3rem;
      margin-top: auto;
    }
    .delete:hover:not(:disabled) {
      color: var(--danger);
      background: transparent;
    }
    .empty {
      font-size: 0.85rem;
      color: var(--faint);
      margin: 0 0.3rem;
    }
  `,
];
