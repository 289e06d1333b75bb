import { LitElement, html, nothing } from 'lit';
import type { AppState, Theme } from '../state/app-state.ts';
import { AppStore } from '../state/app-store.ts';
import { AppActionEvent } from '../state/app-actions.ts';
import { deviceLabel } from '../format.ts';
import { icons } from './icons.ts';
import { workerModelOpener } from '../state/model-loader.ts';
import { indexedDbPersistence, memoryPersistence } from '../conversation/persistence.ts';
import { browserTabSync } from '../state/tab-sync.ts';
import { registerPageWorker } from '../state/page-updates.ts';
import { createResearch } from '../state/web-research.ts';
import type { PromptStarter } from './chat-composer.ts';
import './chat-composer.ts';
import './chat-thread.ts';
import './conversation-list.ts';
import './model-panel.ts';
import { nexusAppStyles } from './nexus-app-styles.ts';
import { contextGauge } from '../state/context-gauge.ts';

/** Each drawer's element, loaded the first time it opens. */
const PANELS = {
  tools: () => import('./tools-panel.ts'),
  settings: () => import('./settings-panel.ts'),
  /** Not drawers: the dialogs, each loaded when first needed (a `confirm` tool asks; a server asks). */
  approval: () => import('./approval-dialog.ts'),
  shortcuts: () => import('./shortcut-sheet.ts'),
  mcpRequest: () => import('./mcp-request-dialog.ts'),
} as const;

/** Where the page finds its tools; a plain file, editable without a rebuild. */
const TOOLS_URL = './tools.js';

type Panel = 'tools' | 'settings';

/** A drag that carries files from the device (not text or a link dragged within the page). */
function carriesFiles(event: DragEvent): boolean {
  return event.dataTransfer?.types.includes('Files') ?? false;
}

/**
 * The root of the chat page. It alone holds the store: it passes each part of the page the slice of
 * state it shows, dispatches the actions the parts fire (`app-action` events), and lays the parts out: conversations on the left, the model card and the chat in the
 * middle, tools and settings in a drawer. The model named in the address (`?model=…`) loads at
 * once; without one the page shows the picker and downloads nothing.
 */
export class NexusApp extends LitElement {
  static override properties = {
    store: { attribute: false },
    state: { state: true },
    panel: { state: true },
    navOpen: { state: true },
    shortcutsOpen: { state: true },
    dropping: { state: true },
    scrolledUp: { state: true },
  };

  /** The page's store. Set it before the element is connected to run the page over another store (tests do). */
  declare store: AppStore | undefined;
  /** The store's current state. */
  declare state: AppState;
  /** Which panel the drawer shows, if it is open. */
  declare panel: Panel | undefined;
  /** The conversation list is open over the chat (narrow windows). */
  declare navOpen: boolean;
  /** The keyboard shortcut sheet is shown (`?`). */
  declare shortcutsOpen: boolean;
  /** Files are dragged over the page: it shows that dropping them attaches them. */
  declare dropping: boolean;
  /** The user scrolled up from the latest message: a button takes them back down. */
  declare scrolledUp: boolean;
  /** Drag enters and leaves every element under the pointer: the page is left when they balance. */
  private dragDepth = 0;

  private unsubscribe: (() => void) | undefined;
  private stuckToBottom = false;
  private readonly resizeObserver = new ResizeObserver(() => this.keepAtBottom());

  static override styles = nexusAppStyles;

  constructor() {
    super();
    this.navOpen = false;
    this.dropping = false;
    this.scrolledUp = false;
  }

  override connectedCallback(): void {
    super.connectedCallback();
    this.store ??= defaultStore();
    const store = this.store;
    this.state = store.state;
    this.unsubscribe = store.subscribe((state) => {
      this.state = state;
      if (state.approval) void PANELS.approval();
      if (state.mcpRequest) void PANELS.mcpRequest();
    });
    window.addEventListener('keydown', this.handleKeydown);
    this.addEventListener('app-action', this.handleAction);
    void store.start({ search: location.search, href: location.href });
  }

