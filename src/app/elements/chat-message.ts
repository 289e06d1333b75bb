import { LitElement, html, nothing } from 'lit';
import type { Activity, Turn } from '../state/app-state.ts';
import { formatArgs, formatResult, formatSeconds, formatWait } from '../format.ts';
import type { LinkDestination } from './link-check.ts';
import { enrichMarkdown, isWebAddress, renderMarkdown } from './markdown.ts';
import { chatMessageStyles } from './chat-message-styles.ts';
import { answerDiagnostics } from './answer-diagnostics.ts';
import { answerView, type AnswerView } from '../conversation/answer-view.ts';
import { fire } from '../state/app-actions.ts';

const STATUS_WORDS: Readonly<Record<string, string>> = {
  error: 'failed',
  invalid: 'invalid arguments',
  refused: 'refused',
  duplicate: 'repeated, not run again',
  unknown: 'no such tool',
};

/** A tool's name as words: `get_weather` → "get weather" (the exact call is in the row's title and the diagnostics). */
function toolWords(name: string): string {
  return name
    .replace(/[_-]+/g, ' ')
    .replace(/([a-z])([A-Z])/g, '$1 $2')
    .toLowerCase();
}

/**
 * One answer: its Markdown (sanitized), a line per tool use, the sources it cites, and its
 * diagnostics, collapsed.
 */
export class ChatMessage extends LitElement {
  static override properties = {
    turn: { attribute: false },
    last: { type: Boolean },
    busy: { type: Boolean },
    showDiagnostics: { state: true },
    copied: { state: true },
    pendingLink: { state: true },
  };

  /** The answer shown. */
  declare turn: Turn;
  /** This is the conversation's last answer (the one that can be regenerated). */
  declare last: boolean;
  /** An answer is being generated somewhere in the page. */
  declare busy: boolean;
  /** The diagnostics section is open (rendered only then: raw generations can be long). */
  declare showDiagnostics: boolean;
  /** The answer was just copied. */
  declare copied: boolean;
  /** A link in the answer that was clicked, shown with its destination until the user opens it or not. */
  declare pendingLink: LinkDestination | undefined;

  private rendered: { text: string; sources: string; element: HTMLElement } | undefined;
  /** Draws the link dialog's question, once loaded with the first link followed (see link-check.ts). */
  private linkDialog: typeof import('./link-check.ts').linkDialogContent | undefined;
  /** Draws a search of the attached files, once loaded (see passages-line.ts). */
  private passagesLine: typeof import('./passages-line.ts').passagesLine | undefined;
  /** The answer's finished Markdown blocks, reused while it streams. */
  private readonly renderedBlocks = new Map<string, DocumentFragment>();

  static override styles = chatMessageStyles;

  override willUpdate(): void {
    const { text } = this.turn;
    const { sources } = this.view;
    const sourcesKey = sources.map((s) => `${s.n} ${s.url} ${s.title}`).join('\n');
    if (!this.rendered || this.rendered.text !== text || this.rendered.sources !== sourcesKey) {
      this.rendered = { text, sources: sourcesKey, element: renderMarkdown(text, sources, this.renderedBlocks) };
    }
    // Code colours and formulas once the answer is written (not on every streamed token).
    if (this.turn.state !== 'streaming' && this.turn.state !== 'stopping') void enrichMarkdown(this.rendered.element);
  }

  /** The answer's tool lines, diagnostics, metrics, drafts and checking state: a view of its steps, made once per turn. */
  private get view(): AnswerView {
    if (this.viewOf !== this.turn) {
      this.viewOf = this.turn;
      this.cachedView = answerView(this.turn);
    }
    return this.cachedView ?? answerView(this.turn);
  }
  private viewOf: Turn | undefined;
  private cachedView: AnswerView | undefined;

  override render() {
    const turn = this.turn;
    const streaming = turn.state === 'streaming';
    const running = streaming || turn.state === 'stopping';
    return html`<article
      class="turn"
      data-role="assistant"
      data-state=${turn.state}
      aria-busy=${running ? 'true' : 'false'}
      aria-label="Answer"
    >
      <div class="avatar" aria-hidden="true"></div>
      <div class="body">
        ${this.renderDrafts()}
        ${this.renderActivity()}
        ${streaming && !turn.text && !this.view.checking ? html`<span class="typing" role="img" aria-label="Writing"><span></span><span></span><span></span></span>` : nothing}
        <div
          @click=${this.handleMarkdownClick}
          @auxclick=${this.handleLinkGesture}
          @contextmenu=${this.handleLinkGesture}
          @dragstart=${this.handleLinkGesture}
        >${this.rendered?.element}</div>
        ${streaming && this.view.checking ? html`<p class="status" data-testid="turn-status" role="status">Checking with a tool…</p>` : nothing}
        ${this.renderNote()} ${this.renderWithoutResults()} ${this.renderSources()} ${this.renderMeta()} ${this.renderActions()}
        ${this.showDiagnostics ? answerDiagnostics(this.view, this.turn.model, this.turn.steps) : nothing}
      </div>
      ${this.renderLinkDialog()}
    </article>`;
  }

