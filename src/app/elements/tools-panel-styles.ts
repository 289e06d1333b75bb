import { css } from 'lit';
import { controls } from './styles.ts';

/** The look of `<nexus-tools-panel>` (tools-panel.ts): the shared controls, then its own rules. */
export const toolsPanelStyles = [
  controls,
  css`
    :host {
      display: block;
    }
    .head {
      display: flex;
      justify-content: space-between;
      align-items: center;
      gap: 0.5rem;
      margin-bottom: 0.75rem;
    }
    .head p {
      margin: 0;
      font-size: 0.85rem;
    }
    .offered {
      border: 1px solid var(--border);
      border-radius: var(--radius-sm);
      padding: 0.5rem 0.7rem;
      margin-bottom: 0.8rem;
      font-size: 0.85rem;
    }
    .offered h3 {
      font-size: 0.85rem;
      margin: 0 0 0.3rem;
    }
    .offered ul {
      margin: 0;
      padding-left: 1rem;
    }
    .warning {
      color: var(--danger);
      overflow-wrap: anywhere;
    }
    .error {
      border: 1px solid color-mix(in srgb, var(--danger) 45%, var(--border));
      background: var(--danger-soft);
      color: var(--danger);
      border-radius: var(--radius-sm);
      padding: 0.6rem 0.75rem;
      margin-bottom: 0.9rem;
      font-size: 0.86rem;
      white-space: pre-wrap;
      overflow-wrap: anywhere;
    }
    .error strong {
      display: block;
      margin-bottom: 0.2rem;
    }
    ul {
      list-style: none;
      margin: 0;
      padding: 0;
      display: grid;
      gap: 0.75rem;
    }
    li {
      border: 1px solid var(--border);
      border-radius: var(--radius-sm);
      padding: 0.65rem 0.8rem;
      background: var(--surface);
    }
    .name {
      display: flex;
      flex-wrap: wrap;
      gap: 0.4rem;
      align-items: center;
    }
    .name code {
      font-weight: 700;
      font-size: 0.92rem;
    }
    .description {
      margin: 0.3rem 0 0.45rem;
      font-size: 0.86rem;
      color: var(--muted);
    }
    table {
      width: 100%;
      border-collapse: collapse;
      font-size: 0.8rem;
    }
    th {
      text-align: left;
      font-weight: 600;
      color: var(--faint);
      padding: 0.2rem 0.3rem;
      border-bottom: 1px solid var(--border);
    }
    td {
      padding: 0.25rem 0.3rem;
      vertical-align: top;
      border-bottom: 1px solid var(--surface-2);
    }
    td:first-child {
      white-space: nowrap;
    }
    .type {
      color: var(--accent);
      font-family: var(--mono);
    }
    .servers {
      margin-bottom: 0.9rem;
    }
    .servers h3 {
      font-size: 0.9rem;
      margin: 0 0 0.4rem;
    }
    .server {
      display: grid;
      grid-template-columns: 1fr auto;
      gap: 0.2rem 0.5rem;
      align-items: center;
    }
    .server .why {
      grid-column: 1 / -1;
      font-size: 0.82rem;
      overflow-wrap: anywhere;
    }
    .server .actions {
      display: flex;
      gap: 0.3rem;
    }
    .add {
      display: flex;
      flex-wrap: wrap;
      gap: 0.4rem;
      align-items: center;
      margin-top: 0.5rem;
      font-size: 0.85rem;
    }
    .filter {
      width: 100%;
      margin: 0 0 0.5rem;
    }
    .add input[type='url'] {
      flex: 1 1 14rem;
      min-width: 0;
    }
  `,
];