  override disconnectedCallback(): void {
    super.disconnectedCallback();
    this.unsubscribe?.();
    window.removeEventListener('keydown', this.handleKeydown);
    this.removeEventListener('app-action', this.handleAction);
    this.resizeObserver.disconnect();
  }

  /** An element inside asked for an action: the store does it, and the element gets its result. */
  private readonly handleAction = (event: Event): void => {
    if (!(event instanceof AppActionEvent) || !this.store) return;
    event.stopPropagation();
    event.result = this.store.dispatch(event.action);
  };

  override updated(changed: Map<PropertyKey, unknown>): void {
    // On the root element, where the design tokens live: every shadow root below inherits them.
    const theme = this.state.settings.theme;
    if (theme === 'system') delete this.dataset.theme;
    else this.dataset.theme = theme;
    if (changed.has('panel')) this.moveFocusWithDrawer(changed.get('panel') as Panel | undefined);
  }

  /**
   * An opened drawer takes the focus (Tab then walks its fields; the page behind is inert), and a
   * closed one gives it back to the button that opened it.
   */
  private moveFocusWithDrawer(previous: Panel | undefined): void {
    if (this.panel) {
      this.renderRoot.querySelector<HTMLElement>('[data-testid="drawer"]')?.focus();
    } else if (previous) {
      this.renderRoot.querySelector<HTMLElement>(`[data-testid="open-${previous}"]`)?.focus();
    }
  }

  override firstUpdated(): void {
    const column = this.renderRoot.querySelector('.column');
    if (column) this.resizeObserver.observe(column);
  }

  override render() {
    const s = this.state;
    return html`<div
        class="shell ${this.navOpen ? 'nav-open' : ''}"
        @dragenter=${this.handleDragEnter}
        @dragover=${this.handleDragOver}
        @dragleave=${this.handleDragLeave}
        @drop=${this.handleDrop}
      >
        <aside class="sidebar" aria-label="Conversations" ?inert=${Boolean(this.panel)}>
          <nexus-conversations
            @conversation-chosen=${() => (this.navOpen = false)}
            .conversations=${s.conversations}
            .currentId=${s.conversation.id}
            ?locked=${s.queued !== undefined}
            .answeringIn=${s.busy ? s.answeringIn : undefined}
            .search=${s.conversationSearch}
            .undoDelete=${s.undoDelete}
            .importError=${s.importError}
            .note=${s.listNote}
          ></nexus-conversations>
          <p class="foot" data-testid="privacy">${
            s.web.enabled
              ? "Web is on: your questions, and the pages the model reads, go through this site's server to the search engine. The model, your conversations and settings stay in this browser."
              : 'Everything stays in this browser: the model, your conversations and settings.'
          }</p>
        </aside>
        <div class="scrim" @click=${() => (this.navOpen = false)}></div>
        <div class="main">
          ${this.renderHeader()}
          <main class="scroller" ?inert=${Boolean(this.panel)} @scroll=${this.handleScroll}>
            <div class="column">
              <nexus-model-panel .model=${s.model} .runtime=${s.runtime} .verdictCard=${s.settings.verdictCard} .onDevice=${s.deviceModels?.models}></nexus-model-panel>
              <nexus-thread
                .conversation=${s.conversation}
                ?busy=${s.busy}
                ?ready=${s.model.phase === 'ready'}
                .toolsUnreliable=${s.model.verdict?.ok === false}
              ></nexus-thread>
            </div>
          </main>
          ${this.renderUpdate()}
          <section class="composer" aria-label="Message" ?inert=${Boolean(this.panel)}>
            ${this.renderJumpToLatest()}
            <nexus-composer ?ready=${SENDABLE_PHASES.has(s.model.phase)} .phase=${s.model.phase} ?busy=${s.busy || s.queued !== undefined} ?stopping=${s.stopping ?? false} .answeringElsewhere=${answeringElsewhere(s)} .attachError=${s.attachError} .web=${s.web} .queued=${s.queued} .returned=${s.returnedText} .attachments=${s.attachments} .reading=${s.attachmentsReading ?? []} .starters=${promptStarters(s)} .gauge=${contextGauge(s)}></nexus-composer>
          </section>
        </div>
        ${this.renderDrawer()}
        ${this.renderDropZone()}
      </div>
      <nexus-approval-dialog .approval=${s.approval}></nexus-approval-dialog>
      <nexus-mcp-request-dialog .request=${s.mcpRequest}></nexus-mcp-request-dialog>
      <nexus-shortcut-sheet ?open=${this.shortcutsOpen} @shortcuts-closed=${() => (this.shortcutsOpen = false)}></nexus-shortcut-sheet>
      <div class="sr-only" role="status" aria-live="polite" data-testid="notice">${s.notice ?? ''}</div>`;
  }