  /**
   * What streamed before a tool was used, or before a stray end-of-reasoning tag made it reasoning:
   * kept, folded, so nothing the user read vanishes.
   */
  private renderDrafts() {
    const drafts = this.view.drafts;
    if (!drafts.length) return nothing;
    const label = this.view.activity.length ? 'Written before using a tool' : 'Written before the answer (the model was thinking)';
    return drafts.map(
      (draft) => html`<details class="draft" data-testid="draft">
        <summary>${label}</summary>
        <p>${draft}</p>
      </details>`,
    );
  }

  /** The quiet line under a finished answer: which model wrote it, how fast, how long it took. */
  private renderMeta() {
    const { state, model } = this.turn;
    const metrics = this.view.metrics;
    if (state === 'stopped') {
      // A stopped answer says what wrote it and how far it got, as a finished one does (issue 54, P3).
      const tokens = (this.turn.steps ?? []).reduce((n, step) => n + (step.kind === 'generation' ? step.newTokens : 0), 0);
      const parts = [model, 'stopped', tokens ? `${tokens.toLocaleString('en-US')} tokens written` : ''].filter(Boolean);
      return html`<p class="answer-meta" data-testid="answer-meta">${parts.join(' · ')}</p>`;
    }
    if (state !== 'done' || !metrics) return nothing;
    const parts = [
      model,
      // Regenerate samples anew (a greedy answer would come back the same): said, so a different answer is no surprise.
      this.turn.sampled ? `a new sample (temperature ${this.turn.sampled})` : '',
      metrics.firstTextMs === undefined ? '' : `first words after ${formatWait(metrics.firstTextMs)}`,
      `${metrics.tokensPerSecond.toFixed(1)} tokens/s`,
      formatSeconds(metrics.ms),
    ].filter(Boolean);
    return html`<p class="answer-meta" data-testid="answer-meta">${parts.join(' · ')}</p>`;
  }

  private renderNote() {
    const { state, note } = this.turn;
    if (!note) return nothing;
    return html`<p class="note ${state === 'failed' ? 'failed' : ''}" data-testid="turn-note">${note}</p>`;
  }

  /**
   * A finished answer written after a tool was refused or failed, and none ran: what it states did
   * not come from a tool, and a small model fills such gaps with invented values. Said beside it.
   */
  private renderWithoutResults() {
    const { state } = this.turn;
    const activity = this.view.activity;
    const calls = activity.filter((a) => a.kind === 'call');
    if (state !== 'done' || !calls.length || calls.some((a) => a.kind === 'call' && a.status === 'ok')) return nothing;
    const refused = calls.some((a) => a.kind === 'call' && a.status === 'refused');
    return html`<p class="note" data-testid="without-results">
      ${refused ? 'The tool was refused' : 'The tool did not run'}, so this answer is not based on its result: check any figures or facts in it.
    </p>`;
  }

  private renderActivity() {
    const activity = this.view.activity;
    const running = this.turn.state === 'streaming' ? this.turn.running : undefined;
    if (!activity.length && !running) return nothing;
    return html`<ol class="activity" data-testid="tool-activity" aria-label="Tool use">
      ${activity.map((a) => this.renderActivityLine(a))}
      ${running ? this.renderRunning(running) : nothing}
    </ol>`;
  }

  /** The tool running now, with what its server last said of its progress. */
  private renderRunning(running: NonNullable<Turn['running']>) {
    return html`<li data-testid="tool-row" data-status="running" aria-live="polite">
      <span class="what">running <strong>${toolWords(running.name)}</strong></span>
      <span class="badge" data-testid="tool-progress">${running.progress}</span>
    </li>`;
  }

