import { LitElement, html, nothing } from 'lit';
import type { AppState, ConversationSummary } from '../state/app-state.ts';
import { formatWhen } from '../format.ts';
import { icons } from './icons.ts';
import { conversationListStyles } from './conversation-list-styles.ts';
import { fire } from '../state/app-actions.ts';

/** The saved conversations, newest first, with "New conversation". */
export class ConversationList extends LitElement {
  static override properties = {
    conversations: { attribute: false },
    currentId: { attribute: false },
    locked: { type: Boolean },
    answeringIn: { attribute: false },
    search: { attribute: false },
    undoDelete: { attribute: false },
    importError: { attribute: false },
    note: { attribute: false },
    renaming: { state: true },
  };

  /** Saved conversations, newest first. */
  declare conversations: ConversationSummary[];
  /** The open conversation's id. */
  declare currentId: string;
  /** A message waits to be sent here: switching waits until it is in. */
  declare locked: boolean;
  /** The conversation an answer is being written in: marked, and not deletable until it ends. */
  declare answeringIn: string | undefined;
  /** The search in progress and its matches, from the store. */
  declare search: AppState['conversationSearch'];
  /** A conversation just deleted, which Undo brings back. */
  declare undoDelete: AppState['undoDelete'];
  /** Why the list did not do what was asked. */
  declare note: string | undefined;
  /** Why the last import was refused. */
  declare importError: string | undefined;
  /** The conversation whose name is being edited. */
  declare renaming: string | undefined;

  static override styles = conversationListStyles;

  override render() {
    const shown = this.search ? this.search.matches : this.conversations;
    return html`<button class="new" data-testid="new-conversation" ?disabled=${this.locked} @click=${() => fire(this, { type: 'newConversation' })}>
        ${icons.plus} New conversation
      </button>
      ${
        this.conversations.length > 1 || this.search
          ? html`<input class="field search" type="search" data-testid="conversation-search" placeholder="Search conversations" aria-label="Search conversations" @input=${this.handleSearch} />`
          : nothing
      }
      <h2 id="list-title">${this.search ? `${shown.length} found` : 'Conversations'}</h2>
      ${this.renderUndo()}
      ${
        shown.length
          ? html`<ul data-testid="conversation-list" aria-labelledby="list-title">
            ${shown.map((c) => this.renderItem(c))}
          </ul>`
          : html`<p class="empty">${this.search ? 'No conversation has these words.' : 'Your conversations are kept in this browser.'}</p>`
      }
      ${this.renderFiles()}`;
  }

  private renderUndo() {
    if (this.note) return html`<p class="undo" role="status" data-testid="list-note">${this.note}</p>`;
    if (!this.undoDelete) return nothing;
    return html`<p class="undo" role="status" data-testid="undo-delete">
      Deleted “${this.undoDelete.title}”. <button class="link" data-testid="undo" @click=${() => fire(this, { type: 'undoDelete' })}>Undo</button>
    </p>`;
  }

  /** Export the open conversation, or import one. */
  private renderFiles() {
    return html`<div class="files">
      <button class="small ghost" data-testid="export-json" ?disabled=${this.nothingToExport()} title=${this.nothingToExport() ? 'Nothing to export yet' : ''} @click=${() => this.handleExport('json')}>Export JSON</button>
      <button class="small ghost" data-testid="export-markdown" ?disabled=${this.nothingToExport()} title=${this.nothingToExport() ? 'Nothing to export yet' : ''} @click=${() => this.handleExport('markdown')}>Export Markdown</button>
      <button class="small ghost" data-testid="export-all" ?disabled=${this.conversations.length === 0} title="Every conversation in one file, which Import brings back" @click=${this.handleExportAll}>Export all</button>
      <button class="small ghost" data-testid="import" @click=${() => this.renderRoot.querySelector<HTMLInputElement>('#import-file')?.click()}>Import…</button>
      <input id="import-file" data-testid="import-file" type="file" accept=".json,.md,.markdown,application/json,text/markdown" hidden @change=${this.handleImport} />
      ${this.importError ? html`<p class="import-error" role="alert" data-testid="import-error">${this.importError}</p>` : nothing}
    </div>`;
  }