  /** Where dragged files go, said while they are over the page. */
  private renderDropZone() {
    if (!this.dropping) return nothing;
    return html`<div class="drop-zone" data-testid="drop-zone" aria-hidden="true">
      <p><strong>Drop to attach</strong><br />The text of each file (text, Markdown, code, CSV, JSON or PDF) goes with your next message.</p>
    </div>`;
  }

  private readonly handleDragEnter = (event: DragEvent): void => {
    if (!carriesFiles(event)) return;
    event.preventDefault();
    this.dragDepth++;
    this.dropping = true;
  };

  /** Accepting the drag here is what keeps the browser from opening a dropped file in place of the page. */
  private readonly handleDragOver = (event: DragEvent): void => {
    if (!carriesFiles(event)) return;
    event.preventDefault();
    if (event.dataTransfer) event.dataTransfer.dropEffect = 'copy';
  };

  private readonly handleDragLeave = (event: DragEvent): void => {
    if (!carriesFiles(event)) return;
    this.dragDepth = Math.max(0, this.dragDepth - 1);
    if (this.dragDepth === 0) this.dropping = false;
  };

  private readonly handleDrop = (event: DragEvent): void => {
    if (!carriesFiles(event)) return;
    event.preventDefault();
    this.dragDepth = 0;
    this.dropping = false;
    const files = [...(event.dataTransfer?.files ?? [])];
    if (files.length) void this.store?.dispatch({ type: 'attachFiles', files });
  };

  /** A new version waits: it is used from the next reload, or now if the user asks (not mid-answer). */
  private renderUpdate() {
    if (!this.state.updateReady) return nothing;
    const busy = this.state.busy || this.state.queued !== undefined;
    return html`<p class="update" role="status" data-testid="update-ready">
      A new version of Nexus Chat is ready; the next reload uses it.
      <button class="small" data-testid="apply-update" ?disabled=${busy} title=${busy ? 'After this answer' : ''} @click=${() => this.store?.dispatch({ type: 'applyUpdate' })}>Reload now</button>
    </p>`;
  }

  private renderHeader() {
    return html`<header>
      <button class="ghost menu" aria-label="Conversations" aria-expanded=${String(this.navOpen)} @click=${() => (this.navOpen = !this.navOpen)}>${icons.menu}</button>
      <div class="brand"><span class="logo" aria-hidden="true">N</span><h1>Nexus Chat</h1></div>
      ${this.renderStatus()}
      <span class="spacer"></span>
      <div class="panel-buttons">
        <button class="ghost keys" data-testid="open-shortcuts" aria-label="Shortcuts (?)" aria-keyshortcuts="?" @click=${this.handleOpenShortcuts}><span>Shortcuts </span>(?)</button>
        ${this.renderThemeToggle()}
        <button class="ghost" data-testid="open-tools" aria-pressed=${String(this.panel === 'tools')} @click=${() => this.handleTogglePanel('tools')}>Tools</button>
        <button class="ghost" data-testid="open-settings" aria-pressed=${String(this.panel === 'settings')} @click=${() => this.handleTogglePanel('settings')}>Settings</button>
      </div>
    </header>`;
  }