  private renderActivityLine(a: Activity) {
    if (a.kind === 'call') {
      const failed = a.status !== 'ok';
      return html`<li class=${failed ? 'failed' : ''} data-testid="tool-row" data-status=${a.status} data-source=${a.source}>
        <span class="what" title=${`${a.name}(${formatArgs(a.arguments)})`}>${failed ? 'tried' : 'used'} <strong>${toolWords(a.name)}</strong>${Object.keys(a.arguments).length ? ` · ${formatArgs(a.arguments)}` : ''}</span>
        ${failed ? html`<span class="badge danger">${STATUS_WORDS[a.status] ?? a.status}</span>` : nothing}
        <details>
          <summary>${failed ? 'what the model was told' : 'result'}</summary>
          <pre>${formatResult(a.result)}</pre>
        </details>
        ${a.shown?.map((text) => html`<p class="for-you" data-testid="tool-shown">${text}</p>`)}
        ${a.app ? this.renderApp(a.app) : nothing}
      </li>`;
    }
    if (a.kind === 'search') {
      return html`<li class=${a.ok ? '' : 'failed'} data-testid="tool-row" data-kind="search">
        <span class="what">${a.ok ? 'searched' : 'search failed'}: ${a.queries.map((q, i) => html`${i ? ' · ' : ''}'${q}'`)}</span>
        ${a.ok ? html`<span class="badge">${a.results} result${a.results === 1 ? '' : 's'}</span>` : html`<span class="badge danger">${a.detail ?? 'failed'}</span>`}
      </li>`;
    }
    if (a.kind === 'passages') return this.renderPassagesLine(a);
    const [first, ...more] = a.pages;
    return html`<li class=${a.ok ? '' : 'failed'} data-testid="tool-row" data-kind="read">
      ${
        a.ok && first
          ? html`<span class="what">read: ${this.renderLink(first.url, first.title)}</span>${
              more.length
                ? html` <span>and ${more.length} more page${more.length === 1 ? '' : 's'} of the site: ${more.map((p, i) => html`${i ? ', ' : ''}${this.renderLink(p.url, p.title)}`)}</span>`
                : nothing
            }`
          : html`<span class="what">could not read: ${this.renderLink(a.url, a.url)}</span> <span class="badge danger">${a.detail ?? 'failed'}</span>`
      }
    </li>`;
  }

  /** A tool's MCP Apps view: its element loads with the first call that has one (mcp-app-view.ts). */
  private renderApp(app: NonNullable<Extract<Activity, { kind: 'call' }>['app']>) {
    if (!customElements.get('nexus-mcp-app')) void import('./mcp-app-view.ts');
    return html`<nexus-mcp-app .call=${app} @open-link=${this.handleAppLink}></nexus-mcp-app>`;
  }

  /** A search of the attached files' line: drawn by a module that loads with the first answer that has one. */
  private renderPassagesLine(a: Extract<Activity, { kind: 'passages' }>) {
    if (this.passagesLine) return this.passagesLine(a);
    void import('./passages-line.ts').then(({ passagesLine }) => {
      this.passagesLine = passagesLine;
      this.requestUpdate();
    });
    return html`<li data-testid="tool-row" data-kind="passages"><span class="what">searched the attached files: '${a.query}'</span></li>`;
  }

  private renderLink(url: string, title: string) {
    return isWebAddress(url) ? html`<a href=${url} target="_blank" rel="noopener noreferrer">${title}</a>` : html`<span>${title}</span>`;
  }

  private renderSources() {
    const { sources } = this.view;
    if (!sources.length) return nothing;
    return html`<section class="sources" data-testid="sources">
      <h3>Sources</h3>
      <ol>
      ${sources.map(
        (s) => html`<li value=${s.n} id="source-${s.n}">
          ${this.renderLink(s.url, s.title)}<span class="host">${hostOf(s.url)}${s.date ? ` · ${s.date}` : ''}</span>
        </li>`,
      )}
      </ol>
    </section>`;
  }

  private renderActions() {
    if (this.turn.state === 'streaming' || this.turn.state === 'stopping') return nothing;
    return html`<div class="actions">
      ${this.turn.text ? html`<button class="ghost" @click=${this.handleCopy}>${this.copied ? 'Copied' : 'Copy'}</button>` : nothing}
      ${
        this.last && this.turn.state === 'stopped' && this.turn.text.trim()
          ? html`<button class="ghost" data-testid="continue" title="The model goes on from where it stopped, in this answer" ?disabled=${this.busy} @click=${() => fire(this, { type: 'continueAnswer' })}>Continue</button>`
          : nothing
      }
      ${this.last ? html`<button class="ghost" data-testid="regenerate" ?disabled=${this.busy} @click=${() => fire(this, { type: 'regenerate' })}>Regenerate</button>` : nothing}
      <button class="ghost" data-testid="diagnostics-toggle" aria-expanded=${String(this.showDiagnostics)} @click=${this.handleDiagnosticsToggle}>
        Diagnostics
      </button>
    </div>`;
  }

