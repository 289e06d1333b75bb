import { css } from 'lit';
import { controls } from './styles.ts';
import { dialogStyles } from './dialog-styles.ts';

/** The look of `<nexus-mcp-request-dialog>` (mcp-request-dialog.ts): the shared controls, then its own rules. */
export const mcpRequestDialogStyles = [
  controls,
  dialogStyles,
  css`
    label {
      display: grid;
      gap: 0.2rem;
      margin-bottom: 0.7rem;
      font-size: 0.88rem;
    }
    label.check {
      display: flex;
      align-items: center;
      gap: 0.5rem;
    }
    .hint {
      color: var(--muted);
      font-size: 0.8rem;
    }
    .messages {
      max-height: 14rem;
      overflow: auto;
      border: 1px solid var(--border);
      border-radius: var(--radius);
      padding: 0.5rem 0.7rem;
      margin-bottom: 0.8rem;
      font-size: 0.86rem;
      white-space: pre-wrap;
      overflow-wrap: anywhere;
    }
    .address {
      font-family: var(--mono);
      font-size: 0.84rem;
      overflow-wrap: anywhere;
    }
  `,
];