  /** System → light → dark: one button, saying which is in use. */
  private renderThemeToggle() {
    const theme = this.state.settings.theme;
    const next: Theme = theme === 'system' ? 'light' : theme === 'light' ? 'dark' : 'system';
    const words: Record<Theme, string> = { system: 'Theme: system', light: 'Theme: light', dark: 'Theme: dark' };
    return html`<button class="ghost theme" data-testid="theme-toggle" title="Switch to ${next}" @click=${() => this.store?.dispatch({ type: 'updateSettings', change: { theme: next } })}>${words[theme]}</button>`;
  }

  private renderStatus() {
    const { model } = this.state;
    const text = statusText(this.state);
    const dot =
      model.phase === 'ready'
        ? model.verdict?.ok === false
          ? 'warn'
          : this.state.busy
            ? 'busy'
            : 'ready'
        : model.phase === 'error'
          ? 'error'
          : model.phase === 'idle' || model.phase === 'confirm'
            ? ''
            : 'busy';
    return html`<div class="status" title=${text}><span class="dot ${dot}" aria-hidden="true"></span><span class="text" data-testid="model-status">${text}</span></div>`;
  }

  private renderDrawer() {
    if (!this.panel) return nothing;
    const s = this.state;
    return html`<aside class="drawer" tabindex="-1" aria-label=${this.panel === 'tools' ? 'Tools' : 'Settings'} data-testid="drawer">
      <div class="drawer-head">
        <h2>${this.panel === 'tools' ? 'Tools' : 'Settings'}</h2>
        <span class="spacer"></span>
        <button class="ghost" aria-label="Close" data-testid="close-drawer" @click=${() => (this.panel = undefined)}>${icons.close}</button>
      </div>
      <div class="drawer-body">
        ${
          this.panel === 'tools'
            ? html`<nexus-tools-panel .tools=${s.tools} .servers=${s.mcp} .extras=${s.mcpExtras}></nexus-tools-panel>`
            : html`<nexus-settings-panel .settings=${s.settings} .toolNames=${(s.tools.list ?? []).map((t) => t.schema.function.name)} .instructions=${s.conversation.instructions} .undo=${s.settingsUndo} .deviceModels=${s.deviceModels} .inUse=${s.model.phase === 'ready' ? s.model.address : undefined}></nexus-settings-panel>`
        }
      </div>
    </aside>`;
  }

  private handleTogglePanel(panel: Panel): void {
    this.panel = this.panel === panel ? undefined : panel;
    // The drawers' elements load when first opened (the page's first load stays within its budget); Lit
    // keeps the properties set on an element before its definition arrives.
    if (this.panel) void PANELS[this.panel]();
  }

  private readonly handleKeydown = (event: KeyboardEvent): void => {
    if (event.defaultPrevented || this.state.approval || this.state.mcpRequest) return;
    if (this.handleShortcut(event)) {
      event.preventDefault();
      return;
    }
    if (event.key !== 'Escape' || this.shortcutsOpen) return;
    if (this.state.busy) void this.store?.dispatch({ type: 'stop' });
    else if (this.panel) this.panel = undefined;
    else if (this.navOpen) this.navOpen = false;
  };

  /** The shortcuts of the sheet (`shortcut-sheet.ts`); true when `event` was one. */
  private handleShortcut(event: KeyboardEvent): boolean {
    const command = event.ctrlKey || event.metaKey;
    const key = event.key.toLowerCase();
    if (command && !event.shiftKey && key === 'k') {
      this.navOpen = true;
      void this.updateComplete.then(() =>
        this.renderRoot.querySelector('nexus-conversations')?.renderRoot.querySelector<HTMLInputElement>('[data-testid="conversation-search"]')?.focus(),
      );
      return true;
    }
    if (command && event.shiftKey && key === 'o') {
      // Where the new conversation begins: the message box (not the sidebar the shortcut may come from).
      void this.store?.dispatch({ type: 'newConversation' }).then(this.handleFocusComposer);
      return true;
    }
    if (command && event.shiftKey && key === 'c') {
      const last = this.state.conversation.turns.findLast((t) => t.role === 'assistant' && t.text.trim());
      if (last)
        void navigator.clipboard?.writeText(last.text).then(
          () => this.store?.notify('Copied the last answer.'),
          () => this.store?.notify('Could not copy: the browser refused.'),
        );
      return true;
    }
    // `?` and `/` only where they type nothing: never while writing in a field.
    if (command || event.altKey || isTyping(event)) return false;
    if (event.key === '?') {
      this.handleOpenShortcuts();
      return true;
    }
    if (event.key === '/') {
      this.handleFocusComposer();
      return true;
    }
    return false;
  }

