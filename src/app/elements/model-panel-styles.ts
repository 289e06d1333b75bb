import { css } from 'lit';
import { controls } from './styles.ts';

/** The look of `<nexus-model-panel>` (model-panel.ts): the shared controls, then its own rules. */
export const modelPanelStyles = [
  controls,
  css`
    :host {
      display: block;
    }
    .card {
      background: var(--surface);
      border: 1px solid var(--border);
      border-radius: var(--radius);
      box-shadow: var(--shadow);
      padding: 1.25rem 1.4rem;
    }
    h2 {
      font-size: 1.1rem;
      margin: 0 0 0.2rem;
    }
    .lead {
      margin: 0 0 1rem;
      color: var(--muted);
    }
    fieldset {
      border: 0;
      padding: 0;
      margin: 0 0 1rem;
      display: grid;
      gap: 0.5rem;
      min-width: 0;
    }
    fieldset.known {
      grid-template-columns: repeat(auto-fit, minmax(12rem, 1fr));
    }
    .pick-error {
      color: var(--danger);
      font-size: 0.88rem;
    }
    legend {
      font-weight: 600;
      font-size: 0.88rem;
      color: var(--muted);
      margin-bottom: 0.5rem;
      padding: 0;
    }
    .option {
      display: grid;
      grid-template-columns: auto 1fr;
      gap: 0.15rem 0.65rem;
      align-items: start;
      padding: 0.6rem 0.75rem;
      border: 1px solid var(--border);
      border-radius: var(--radius-sm);
      cursor: pointer;
    }
    .option:has(input:checked) {
      border-color: var(--accent);
      background: var(--accent-soft);
    }
    .option input[type='radio'] {
      margin: 0.2rem 0 0;
      accent-color: var(--accent);
    }
    .option .name {
      font-weight: 600;
    }
    .option .note {
      grid-column: 2;
      font-size: 0.85rem;
      color: var(--muted);
    }
    .option .field {
      grid-column: 2;
      margin-top: 0.35rem;
    }
    .disk {
      display: flex;
      flex-wrap: wrap;
      gap: 0.5rem;
      align-items: center;
    }
    .disk input[type='file'] {
      display: none;
    }
    .actions {
      display: flex;
      flex-wrap: wrap;
      gap: 0.5rem;
      align-items: center;
    }
    /* The picker is taller than a laptop screen: its Load button stays in view at the bottom of the
       chat area while the choices scroll under it. */
    .actions.sticky {
      position: sticky;
      bottom: 0;
      z-index: 1;
      background: var(--surface);
      padding: 0.6rem 0;
      margin-bottom: -0.6rem;
    }
    .facts {
      margin-top: 0.9rem;
      font-size: 0.85rem;
      color: var(--muted);
      display: grid;
      gap: 0.15rem;
    }
    .steps {
      display: flex;
      gap: 0.4rem;
      margin: 0.9rem 0 1rem;
      list-style: none;
      padding: 0;
      flex-wrap: wrap;
    }
    .steps li {
      font-size: 0.82rem;
      padding: 0.2rem 0.65rem;
      border-radius: 999px;
      background: var(--surface-2);
      color: var(--faint);
    }
    .steps li.now {
      background: var(--accent-soft);
      color: var(--accent);
      font-weight: 600;
    }
    .steps li.done {
      color: var(--ok);
    }
    .files {
      display: grid;
      gap: 0.55rem;
      margin: 0;
      padding: 0;
      list-style: none;
    }
    .file {
      display: grid;
      grid-template-columns: minmax(0, 1fr) auto;
      gap: 0.2rem 0.75rem;
      font-size: 0.85rem;
    }
    .file code {
      overflow: hidden;
      text-overflow: ellipsis;
      white-space: nowrap;
    }
    .file .size {
      color: var(--muted);
      font-variant-numeric: tabular-nums;
    }
    .file.total {
      font-weight: 600;
      border-top: 1px solid var(--border);
      padding-top: 0.55rem;
    }
    progress {
      grid-column: 1 / -1;
      width: 100%;
      height: 6px;
      appearance: none;
      border: 0;
      border-radius: 999px;
      background: var(--surface-3);
      overflow: hidden;
    }
    progress::-webkit-progress-bar {
      background: var(--surface-3);
      border-radius: 999px;
    }
    progress::-webkit-progress-value {
      background: var(--accent);
      border-radius: 999px;
      transition: width 0.2s;
    }
    .phase {
      display: flex;
      gap: 0.6rem;
      align-items: center;
      margin: 0.9rem 0 0;
      font-weight: 600;
    }
    .phase.checking {
      display: block;
    }
    .phase.checking p {
      display: flex;
      gap: 0.6rem;
      align-items: center;
      margin: 0 0 0.4rem;
    }
    .phase.checking p.muted {
      font-weight: 400;
    }
    .spinner {
      width: 1rem;
      height: 1rem;
      border-radius: 50%;
      border: 2px solid var(--surface-3);
      border-top-color: var(--accent);
      animation: spin 0.8s linear infinite;
      flex: none;
    }
    @keyframes spin {
      to {
        transform: rotate(360deg);
      }
    }
    @media (prefers-reduced-motion: reduce) {
      .spinner {
        animation: none;
      }
    }
    .notes {
      margin: 0.75rem 0 0;
      padding-left: 1.1rem;
      font-size: 0.82rem;
      color: var(--muted);
    }
    .verdict {
      display: grid;
      grid-template-columns: auto 1fr;
      gap: 0.25rem 0.75rem;
      align-items: start;
    }
    .verdict .icon {
      font-size: 1.1rem;
      line-height: 1.5rem;
      width: 1.6rem;
      height: 1.6rem;
      border-radius: 50%;
      display: grid;
      place-items: center;
      background: var(--ok-soft);
      color: var(--ok);
    }
    .verdict.bad .icon {
      background: var(--warn-soft);
      color: var(--warn);
    }
    .verdict.bad {
      border-color: color-mix(in srgb, var(--warn) 45%, var(--border));
    }
    .verdict h2 {
      font-size: 1rem;
    }
    .verdict p {
      margin: 0.15rem 0 0.4rem;
      white-space: pre-wrap;
    }
    .verdict .meta {
      display: flex;
      flex-wrap: wrap;
      gap: 0.4rem;
      align-items: center;
      font-size: 0.82rem;
      color: var(--muted);
      margin-bottom: 0.5rem;
    }
    .verdict .body {
      min-width: 0;
    }
    .verdict .title-row {
      display: flex;
      flex-wrap: wrap;
      align-items: center;
      gap: 0.4rem 0.6rem;
    }
    .verdict .title-row h2 {
      margin: 0;
      flex: 1 1 auto;
      min-width: 0;
    }
    .verdict .toggle {
      margin-left: auto;
    }
    .verdict.unchecked .icon {
      background: var(--surface-2, var(--border));
      color: var(--muted);
    }
    .error {
      border-color: color-mix(in srgb, var(--danger) 45%, var(--border));
    }
    .error h2 {
      color: var(--danger);
    }
    .error p {
      white-space: pre-wrap;
      overflow-wrap: anywhere;
    }
    .compact {
      padding: 0.8rem 1rem;
    }
  `,
];
