import { LitElement, html, nothing } from 'lit';
import type { AppState, ModelPhase } from '../state/app-state.ts';
import { chatComposerStyles } from './chat-composer-styles.ts';
import { fire } from '../state/app-actions.ts';
import { ATTACHABLE_FILES } from '../conversation/attachable-files.ts';
import { attachmentWords } from '../conversation/attachment-fence.ts';
import { icons } from './icons.ts';

/**
 * The message box with Send/Stop and the Web switch. Enter sends, Shift+Enter starts a new line;
 * typing is possible while the model still loads, sending once it is ready.
 */
export class ChatComposer extends LitElement {
  static override properties = {
    ready: { type: Boolean },
    phase: { attribute: false },
    busy: { type: Boolean },
    stopping: { type: Boolean },
    web: { attribute: false },
    queued: { attribute: false },
    returned: { attribute: false },
    attachments: { attribute: false },
    reading: { attribute: false },
    starters: { attribute: false },
    gauge: { attribute: false },
    answeringElsewhere: { attribute: false },
    attachError: { attribute: false },
    empty: { state: true },
  };

  /** What goes with the next message (an MCP server's resource), shown as chips. */
  declare attachments: AppState['attachments'];
  /** Files chosen for the next message and still being read, by name: a message sent meanwhile waits for them. */
  declare reading: readonly string[];
  /** The MCP servers' prompts, offered while the box is empty. */
  declare starters: readonly PromptStarter[];
  /** How full the model's memory was at the last answer: tokens used of the budget. */
  declare gauge: { used: number; budget: number } | undefined;

  /**
   * The message box holds nothing to send: Send looks (and is announced as) unavailable. It stays
   * focusable and in place, so typing the first letter does not move the layout.
   */
  declare empty: boolean;

  constructor() {
    super();
    this.empty = true;
    this.attachments = [];
    this.reading = [];
    this.starters = [];
  }

  /** A waiting message the user took back with Stop: put back in the box (unless the user typed anew). */
  declare returned: string | undefined;

  /** The message sent and not answered yet, and what it waits for. */
  declare queued: AppState['queued'];

  /** A model is loaded. */
  declare ready: boolean;
  /** Where loading the model stands, for the placeholder and hint. */
  declare phase: ModelPhase;
  /** An answer is being generated: Send becomes Stop. */
  declare busy: boolean;
  /** Stop was pressed; the answer is winding down. */
  declare stopping: boolean;
  /** The Web switch and what the proxy said about search. */
  declare web: AppState['web'];
  /** Why the last file chosen was not attached. */
  declare attachError: string | undefined;
  /** The title of the conversation the model is answering in, when it is not this one. */
  declare answeringElsewhere: string | undefined;

  static override styles = chatComposerStyles;

  override render() {
    return html`<form @submit=${this.handleSubmit}>
        ${this.renderAttachments()}
        <label class="sr-only" for="prompt">Message</label>
        <textarea
          id="prompt"
          name="prompt"
          rows="1"
          data-testid="prompt"
          placeholder=${this.ready ? 'Ask something…' : this.phase === 'idle' || this.phase === 'error' || this.phase === 'confirm' ? 'Choose a model to start…' : 'Type while the model loads…'}
          @keydown=${this.handleKeydown}
          @input=${this.handleInput}
          @paste=${this.handlePaste}
        ></textarea>
        <div class="bar">${this.renderAttach()}${this.renderWebSwitch()}<span class="hint">${this.renderHint()}</span>${this.renderGauge()}${this.renderButton()}</div>
      </form>
      ${this.renderStarters()}
      ${this.attachError ? html`<p class="web-status unavailable" role="alert" data-testid="attach-error">${this.attachError}</p>` : nothing}
      ${this.renderAnsweringElsewhere()}
      ${this.renderWaiting()}
      ${this.renderWebStatus()}`;
  }

