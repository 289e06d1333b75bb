import { LitElement, html, nothing } from 'lit';
import { repeat } from 'lit/directives/repeat.js';
import type { Conversation, Turn } from '../state/app-state.ts';
import { messageVersions, type MessageVersionPlace } from '../conversation/conversation-versions.ts';
import { firstRemembered } from '../conversation/conversation-history.ts';
import './chat-message.ts';
import { chatThreadStyles } from './chat-thread-styles.ts';
import { fire } from '../state/app-actions.ts';
import { attachmentWords } from '../conversation/attachment-fence.ts';

/** Questions the shipped `tools.js` can answer, offered on an empty conversation. */
const SUGGESTIONS = ['What is the weather in Chennai right now?', 'What is 17.5% of 2,340?', 'What time is it in Tokyo?'];

/** For a model that does not call tools: questions it can answer alone. */
const CHAT_SUGGESTIONS = ['Write a haiku about rain.', 'Explain recursion in two sentences.', 'Give me three names for a cat.'];

/**
 * The conversation: the user's messages (each one editable) and the answers, with a switcher where
 * an edit or Regenerate kept an earlier version. It is a log
 * region, so screen readers announce new messages; an answer being written is marked busy, so it
 * is read once complete rather than token by token.
 */
export class ChatThread extends LitElement {
  static override properties = {
    conversation: { attribute: false },
    busy: { type: Boolean },
    ready: { type: Boolean },
    toolsUnreliable: { attribute: false },
    editing: { state: true },
  };

  /** The open conversation. */
  declare conversation: Conversation;
  /** An answer is being generated. */
  declare busy: boolean;
  /** A model is loaded, so messages can be sent. */
  declare ready: boolean;
  /** The self-check found that this model does not call tools reliably. */
  declare toolsUnreliable: boolean;
  /** The id of the user message being edited, if any. */
  declare editing: string | undefined;

  static override styles = chatThreadStyles;

  override render() {
    const turns = this.conversation.turns;
    // Before a model is loaded the model card is the whole story; an empty log adds nothing.
    if (!turns.length) return this.ready ? this.renderEmpty() : nothing;
    const lastUser = turns.findLast((t) => t.role === 'user');
    const lastAnswer = turns.findLast((t) => t.role === 'assistant');
    const memoryStart = this.memoryStart();
    return html`<div class="log" role="log" aria-live="polite" aria-label="Conversation" data-testid="conversation">
      ${repeat(
        turns,
        (t) => t.id,
        (t, at) =>
          t.role === 'user'
            ? html`${t === memoryStart ? this.renderMemoryStart() : nothing}${this.renderUser(t, { at, last: t === lastUser })}`
            : html`${this.renderAnswer(t, t === lastAnswer)}${this.renderAnswerVersions(at)}`,
      )}
      ${memoryStart ? this.renderMemoryNotice() : nothing}
    </div>`;
  }

  /** Where the user reads (the bottom): older messages left the model's memory, and where that begins. */
  private renderMemoryNotice() {
    return html`<p class="memory-notice" role="note" data-testid="memory-notice">
      Older messages have left the model's memory; it answers from the later ones.
      <button class="link" data-testid="memory-jump" @click=${this.handleJumpToMemoryStart}>Show where</button>
    </p>`;
  }

  private readonly handleJumpToMemoryStart = (): void => {
    this.renderRoot.querySelector('[data-testid="memory-start"]')?.scrollIntoView({ block: 'center', behavior: 'smooth' });
  };

  /** The switcher under an answer that was answered again (Regenerate): the answers to this text of the message. */
  private renderAnswerVersions(at: number) {
    const user = at - 1;
    if (this.conversation.turns[user]?.role !== 'user') return nothing;
    const { answer } = messageVersions(this.conversation, user);
    return answer ? html`<div class="answer-versions">${this.renderVersions(user, answer, 'answer')}</div>` : nothing;
  }

  private renderVersions(at: number, { index, count, targets }: MessageVersionPlace, what: 'message' | 'answer') {
    const go = (i: number) => this.handleVersion(at, targets[i] ?? index);
    return html`<div class="versions" role="group" aria-label=${what === 'answer' ? 'Answers' : 'Versions of this message'} data-testid=${what === 'answer' ? 'answer-versions' : 'versions'}>
      <button class="ghost" aria-label=${what === 'answer' ? 'Previous answer' : 'Previous version'} data-testid="version-previous" ?disabled=${this.busy || index === 0} @click=${() => go(index - 1)}>‹</button>
      <span data-testid="version-place">${index + 1} of ${count}</span>
      <button class="ghost" aria-label=${what === 'answer' ? 'Next answer' : 'Next version'} data-testid="version-next" ?disabled=${this.busy || index === count - 1} @click=${() => go(index + 1)}>›</button>
    </div>`;
  }