  private renderItem(c: ConversationSummary) {
    const current = c.id === this.currentId;
    const answering = c.id === this.answeringIn;
    if (this.renaming === c.id) {
      return html`<li class="current">
        <input class="field rename" data-testid="rename-field" aria-label="New name" .value=${c.title} @keydown=${this.handleRenameKey} @blur=${(e: FocusEvent) => this.handleRenameDone(e, c.id)} />
      </li>`;
    }
    return html`<li class=${current ? 'current' : ''} data-id=${c.id}>
      <button class="open" aria-current=${current ? 'page' : 'false'} ?disabled=${this.locked && !current} @click=${() => this.handleOpen(c.id)}>
        <span class="title" title=${c.title}>${c.title}</span>
        ${answering ? html`<span class="when answering" data-testid="answering-badge">Answering…</span>` : html`<span class="when">${formatWhen(c.updatedAt)}</span>`}
      </button>
      <button class="action" data-testid="rename" aria-label="Rename “${c.title}”" title="Rename" @click=${() => this.handleRenameStart(c.id)}>${icons.pencil}</button>
      ${
        answering
          ? nothing
          : html`<button class="action delete" data-testid="delete" aria-label="Delete “${c.title}”" title="Delete" @click=${() => fire(this, { type: 'deleteConversation', id: c.id })}>${icons.close}</button>`
      }
    </li>`;
  }

  private handleSearch(event: Event): void {
    void fire(this, { type: 'searchConversations', query: (event.target as HTMLInputElement).value });
  }

  /** Opens a conversation, and says a conversation was chosen (the page closes its drawer on a phone, the open one too). */
  private handleOpen(id: string): void {
    void fire(this, { type: 'selectConversation', id });
    this.dispatchEvent(new CustomEvent('conversation-chosen', { bubbles: true, composed: true }));
  }

  private handleRenameStart(id: string): void {
    this.renaming = id;
    void this.updateComplete.then(() => {
      const field = this.renderRoot.querySelector<HTMLInputElement>('[data-testid="rename-field"]');
      field?.focus();
      field?.select();
    });
  }

  private handleRenameKey(event: KeyboardEvent): void {
    if (event.key === 'Enter') (event.target as HTMLInputElement).blur();
    if (event.key === 'Escape') {
      // Escape cancels the rename, not the answer (the page stops answers on Escape).
      event.stopPropagation();
      const id = this.renaming;
      this.renaming = undefined;
      if (id) this.focusRenameButton(id);
    }
  }

  /** After Escape ends a rename, the focus goes back to the Rename button, not to the page body. */
  private focusRenameButton(id: string): void {
    void this.updateComplete.then(() => {
      const item = [...this.renderRoot.querySelectorAll<HTMLElement>('li[data-id]')].find((li) => li.dataset.id === id);
      item?.querySelector<HTMLButtonElement>('[data-testid="rename"]')?.focus();
    });
  }

  private handleRenameDone(event: FocusEvent, id: string): void {
    if (this.renaming !== id) return;
    this.renaming = undefined;
    void fire(this, { type: 'renameConversation', id, title: (event.target as HTMLInputElement).value });
  }

  /** The open conversation has no message yet (it is saved with its first): an export would be an empty file. */
  private nothingToExport(): boolean {
    return !this.conversations.some((c) => c.id === this.currentId);
  }

  private async handleExport(format: 'json' | 'markdown'): Promise<void> {
    const file = await fire(this, { type: 'exportConversation', id: this.currentId, format });
    if (file) this.download(file);
  }

  private async handleExportAll(): Promise<void> {
    const file = await fire(this, { type: 'exportAll' });
    if (file) this.download(file);
  }

  /** Hands a file to the browser to save. */
  private download(file: { text: string; type: string; filename: string }): void {
    const url = URL.createObjectURL(new Blob([file.text], { type: file.type }));
    const link = Object.assign(document.createElement('a'), { href: url, download: file.filename });
    link.click();
    setTimeout(() => URL.revokeObjectURL(url), 10_000);
  }

  private async handleImport(event: Event): Promise<void> {
    const input = event.target as HTMLInputElement;
    const file = input.files?.[0];
    input.value = '';
    if (file) await fire(this, { type: 'importConversation', name: file.name, file });
  }
}

customElements.define('nexus-conversations', ConversationList);

declare global {
  interface HTMLElementTagNameMap {
    'nexus-conversations': ConversationList;
  }
}