  /** The model's memory, as full as the last answer left it. */
  private renderGauge() {
    const gauge = this.gauge;
    if (!gauge || gauge.budget <= 0) return nothing;
    // The same numbers the model card gives (4,096, not 4.1k): the two must read alike.
    const k = (n: number) => n.toLocaleString('en-US');
    const share = Math.min(1, gauge.used / gauge.budget);
    return html`<span class="gauge" data-testid="context-gauge" title=${`The model's memory: ${gauge.used.toLocaleString('en-US')} of ${gauge.budget.toLocaleString('en-US')} tokens at the last answer`}>
      <meter min="0" max=${gauge.budget} value=${gauge.used} low=${Math.round(gauge.budget * 0.7)} high=${Math.round(gauge.budget * 0.9)} optimum="0" aria-label="Model memory used"></meter>
      <span data-testid="context-gauge-numbers">${k(gauge.used)} / ${k(gauge.budget)}<span class="wide"> tokens</span>${share >= 0.9 ? ' · full' : ''}</span>
    </span>`;
  }

  private renderAttachments() {
    if (!this.attachments.length && !this.reading.length) return nothing;
    return html`<ul class="chips" aria-label="Attached" data-testid="attachments">
      ${this.reading.map(
        (name) => html`<li class="chip reading" data-testid="attachment-reading" aria-busy="true">${name} <span class="muted">reading…</span></li>`,
      )}
      ${this.attachments.map(
        (a, i) => html`<li class="chip" data-testid="attachment" title=${`${a.name}, from ${a.from}`}>
          ${a.name} <span class="muted" data-testid="attachment-read">${attachmentWords(a)}</span><button type="button" class="small" aria-label=${`Remove ${a.name}`} @click=${() => fire(this, { type: 'detachAttachment', index: i })}>×</button>
        </li>`,
      )}
    </ul>`;
  }

  /** A server's prompts as starters, while nothing is typed and nothing runs. */
  private renderStarters() {
    if (!this.starters.length || !this.empty || this.busy || !this.ready) return nothing;
    return html`<p class="starters" data-testid="prompt-starters">
      <span class="hint">Start from a server's prompt:</span>
      ${this.starters.map(
        (
          p,
        ) => html`<button type="button" class="small" data-testid="prompt-starter" title=${p.description ?? `From ${p.server}`} @click=${() => fire(this, { type: 'useMcpPrompt', url: p.url, name: p.name })}>
          ${p.title ?? p.name}
        </button>`,
      )}
    </p>`;
  }

  /** Attach a file (text or PDF): its text goes with the next message, fenced as data. */
  private renderAttach() {
    return html`<button type="button" class="small ghost attach" data-testid="attach-file" aria-label="Attach a file" title="Attach a text file or a PDF to your next message (or drop it on the page, or paste it)" @click=${this.handleAttachClick}>${icons.paperclip}</button>
      <input type="file" id="attach-file" data-testid="attach-file-input" multiple hidden accept=${ATTACHABLE_FILES} @change=${this.handleAttachFiles} />`;
  }

  private handleAttachClick(): void {
    this.renderRoot.querySelector<HTMLInputElement>('#attach-file')?.click();
  }

  private handleAttachFiles(event: Event): void {
    const input = event.target as HTMLInputElement;
    const files = [...(input.files ?? [])];
    input.value = '';
    if (files.length) void fire(this, { type: 'attachFiles', files });
  }

  /** A paste of files (a file copied on the device) attaches them; copied text stays text. */
  private handlePaste(event: ClipboardEvent): void {
    const data = event.clipboardData;
    const files = [...(data?.files ?? [])];
    if (!files.length || data?.getData('text/plain')) return;
    event.preventDefault();
    void fire(this, { type: 'attachFiles', files });
  }

  private renderWebSwitch() {
    const { enabled, status } = this.web;
    const unavailable = status !== undefined && !status.available;
    return html`<button
      type="button"
      class="switch ${unavailable ? 'unavailable' : ''}"
      role="switch"
      aria-checked=${String(enabled)}
      data-testid="web-switch"
      title=${status?.detail ?? 'Research mode: search the web and read pages, citing sources'}
      @click=${() => fire(this, { type: 'setWeb', enabled: !enabled })}
    >
      <span class="knob" aria-hidden="true"></span>${enabled && unavailable ? 'Web unavailable' : 'Web'}
    </button>`;
  }

  private renderHint() {
    if (this.stopping) return 'Stopping…';
    if (this.busy) return 'Esc to stop';
    if (this.phase === 'idle' || this.phase === 'error' || this.phase === 'confirm') return 'Load a model above to chat';
    if (!this.ready) return 'Send is available once the model is ready';
    if (this.phase === 'checking') return 'A message sent now goes once the self-check is done';
    if (this.phase === 'loading' || this.phase === 'warming') return 'A message sent now goes once the model is ready';
    return 'Enter to send · Shift+Enter for a new line';
  }

  private renderButton() {
    if (this.busy) {
      return html`<button type="button" class="send" data-testid="stop" ?disabled=${this.stopping} @click=${() => fire(this, { type: 'stop' })}>${this.stopping ? 'Stopping…' : 'Stop'}</button>`;
    }
    return html`<button type="submit" class="primary send" data-testid="send" ?disabled=${!this.ready} aria-disabled=${this.empty ? 'true' : 'false'}>Send</button>`;
  }

  /** The model is writing in another conversation: this one can be read and written in, and sent to once it is done. */
  private renderAnsweringElsewhere() {
    if (!this.answeringElsewhere) return nothing;
    return html`<p class="web-status" role="status" data-testid="answering-elsewhere">
      The model is answering in “${this.answeringElsewhere}”; Send is back here when it is done. Stop ends that answer.
    </p>`;
  }

  /** The message waits (for another tab, or for the self-check): it says for what, and how to take it back. */
  private renderWaiting() {
    const { text, waitingFor } = this.queued ?? {};
    if (text === undefined || !waitingFor) return nothing;
    const words = text.length > 60 ? `${text.slice(0, 60)}…` : text;
    return waitingFor === 'tab'
      ? html`<p class="web-status" role="status" data-testid="waiting-for-tab">
          Another tab of Nexus Chat is answering in this conversation. “${words}” will be sent when it is done; Stop takes it back.
        </p>`
      : waitingFor === 'files'
        ? html`<p class="web-status" role="status" data-testid="waiting-for-files">
            “${words}” will be sent with its files once they are read. Stop takes it back.
          </p>`
        : waitingFor === 'check'
          ? html`<p class="web-status" role="status" data-testid="waiting-for-check">
            “${words}” will be sent once the self-check shows whether this model calls tools. Skip the check above to send it now; Stop takes it back.
          </p>`
          : html`<p class="web-status" role="status" data-testid="waiting-for-model">
            “${words}” will be sent once the model has loaded (and checked that it calls tools). Stop takes it back.
          </p>`;
  }

  private renderWebStatus() {
    const { enabled, status } = this.web;
    if (!enabled) return nothing;
    const unavailable = status !== undefined && !status.available;
    return html`<p class="web-status ${unavailable ? 'unavailable' : ''}" data-testid="web-status" role="status">
      ${
        !status
          ? 'Web research is on; checking the search service…'
          : unavailable
            ? `${status.detail} The model will be told it cannot browse.`
            : `Web research is on: your question leaves this browser for the search engine. ${status.detail}`
      }
    </p>`;
  }

  protected override updated(changed: Map<PropertyKey, unknown>): void {
    if (changed.has('returned') && this.returned) {
      const field = this.renderRoot.querySelector('textarea');
      if (field && !field.value.trim()) {
        field.value = this.returned;
        this.empty = false;
      }
    }
  }

  /** Puts the keyboard focus in the message box. */
  override focus(): void {
    this.renderRoot.querySelector('textarea')?.focus();
  }

  private handleKeydown(event: KeyboardEvent): void {
    if (event.key === 'Enter' && !event.shiftKey && !event.isComposing) {
      event.preventDefault();
      (event.currentTarget as HTMLTextAreaElement).form?.requestSubmit();
    }
  }

  private handleInput(event: Event): void {
    const field = event.currentTarget as HTMLTextAreaElement;
    this.empty = !field.value.trim();
    field.style.height = 'auto';
    field.style.height = `${field.scrollHeight}px`;
  }

  private handleSubmit(event: SubmitEvent): void {
    event.preventDefault();
    const field = (event.currentTarget as HTMLFormElement).elements.namedItem('prompt') as HTMLTextAreaElement;
    if (!this.ready || this.busy || !field.value.trim()) return;
    const text = field.value;
    field.value = '';
    this.empty = true;
    field.style.height = 'auto';
    void fire(this, { type: 'send', text });
  }
}

/** A prompt an MCP server offers, as the composer shows it. */
export interface PromptStarter {
  /** The server's address and label. */
  url: string;
  server: string;
  name: string;
  title?: string;
  description?: string;
}

customElements.define('nexus-composer', ChatComposer);

declare global {
  interface HTMLElementTagNameMap {
    'nexus-composer': ChatComposer;
  }
}