  private readonly handleOpenShortcuts = (): void => {
    this.shortcutsOpen = true;
    void PANELS.shortcuts();
  };

  private readonly handleFocusComposer = (): void => {
    void this.updateComplete.then(() => this.renderRoot.querySelector('nexus-composer')?.focus());
  };

  private handleScroll(event: Event): void {
    const el = event.currentTarget as HTMLElement;
    const below = el.scrollHeight - el.scrollTop - el.clientHeight;
    this.stuckToBottom = below <= 48;
    // Offered once the latest message is out of sight, not for a few lines.
    this.scrolledUp = below > el.clientHeight / 2;
  }

  /** Back to the latest message; a growing answer is followed again from there. */
  private renderJumpToLatest() {
    if (!this.scrolledUp) return nothing;
    const writing = this.state.busy && answeringElsewhere(this.state) === undefined;
    return html`<div class="jump"><button type="button" class="small" data-testid="jump-to-latest" @click=${this.handleJumpToLatest}>
      ${writing ? '↓ The answer goes on below' : '↓ Latest message'}
    </button></div>`;
  }

  private handleJumpToLatest(): void {
    const scroller = this.renderRoot.querySelector<HTMLElement>('.scroller');
    if (!scroller) return;
    this.stuckToBottom = true;
    this.scrolledUp = false;
    scroller.scrollTop = scroller.scrollHeight;
  }

  /** Follows a growing answer down once a message is sent, unless the user scrolled up to read. */
  private keepAtBottom(): void {
    const scroller = this.renderRoot.querySelector<HTMLElement>('.scroller');
    if (scroller && this.stuckToBottom) scroller.scrollTop = scroller.scrollHeight;
  }

  override willUpdate(changed: Map<PropertyKey, unknown>): void {
    const before = changed.get('state') as AppState | undefined;
    // Once the model is ready, typing goes to the message box (unless the user is elsewhere).
    if (before && before.model.phase !== 'ready' && this.state.model.phase === 'ready') {
      void this.updateComplete.then(() => {
        if (document.activeElement === document.body || document.activeElement === this) this.renderRoot.querySelector('nexus-composer')?.focus();
      });
    }
    // On a phone the conversations drawer covers the chat: a choice made in it closes it.
    if (before && this.state.conversation.id !== before.conversation.id) this.navOpen = false;
    // Sending a message, or opening another conversation, shows its end.
    if (before && ((this.state.busy && !before.busy) || this.state.conversation.id !== before.conversation.id)) {
      this.stuckToBottom = true;
      void this.updateComplete.then(() =>
        requestAnimationFrame(() => {
          const scroller = this.renderRoot.querySelector<HTMLElement>('.scroller');
          if (scroller) scroller.scrollTop = scroller.scrollHeight;
        }),
      );
    }
  }
}

/** The header's one-line status. "Ready: <model> on <device> <dtype>" is what tests and users read. */
function statusText({ model }: AppState): string {
  switch (model.phase) {
    case 'idle':
      return 'No model loaded';
    case 'confirm':
      return `Waiting for you: load ${model.label}?`;
    case 'loading':
      return model.searching ? `Searching quantizations of ${model.label}…` : `Loading ${model.label}…`;
    case 'warming':
      return `Warming up ${model.label}…`;
    case 'checking':
      return 'Checking that this model calls tools…';
    case 'error':
      return `Could not load ${model.label}`;
    case 'ready':
      // A model the check found does not call tools is ready to chat, not to use tools: the pill says so.
      return `${model.verdict?.ok === false ? 'Ready without tools' : 'Ready'}: ${model.label} on ${deviceLabel(model.device, model.dtype)}`;
  }
}