  private handleDiagnosticsToggle(): void {
    this.showDiagnostics = !this.showDiagnostics;
  }

  private async handleCopy(): Promise<void> {
    await navigator.clipboard?.writeText(this.turn.text).catch(() => undefined);
    this.copied = true;
    setTimeout(() => (this.copied = false), 1500);
  }

  /** Before a link the model wrote opens: where it goes, in full, and a warning when its address carries much data. */
  private renderLinkDialog() {
    const link = this.pendingLink;
    return html`<dialog class="link-dialog" data-testid="link-dialog" aria-labelledby="link-title" @close=${this.handleLinkClosed}>
      ${link && this.linkDialog ? this.linkDialog(link, { cancel: () => this.closeLinkDialog(), open: () => this.handleOpenLink() }) : nothing}
    </dialog>`;
  }

  private handleOpenLink(): void {
    const link = this.pendingLink;
    this.closeLinkDialog();
    if (link) window.open(link.href, '_blank', 'noopener,noreferrer');
  }

  private closeLinkDialog(): void {
    this.renderRoot.querySelector<HTMLDialogElement>('dialog.link-dialog')?.close();
  }

  /**
   * Every way of following a link the model wrote — a click with or without Ctrl, Shift or Meta, a
   * middle click, the context menu's "Open link", a drag to the tab strip — shows the dialog instead
   * (issue 41); citations to the answer's own sources open at once.
   * @returns whether the event was a model's link, now handled.
   */
  private async handleLinkGesture(event: Event): Promise<boolean> {
    const anchor = (event.target as Element).closest?.('a[href]');
    if (!(anchor instanceof HTMLAnchorElement) || anchor.classList.contains('cite')) return false;
    event.preventDefault();
    await this.showLinkDialog(anchor.href);
    return true;
  }

  /**
   * Shows where a link goes before it opens, as for the model's links: the address in full, a warning where it
   * carries data. Loaded on the first link followed: most answers have none, and the page's first load stays small.
   * @param from - `'app'` for a link an MCP app's view asks to open.
   */
  private async showLinkDialog(href: string, from?: 'app'): Promise<void> {
    const { describeLink, linkDialogContent } = await import('./link-check.ts');
    this.linkDialog = linkDialogContent;
    const described = describeLink(href);
    if (!described) return;
    const link = from ? { ...described, from } : described;
    this.pendingLink = link;
    await this.updateComplete;
    const dialog = this.renderRoot.querySelector<HTMLDialogElement>('dialog.link-dialog');
    if (dialog && !dialog.open) dialog.showModal();
    // Cancel is the safe choice, so it gets the focus.
    this.renderRoot.querySelector<HTMLButtonElement>('[data-testid="link-cancel"]')?.focus();
  }

  /** A link an MCP app's view asks to open (`ui/open-link`): the same dialog first, never a window by itself. */
  private handleAppLink(event: CustomEvent<string>): void {
    void this.showLinkDialog(event.detail, 'app');
  }

  private handleLinkClosed(): void {
    this.pendingLink = undefined;
  }

  /**
   * Rendered Markdown is plain DOM, so its clicks are handled here: the copy buttons, and the links
   * the model wrote, which show their destination before they open (citations to the answer's own
   * sources open at once).
   */
  private async handleMarkdownClick(event: Event): Promise<void> {
    if (await this.handleLinkGesture(event)) return;
    const button = (event.target as Element).closest?.('button.copy');
    const code = button?.closest('.code-block')?.querySelector('pre')?.textContent;
    if (!button || code == null) return;
    await navigator.clipboard?.writeText(code).catch(() => undefined);
    button.textContent = 'Copied';
    setTimeout(() => (button.textContent = 'Copy'), 1500);
  }
}

function hostOf(url: string): string {
  // A passage of an attached file (see search_attachments): its title names the file and the place.
  if (url.startsWith('attachment:')) return 'attached file';
  try {
    return new URL(url).hostname.replace(/^www\./, '');
  } catch {
    return '';
  }
}

customElements.define('nexus-message', ChatMessage);

declare global {
  interface HTMLElementTagNameMap {
    'nexus-message': ChatMessage;
  }
}
