import { LitElement, html, nothing } from 'lit';
import type { McpFormField, McpRequestState } from '../state/app-state.ts';
import { mcpRequestDialogStyles } from './mcp-request-dialog-styles.ts';
import { fire, type AppAction } from '../state/app-actions.ts';

/**
 * What an MCP server asks of the user, one request at a time: a form to fill in (its defaults filled),
 * a page to open (never opened without the user), or a completion by the model in the tab (the
 * messages shown before anything runs). Escape or closing the dialog declines.
 */
export class McpRequestDialog extends LitElement {
  static override properties = {
    request: { attribute: false },
  };

  /** The request shown, or undefined when nothing waits. */
  declare request: McpRequestState | undefined;

  static override styles = mcpRequestDialogStyles;

  override render() {
    const r = this.request;
    return html`<dialog data-testid="mcp-request" aria-labelledby="mcp-request-title" @cancel=${this.handleCancel}>
      ${r ? this.renderBody(r) : nothing}
    </dialog>`;
  }

  private renderServer(r: McpRequestState) {
    // The name is the server's own claim; the address is who it is, so two servers of one name differ here.
    return html`<p class="server">
      From the MCP server <strong data-testid="mcp-request-server">${r.server}</strong> at
      <code data-testid="mcp-request-address">${r.address}</code>.
    </p>`;
  }

  private renderBody(r: McpRequestState) {
    if (r.kind === 'form') return this.renderForm(r);
    if (r.kind === 'url') return this.renderUrl(r);
    return this.renderSample(r);
  }

  private renderForm(r: Extract<McpRequestState, { kind: 'form' }>) {
    return html`<h2 id="mcp-request-title">The server asks</h2>
      ${this.renderServer(r)}
      <p class="description" data-testid="mcp-request-message">${r.message}</p>
      <form @submit=${this.handleSubmit} data-testid="mcp-form">
        ${r.fields.map((field) => this.renderField(field))}
        <p class="why">Only what you send here goes to the server.</p>
        <div class="buttons">
          <button type="button" class="danger" data-testid="mcp-decline" @click=${() => this.answer({ action: 'decline' })}>Decline</button>
          <button type="submit" class="primary" data-testid="mcp-accept">Send</button>
        </div>
      </form>`;
  }

  private renderField(field: McpFormField) {
    const hint = field.description ? html`<span class="hint">${field.description}</span>` : nothing;
    if (field.type === 'boolean') {
      return html`<label class="check"><input type="checkbox" name=${field.name} ?checked=${field.default === true} />${field.label}${hint}</label>`;
    }
    if (field.type === 'enum') {
      return html`<label>${field.label}${hint}
        <select name=${field.name} ?required=${field.required}>
          ${field.required ? nothing : html`<option value=""></option>`}
          ${field.options?.map((option) => html`<option value=${option.value} ?selected=${String(field.default) === option.value}>${option.label}</option>`)}
        </select>
      </label>`;
    }
    const type =
      field.type === 'string' ? ({ email: 'email', uri: 'url', date: 'date', 'date-time': 'datetime-local' }[field.format ?? ''] ?? 'text') : 'number';
    return html`<label>${field.label}${hint}
      <input
        name=${field.name}
        type=${type}
        step=${field.type === 'integer' ? '1' : 'any'}
        .value=${field.default === undefined ? '' : String(field.default)}
        ?required=${field.required}
      />
    </label>`;
  }

  private renderUrl(r: Extract<McpRequestState, { kind: 'url' }>) {
    return html`<h2 id="mcp-request-title">The server asks you to open a page</h2>
      ${this.renderServer(r)}
      <p class="description" data-testid="mcp-request-message">${r.message}</p>
      <p class="address" data-testid="mcp-request-url">${r.url}</p>
      <p class="hint">It opens <strong data-testid="mcp-request-host">${r.host}</strong>.</p>
      <p class="why">It opens in a new tab, only if you choose to. Come back here when you are done there.</p>
      <div class="buttons">
        <button class="danger" data-testid="mcp-decline" @click=${() => this.answer({ action: 'decline' })}>Decline</button>
        <button class="primary" data-testid="mcp-open" @click=${() => this.handleOpen(r.url)}>Open and continue</button>
      </div>`;
  }

  private renderSample(r: Extract<McpRequestState, { kind: 'sample' }>) {
    return html`<h2 id="mcp-request-title">Let the model answer for the server?</h2>
      ${this.renderServer(r)}
      <p class="description">The server asks the model in this tab to write up to ${r.maxTokens} tokens for these messages. Nothing from your conversation is shared.</p>
      ${r.systemPrompt ? html`<p class="hint">Its instructions: ${r.systemPrompt}</p>` : nothing}
      <div class="messages" data-testid="mcp-sample-messages">${r.messages.map((m) => html`<div><strong>${m.role}:</strong> ${m.text}</div>`)}</div>
      ${r.declined.map((line) => html`<p class="hint">${line}</p>`)}
      <div class="buttons">
        <button class="danger" data-testid="mcp-decline" @click=${() => this.answer({ action: 'decline' })}>Decline</button>
        <button data-testid="mcp-allow-always" @click=${() => this.answer({ action: 'allow-always' })}>Allow for this server</button>
        <button class="primary" data-testid="mcp-allow" @click=${() => this.answer({ action: 'allow' })}>Allow</button>
      </div>`;
  }

  override updated(): void {
    const dialog = this.renderRoot.querySelector('dialog');
    if (!dialog) return;
    if (this.request && !dialog.open) {
      dialog.showModal();
      // Declining is the safe default, so it gets the focus.
      this.renderRoot.querySelector<HTMLButtonElement>('[data-testid="mcp-decline"]')?.focus();
    } else if (!this.request && dialog.open) dialog.close();
  }

  private answer(answer: Extract<AppAction, { type: 'answerMcpRequest' }>['answer']): void {
    if (this.request) fire(this, { type: 'answerMcpRequest', id: this.request.id, answer });
  }

  private handleOpen(url: string): void {
    // Only web addresses open; the server's text is never a script to run, and what was not opened is declined.
    if (!/^https?:\/\//i.test(url)) {
      this.answer({ action: 'decline' });
      return;
    }
    window.open(url, '_blank', 'noopener,noreferrer');
    this.answer({ action: 'accept' });
  }

  private handleSubmit(event: SubmitEvent): void {
    event.preventDefault();
    const r = this.request;
    if (r?.kind !== 'form') return;
    const form = event.currentTarget as HTMLFormElement;
    const content: Record<string, unknown> = {};
    for (const field of r.fields) {
      const input = form.elements.namedItem(field.name) as HTMLInputElement | HTMLSelectElement | null;
      if (!input) continue;
      if (field.type === 'boolean') content[field.name] = (input as HTMLInputElement).checked;
      else if (input.value === '') continue;
      else content[field.name] = field.type === 'number' || field.type === 'integer' ? Number(input.value) : input.value;
    }
    this.answer({ action: 'accept', content });
  }

  private handleCancel(event: Event): void {
    event.preventDefault();
    this.answer(this.request?.kind === 'sample' ? { action: 'decline' } : { action: 'cancel' });
  }
}

customElements.define('nexus-mcp-request-dialog', McpRequestDialog);

declare global {
  interface HTMLElementTagNameMap {
    'nexus-mcp-request-dialog': McpRequestDialog;
  }
}