/** Where a model is, or is on its way: a message sent then is answered once it is ready. */
const SENDABLE_PHASES: ReadonlySet<string> = new Set(['loading', 'warming', 'checking', 'ready']);

/** The title of the conversation an answer is being written in, when the user is reading another. */
function answeringElsewhere(s: AppState): string | undefined {
  if (!s.busy || !s.answeringIn || s.answeringIn === s.conversation.id) return undefined;
  return s.conversations.find((c) => c.id === s.answeringIn)?.title ?? 'another conversation';
}

/** The store of the real page: the model in a worker, IndexedDB, the proxy on this origin. */
function defaultStore(): AppStore {
  const persistence = typeof indexedDB === 'undefined' ? memoryPersistence() : indexedDbPersistence();
  // Tabs of the page share one storage: they tell each other what they saved, and take turns answering.
  const tabs = typeof indexedDB === 'undefined' ? undefined : browserTabSync();
  // The opener reads the software-WebGPU setting when it loads, from the store built here.
  let store: AppStore | undefined;
  store = new AppStore({
    persistence,
    opener: workerModelOpener(persistence.verdicts, () => ({
      allowFallbackAdapter: store?.state.settings.softwareWebgpu ?? false,
      ...(store ? { hubUrl: store.state.settings.hubUrl } : {}),
    })),
    research: createResearch,
    ...(tabs ? { tabs } : {}),
    toolsUrl: TOOLS_URL,
    // `npm start` relays to the MCP servers its operator listed; elsewhere this answers nothing usable.
    mcpRelayUrl: new URL('./mcp-relay/', location.href).href,
    // Over https the app serves its client metadata document: servers that accept one need no registration.
    // Loaded with the page's MCP client: a page without servers never fetches it.
    mcpSignIn: async () =>
      (await import('../mcp/mcp-sign-in.ts')).browserSignIn(
        new URL('./mcp-oauth-callback.html', location.href).href,
        location.protocol === 'https:' ? new URL('/oauth/client-metadata.json', location.href).href : undefined,
      ),
    // The page's Content-Security-Policy has no 'unsafe-eval': tools.js is imported as a module.
    toolsEvaluate: 'module',
    setAddress: (model) => {
      const url = new URL(location.href);
      if (model) url.searchParams.set('model', model);
      else url.searchParams.delete('model');
      if (url.href !== location.href) history.replaceState(history.state, '', url);
    },
  });
  // Offline after the first visit, and updates that wait for the next reload (production builds:
  // `npm run dev` serves modules the service worker would pin).
  if (import.meta.env.PROD) {
    const worker = registerPageWorker({
      scriptUrl: new URL('./sw.js', location.href).href,
      onUpdateReady: () => store?.updateReady(() => worker?.applyUpdate()),
      isIdle: () => !store?.state.busy && store?.state.queued === undefined,
    });
  }
  return store;
}

/** Whether a key event comes from a place the user types in (a text field, a text area, an editable element). */
function isTyping(event: KeyboardEvent): boolean {
  const target = event.composedPath()[0] as HTMLElement | undefined;
  return Boolean(target && (target.isContentEditable || /^(INPUT|TEXTAREA|SELECT)$/.test(target.tagName)));
}

/** The connected MCP servers' prompts, for the composer. */
function promptStarters(s: AppState): PromptStarter[] {
  return s.mcp.flatMap((server) =>
    server.phase !== 'connected'
      ? []
      : (s.mcpExtras[server.url]?.prompts ?? []).map((p) => ({
          url: server.url,
          server: server.label,
          name: p.name,
          ...(p.title ? { title: p.title } : {}),
          ...(p.description ? { description: p.description } : {}),
        })),
  );
}

customElements.define('nexus-app', NexusApp);

declare global {
  interface HTMLElementTagNameMap {
    'nexus-app': NexusApp;
  }
}
