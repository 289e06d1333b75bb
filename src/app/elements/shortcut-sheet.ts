import { LitElement, css, html } from 'lit';
import { dialogStyles } from './dialog-styles.ts';
import { controls } from './styles.ts';

/** The page's keyboard shortcuts, as the sheet lists them and the app handles them. */
export const SHORTCUTS: readonly { keys: string; does: string }[] = [
  { keys: 'Enter', does: 'Send the message' },
  { keys: 'Shift+Enter', does: 'A new line in the message' },
  { keys: 'Esc', does: 'Stop the answer; close a drawer or dialog' },
  { keys: '/', does: 'Put the cursor in the message box' },
  { keys: 'Ctrl+K', does: 'Search the conversations' },
  { keys: 'Ctrl+Shift+O', does: 'Start a new conversation' },
  { keys: 'Ctrl+Shift+C', does: 'Copy the last answer' },
  { keys: '?', does: 'This list' },
];

/** The list of keyboard shortcuts, behind `?`. Escape or Close closes it. */
export class ShortcutSheet extends LitElement {
  static override properties = { open: { type: Boolean } };

  /** Shown when true. */
  declare open: boolean;

  static override styles = [
    controls,
    dialogStyles,
    css`
      dl {
        display: grid;
        grid-template-columns: max-content 1fr;
        gap: 0.4rem 1rem;
        margin: 0 0 1rem;
        font-size: 0.9rem;
      }
      dt kbd {
        font-family: var(--mono);
        border: 1px solid var(--border);
        border-radius: 4px;
        padding: 0.05rem 0.35rem;
      }
    `,
  ];

  override render() {
    return html`<dialog data-testid="shortcuts" aria-labelledby="shortcuts-title" @close=${this.handleClose}>
      <h2 id="shortcuts-title">Keyboard shortcuts</h2>
      <p class="description">On a Mac, Cmd works where Ctrl is written.</p>
      <dl>${SHORTCUTS.map((s) => html`<dt><kbd>${s.keys}</kbd></dt><dd>${s.does}</dd>`)}</dl>
      <div class="buttons"><button class="primary" data-testid="shortcuts-close" @click=${this.handleClose}>Close</button></div>
    </dialog>`;
  }

  override updated(): void {
    const dialog = this.renderRoot.querySelector('dialog');
    if (!dialog) return;
    if (this.open && !dialog.open) dialog.showModal();
    else if (!this.open && dialog.open) dialog.close();
  }

  private readonly handleClose = (): void => {
    if (this.open) this.dispatchEvent(new CustomEvent('shortcuts-closed', { bubbles: true, composed: true }));
  };
}

customElements.define('nexus-shortcut-sheet', ShortcutSheet);

declare global {
  interface HTMLElementTagNameMap {
    'nexus-shortcut-sheet': ShortcutSheet;
  }
}