  private handleVersion(at: number, index: number): void {
    fire(this, { type: 'showVersion', at, index });
  }

  /** The first user turn still in the model's memory, when earlier ones have left it (the conversation outgrew the context budget). */
  private memoryStart(): Turn | undefined {
    return firstRemembered(this.conversation.turns);
  }

  private renderMemoryStart() {
    return html`<p class="memory-start" role="note" data-testid="memory-start">
      Earlier messages are no longer in the model's memory: the conversation outgrew what it can take in. They stay here and in the saved conversation.
    </p>`;
  }

  private renderEmpty() {
    return html`<div class="empty" data-testid="conversation">
      <h2>Ask anything</h2>
      <p>
        ${
          this.toolsUnreliable
            ? 'This model does not call tools reliably, so its answers come from the model alone. Switch models above for answers that use tools.'
            : 'The model answers in this tab and calls the tools from tools.js when a question needs them. Turn on Web to let it search and read pages.'
        }
      </p>
      <div class="suggestions">
        ${(this.toolsUnreliable ? CHAT_SUGGESTIONS : SUGGESTIONS).map((s) => html`<button ?disabled=${this.busy} @click=${() => fire(this, { type: 'send', text: s })}>${s}</button>`)}
      </div>
    </div>`;
  }

  private renderUser(turn: Turn, { at, last }: { at: number; last: boolean }) {
    if (this.editing === turn.id) {
      return html`<div class="user turn" data-role="user">
        <form class="editor" @submit=${this.handleEditSubmit}>
          <label class="sr-only" for="edit">Edit your message</label>
          <textarea id="edit" name="text" data-testid="edit-text" .value=${turn.text} @keydown=${this.handleEditKey}></textarea>
          <div class="buttons">
            <button type="button" class="ghost" @click=${() => (this.editing = undefined)}>Cancel</button>
            <button type="submit" class="primary" data-testid="edit-send">Send</button>
          </div>
        </form>
      </div>`;
    }
    const { message } = messageVersions(this.conversation, at);
    // Named for a screen reader as answers are ("Answer"): whose words these are (issue 54, P3).
    return html`<article class="user turn" data-role="user" data-state=${turn.state} aria-label="Your message">
      <div class="bubble">${turn.text}</div>
      ${
        turn.attachments?.length
          ? html`<ul class="attached" aria-label="Attached" data-testid="message-attachments">
              ${turn.attachments.map(
                (a) => html`<li>
                  <details>
                    <summary title=${`From ${a.from}`}>${a.name} <span class="muted" data-testid="attachment-read">${attachmentWords(a)}</span></summary>
                    <pre data-testid="attachment-text">${a.text}</pre>
                  </details>
                </li>`,
              )}
            </ul>`
          : nothing
      }
      ${message ? this.renderVersions(at, message, 'message') : nothing}
      ${
        this.ready && !this.busy
          ? html`<button class="ghost edit-link" data-testid=${last ? 'edit-last' : 'edit-message'} aria-label=${last ? 'Edit your last message' : 'Edit this message'} @click=${() => (this.editing = turn.id)}>Edit</button>`
          : nothing
      }
    </article>`;
  }

  private renderAnswer(turn: Turn, last: boolean) {
    return html`<nexus-message .turn=${turn} ?last=${last && this.ready} ?busy=${this.busy}></nexus-message>`;
  }

  override updated(): void {
    if (this.editing) this.renderRoot.querySelector<HTMLTextAreaElement>('#edit')?.focus();
  }

  private handleEditSubmit(event: SubmitEvent): void {
    event.preventDefault();
    const text = ((event.currentTarget as HTMLFormElement).elements.namedItem('text') as HTMLTextAreaElement).value;
    const id = this.editing;
    this.editing = undefined;
    if (id) void fire(this, { type: 'edit', id, text });
  }

  private handleEditKey(event: KeyboardEvent): void {
    if (event.key === 'Escape') {
      event.stopPropagation();
      this.editing = undefined;
    } else if (event.key === 'Enter' && !event.shiftKey && !event.isComposing) {
      event.preventDefault();
      (event.currentTarget as HTMLTextAreaElement).form?.requestSubmit();
    }
  }
}

customElements.define('nexus-thread', ChatThread);

declare global {
  interface HTMLElementTagNameMap {
    'nexus-thread': ChatThread;
  }
}
