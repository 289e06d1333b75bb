import { LitElement, css, html, nothing } from 'lit';
import type { ConversationSummary } from './app-state.ts';
import type { AppStore } from './app-store.ts';
import { formatWhen } from './format.ts';
import { icons } from './icons.ts';
import { controls } from './styles.ts';

/** The saved conversations, newest first, with "New conversation". */
export class ConversationList extends LitElement {
  static override properties = {
    store: { attribute: false },
    conversations: { attribute: false },
    currentId: { attribute: false },
    busy: { type: Boolean },
  };

  /** The page's store, for opening, starting and deleting conversations. */
  declare store: AppStore;
  /** Saved conversations, newest first. */
  declare conversations: ConversationSummary[];
  /** The open conversation's id. */
  declare currentId: string;
  /** An answer is being generated: switching waits until it ends. */
  declare busy: boolean;

  static override styles = [
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
      .title {
        overflow: hidden;
        text-overflow: ellipsis;
        white-space: nowrap;
        font-size: 0.9rem;
      }
      .when {
        font-size: 0.75rem;
        color: var(--faint);
      }
      .delete {
        border: 0;
        background: transparent;
        color: var(--faint);
        padding: 0.2rem 0.45rem;
        margin-right: 0.2rem;
        opacity: 0;
      }
      li:hover .delete,
      li.current .delete,
      .delete:focus-visible {
        opacity: 1;
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

  override render() {
    return html`<button class="new" data-testid="new-conversation" ?disabled=${this.busy} @click=${() => this.store.newConversation()}>
        ${icons.plus} New conversation
      </button>
      <h2 id="list-title">Conversations</h2>
      ${this.conversations.length
        ? html`<ul data-testid="conversation-list" aria-labelledby="list-title">
            ${this.conversations.map((c) => this.renderItem(c))}
          </ul>`
        : html`<p class="empty">Your conversations are kept in this browser.</p>`}`;
  }

  private renderItem(c: ConversationSummary) {
    const current = c.id === this.currentId;
    return html`<li class=${current ? 'current' : ''}>
      <button class="open" aria-current=${current ? 'page' : 'false'} ?disabled=${this.busy && !current} @click=${() => this.store.selectConversation(c.id)}>
        <span class="title">${c.title}</span>
        <span class="when">${formatWhen(c.updatedAt)}</span>
      </button>
      ${this.busy && current
        ? nothing
        : html`<button class="delete" aria-label="Delete “${c.title}”" title="Delete" @click=${() => this.store.deleteConversation(c.id)}>${icons.close}</button>`}
    </li>`;
  }
}

customElements.define('nexus-conversations', ConversationList);

declare global {
  interface HTMLElementTagNameMap {
    'nexus-conversations': ConversationList;
  }
}
