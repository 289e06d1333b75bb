import { LitElement, html, nothing } from 'lit';
import type { ApprovalState } from '../state/app-state.ts';
import { approvalDialogStyles } from './approval-dialog-styles.ts';
import { fire } from '../state/app-actions.ts';

/**
 * Asks the user before a `confirm` tool runs, showing the tool and the exact arguments it would
 * get. Only the user decides: Escape or closing the dialog refuses.
 */
export class ApprovalDialog extends LitElement {
  static override properties = {
    approval: { attribute: false },
  };

  /** The pending request, or undefined when nothing waits. */
  declare approval: ApprovalState | undefined;

  static override styles = approvalDialogStyles;

  override render() {
    const a = this.approval;
    return html`<dialog data-testid="approval-dialog" aria-labelledby="approval-title" @cancel=${this.handleCancel}>
      ${
        a
          ? html`<h2 id="approval-title">Allow <code>${a.name}</code>?</h2>
            ${a.server ? html`<p class="server" data-testid="approval-server">From the MCP server <strong>${a.server}</strong>.</p>` : nothing}
            ${a.description ? html`<p class="description">${a.description}</p>` : nothing}
            <table data-testid="approval-arguments">
              ${Object.entries(a.arguments).map(([k, v]) => html`<tr><th scope="row">${k}</th><td>${typeof v === 'string' ? v : JSON.stringify(v, null, 2)}</td></tr>`)}
            </table>
            <p class="why">The model asked to run this tool. It runs only if you allow it; refusing tells the model it was refused.</p>
            <div class="buttons">
              <button class="danger" data-testid="refuse" @click=${() => fire(this, { type: 'resolveApproval', approved: false })}>Refuse</button>
              <button data-testid="approve-always" @click=${() => fire(this, { type: 'resolveApproval', approved: true, alwaysInConversation: true })}>Allow in this conversation</button>
              <button class="primary" data-testid="approve" @click=${() => fire(this, { type: 'resolveApproval', approved: true })}>Allow</button>
            </div>`
          : nothing
      }
    </dialog>`;
  }

  override updated(): void {
    const dialog = this.renderRoot.querySelector('dialog');
    if (!dialog) return;
    if (this.approval && !dialog.open) {
      dialog.showModal();
      // Refusing is the safe default, so it gets the focus.
      this.renderRoot.querySelector<HTMLButtonElement>('[data-testid="refuse"]')?.focus();
    } else if (!this.approval && dialog.open) dialog.close();
  }

  private handleCancel(event: Event): void {
    event.preventDefault();
    fire(this, { type: 'resolveApproval', approved: false });
  }
}

customElements.define('nexus-approval-dialog', ApprovalDialog);

declare global {
  interface HTMLElementTagNameMap {
    'nexus-approval-dialog': ApprovalDialog;
  }
}
