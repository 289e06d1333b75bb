import { css } from 'lit';
import { controls } from './styles.ts';
import { dialogStyles } from './dialog-styles.ts';

/** The look of `<nexus-approval-dialog>` (approval-dialog.ts): the shared controls, then its own rules. */
export const approvalDialogStyles = [
  controls,
  dialogStyles,
  css`
    table {
      width: 100%;
      border-collapse: collapse;
      font-size: 0.88rem;
      margin-bottom: 0.9rem;
    }
    th {
      text-align: left;
      vertical-align: top;
      padding: 0.35rem 0.75rem 0.35rem 0;
      color: var(--muted);
      font-weight: 600;
      white-space: nowrap;
      width: 1%;
    }
    td {
      padding: 0.35rem 0;
      white-space: pre-wrap;
      overflow-wrap: anywhere;
      font-family: var(--mono);
      font-size: 0.84rem;
    }
    tr + tr th,
    tr + tr td {
      border-top: 1px solid var(--border);
    }
  `,
];
