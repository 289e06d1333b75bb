import { css } from 'lit';
import { controls } from './styles.ts';

/** The look of `<nexus-settings-panel>` (settings-panel.ts): the shared controls, then its own rules. */
export const settingsPanelStyles = [
  controls,
  css`
    :host {
      display: block;
    }
    form {
      display: grid;
      gap: 0.9rem;
    }
    .device-models {
      margin-bottom: 1.2rem;
      padding-bottom: 1rem;
      border-bottom: 1px solid var(--border);
    }
    .device-models h3 {
      margin: 0 0 0.5rem;
      font-size: 0.95rem;
    }
    .device-models ul {
      list-style: none;
      margin: 0 0 0.5rem;
      padding: 0;
      display: grid;
      gap: 0.5rem;
    }
    .device-models li {
      display: flex;
      gap: 0.6rem;
      align-items: center;
      justify-content: space-between;
    }
    .device-models li > div {
      display: grid;
      min-width: 0;
      overflow-wrap: anywhere;
    }
    .device-models li button {
      flex: none;
    }
    label {
      display: grid;
      gap: 0.3rem;
      font-weight: 600;
      font-size: 0.88rem;
    }
    .help {
      font-weight: 400;
      color: var(--muted);
      font-size: 0.8rem;
    }
    label textarea,
    label select,
    label input {
      font-weight: 400;
    }
    textarea {
      min-height: 7rem;
      resize: vertical;
      font-size: 0.84rem;
      line-height: 1.45;
    }
    .row {
      display: grid;
      /* Two columns where each keeps room for its longest choice, one where it would not. */
      grid-template-columns: repeat(auto-fit, minmax(13.5rem, 1fr));
      gap: 0.75rem;
    }
    .check {
      display: flex;
      align-items: center;
      gap: 0.5rem;
      font-weight: 600;
    }
    .check input {
      accent-color: var(--accent);
      width: 1rem;
      height: 1rem;
    }
    .actions {
      display: flex;
      justify-content: space-between;
      align-items: center;
    }
    .confirm {
    display: flex;
    flex-wrap: wrap;
    align-items: center;
    gap: 0.5rem;
    margin: 0.6rem 0 0;
    font-size: 0.85rem;
  }
`,
];
