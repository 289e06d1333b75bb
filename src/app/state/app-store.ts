import { ModelSession } from './model-session.ts';
import { AnswerSession } from './answer-session.ts';
import type { ActionHandlers, AppAction, ResultOf } from './app-actions.ts';
import { AttachmentsSlice } from './attachments-slice.ts';
import { ConversationStore, newId, repairInterrupted } from '../conversation/conversation-store.ts';
import { DEFAULT_EMBEDDING_MODEL, ToolRegistry, loadTools, type ChatOptions, type NexusChat } from '../../internal.ts';
import { DEFAULT_SETTINGS, emptyConversation, type AppState, type Settings } from './app-state.ts';
import { McpSession } from '../mcp/mcp-session.ts';
import { modelFromAddress } from './model-param.ts';
import type { StoreDeps } from './store-deps.ts';
import type { TabMessage } from './tab-sync.ts';
import { formatBytes } from '../format.ts';

export type { StoreDeps } from './store-deps.ts';

/**
 * The page's one store: all state lives here, every change replaces {@link AppState} (so elements
 * re-render by identity). Every action the user can take is an {@link AppAction} through one
 * {@link AppStore.dispatch}, routed to the slice that owns it: model, answers, conversations, tools
 * (with MCP), settings. Only the app element holds the store; the elements inside it read the state
 * they are given and fire actions (`fire` in app-actions.ts), never touching the chat, storage or the network.
 */
export class AppStore {
  private current: AppState;
  private readonly listeners = new Set<(state: AppState) => void>();
  /** The conversations part: the open one, the saved list, their search. */
  private readonly conversations: ConversationStore;
  /** The answers part: sending, streaming, Stop, approvals. */
  private readonly answers: AnswerSession;
  /** The model part: loading, the self-check, the chat. */
  private readonly model: ModelSession;
  /** Where `tools.js` is previewed before a model is loaded. */
  private readonly previewRegistry = new ToolRegistry();
  /** The MCP part: the servers the page takes tools from (they outlive any one model), what they ask and offer. */
  private readonly mcp: McpSession;
  /** The next message's attachments. */
  private readonly attachments: AttachmentsSlice;
  /** Lets a waiting new version of the page take over. */
  private applyPageUpdate: (() => void) | undefined;
  /** Every action's handler, from the slice that owns it. */
  private readonly handlers: ActionHandlers<AppAction>;

  constructor(private readonly deps: StoreDeps) {
    this.current = {
      runtime: undefined,
      model: { phase: 'idle', files: {}, attempts: [] },
      conversation: emptyConversation(newId()),
      conversations: [],
      busy: false,
      settings: { ...DEFAULT_SETTINGS },
      web: { enabled: false },
      tools: { loading: true, url: deps.toolsUrl },
      mcp: [],
      mcpExtras: {},
      attachments: [],
    };
    const host = { state: () => this.current, set: (change: Partial<AppState>) => this.set(change), notify: (text: string) => this.notify(text) };
    this.mcp = new McpSession(
      {
        ...host,
        chat: () => this.model.chat,
        progress: (tool, text) => this.answers.progress(tool, text),
        log: (server, level, text) => this.answers.diagnose({ kind: 'log', server, level, text }),
        attach: (input) => this.attachments.add(input),
        compose: (text) => this.answers.compose(text),
        approve: ({ name, arguments: args, server }) => this.answers.requestApproval(name, args, { server }),
        listed: (servers) => {
          const registry = this.model.chat?.tools ?? this.previewRegistry;
          const listed = this.current.tools.list !== undefined || registry.size > 0;
          this.set({ mcp: servers, tools: { ...this.current.tools, ...(listed ? { list: this.mcp.describe(registry) } : {}) } });
        },
      },
      deps,
      this.previewRegistry,
    );
    this.attachments = new AttachmentsSlice(host);
    this.conversations = new ConversationStore(
      {
        state: () => this.current,
        set: (change) => this.set(change),
        notify: (text) => this.notify(text),
      },
      deps.persistence,
      deps.tabs,
    );
    deps.tabs?.subscribe((message) => void this.handleTabMessage(message));
    this.answers = new AnswerSession({
      state: () => this.current,
      set: (change) => this.set(change),
      notify: (text) => this.notify(text),
      conversations: this.conversations,
      takeAttachments: () => this.attachments.take(),
      attachmentsReading: () => (this.attachments.busy ? this.attachments.settled() : undefined),
      offered: (selection) => {
        const { lastOffered: _previous, lastGroup: _group, ...tools } = this.current.tools;
        this.set({
          tools: selection ? { ...tools, lastOffered: selection.reasons, ...(selection.group ? { lastGroup: selection.group.chosen } : {}) } : tools,
        });
      },
      chat: () => this.model.chat,
      research: () => this.model.research,
      skipCheck: () => this.model.skipCheck(),
      loading: () => this.model.loading,
      toolSelection: () => this.toolSelection(),
      serverOf: (name) => this.mcp.serverLabel(name),
      ...(deps.tabs ? { tabs: deps.tabs } : {}),
    });
    this.model = new ModelSession(
      {
        state: () => this.current,
        set: (change) => this.set(change),
        notify: (text) => this.notify(text),
        stopAnswer: () => this.answers.stop(),
        attached: async (chat) => {
          chat.on('toolSearch', (search) => this.set({ tools: { ...this.current.tools, search } }));
          chat.useMcpServers(this.mcp.servers);
          await this.loadToolsInto(chat);
        },
      },
      deps,
    );
    this.handlers = {
      ...this.model.actions,
      ...this.answers.actions,
      ...this.conversations.actions,
      newConversation: () => this.newConversation(),
      ...this.mcp.actions,
      ...this.attachments.actions,
      // The tools slice: tools.js.
      reloadTools: () => this.reloadTools(),
      // The settings slice.
      updateSettings: ({ change }) => this.updateSettings(change),
      resetSettings: () => this.resetSettings(),
      undoResetSettings: () => this.undoResetSettings(),
      setWeb: ({ enabled }) => this.setWeb(enabled),
      applyUpdate: () => this.applyUpdate(),
      listDeviceModels: () => this.listDeviceModels(),
      deleteDeviceModel: ({ address }) => this.deleteDeviceModel(address),
    };
  }

  /** The current state. Treat it as read-only: it is replaced, never changed in place. */
  get state(): AppState {
    return this.current;
  }

  /** Calls `listener` after every change; returns the unsubscribe function. */
  subscribe(listener: (state: AppState) => void): () => void {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }

  /**
   * Restores what was saved, asks what the browser and the proxy offer, previews `tools.js`, and
   * loads the model named in the address, else the last model that loaded (from the browser's
   * cache); on a first visit nothing is downloaded: the user picks.
   */
  async start(address: { search: string; href: string }): Promise<void> {
    const { persistence } = this.deps;
    const [settings, webEnabled, conversations, savedServers] = await Promise.all([
      persistence.loadSettings().catch(() => ({ ...DEFAULT_SETTINGS })),
      persistence.loadWebEnabled().catch(() => false),
      persistence.listConversations().catch(() => []),
      persistence.loadMcpServers().catch(() => []),
    ]);
    // MCP servers connect on load, each on its own: one that hangs holds up nothing.
    this.mcp.restore(savedServers);
    const latest = conversations[0] ? await persistence.loadConversation(conversations[0].id).catch(() => undefined) : undefined;
    // An answer another tab is writing now is not an interrupted one.
    const repaired = latest && ((await this.deps.tabs?.isAnswering(latest.id)) ? latest : repairInterrupted(latest));
    this.set({ settings, web: { ...this.current.web, enabled: webEnabled }, conversations, ...(repaired ? { conversation: repaired } : {}) });
    // After the settings: whether a software WebGPU adapter may be used is one of them.
    this.refreshRuntime();
    if (repaired !== latest) void this.saveNow();
    void this.previewTools();
    void this.refreshWebStatus();
    const named = modelFromAddress(address.search, address.href);
    const last = await persistence.loadLastModel().catch(() => undefined);
    const source = named ?? (last ? modelFromAddress(`?model=${encodeURIComponent(last)}`, address.href) : undefined);
    if (!source) return;
    await this.model.open(source, { named, last });
  }

  /**
   * Does what an element asked (it fired the action; the app element dispatches it here): the one way in,
   * routed to the slice that owns the action. Resolves with the action's result.
   */
  dispatch<A extends AppAction>(action: A): Promise<ResultOf<A>> {
    const handle = this.handlers[action.type] as (action: A) => ResultOf<A> | Promise<ResultOf<A>>;
    try {
      return Promise.resolve(handle(action));
    } catch (error) {
      return Promise.reject(error);
    }
  }

  /** Starts an empty conversation (saved once it has a message), with web research off. */
  private async newConversation(): Promise<void> {
    const before = this.current.conversation.id;
    await this.conversations.newConversation();
    // Web research is chosen per conversation: a question leaves the browser only where the user turned it on.
    if (this.current.conversation.id !== before && this.current.web.enabled) this.setWeb(false);
  }

  /** Saves the open conversation now (empty ones are not kept). */
  saveNow(): Promise<void> {
    return this.conversations.saveNow();
  }

  // ---------------------------------------------------------------------------------------------
  // Settings, the Web switch, tools
  // ---------------------------------------------------------------------------------------------

  /**
   * A new version of the page waits (its service worker installed it): the page says so, and
   * `apply` lets it take over now, reloading the page.
   */
  updateReady(apply: () => void): void {
    this.applyPageUpdate = apply;
    this.set({ updateReady: true });
  }

  /** Reloads into the waiting version; not while an answer runs or a message waits. */
  private applyUpdate(): void {
    if (this.current.busy || this.current.queued) return;
    this.applyPageUpdate?.();
  }

  /** Reads the models this browser keeps, with what the page noted of each and the storage the browser grants. */
  private async listDeviceModels(): Promise<void> {
    const { listDeviceModels, storageState } = await import('./device-models.ts');
    const uses = await this.deps.persistence.loadModelUses().catch(() => ({}));
    const [models, storage] = await Promise.all([listDeviceModels(uses).catch(() => []), storageState()]);
    const { freed } = this.current.deviceModels ?? {};
    this.set({ deviceModels: { models, ...storage, ...(freed ? { freed } : {}) } });
  }

  /** Deletes a model's files from this browser (a model in use keeps working; it downloads again next time it loads). */
  private async deleteDeviceModel(address: string): Promise<void> {
    const { deleteDeviceModel } = await import('./device-models.ts');
    const model = this.current.deviceModels?.models.find((m) => m.address === address);
    const freed = await deleteDeviceModel(address).catch(() => 0);
    await this.deps.persistence.saveModelUse(address, undefined).catch(() => undefined);
    // The model in use is in memory: it goes on answering in this tab, and downloads again when next loaded.
    const inUse = this.current.model.phase === 'ready' && this.current.model.address === address ? ' It stays loaded in this tab until you close it.' : '';
    const said = `Deleted ${model?.label ?? address}: ${formatBytes(freed)} freed.${inUse}`;
    this.set({ deviceModels: { ...(this.current.deviceModels ?? { models: [], persisted: false }), freed: said } });
    this.notify(said);
    await this.listDeviceModels();
  }

  /** Changes settings for the next answers, and remembers them. */
  private updateSettings(change: Partial<Settings>): void {
    const before = this.current.settings;
    const settings = { ...before, ...change };
    this.set({ settings });
    // Only what changed is written: another tab's other settings stay as it set them.
    void this.deps.persistence
      .updateSettings(change)
      .then(() => this.deps.tabs?.post({ kind: 'settings' }))
      .catch(() => undefined);
    if (settings.softwareWebgpu !== before.softwareWebgpu) this.refreshRuntime();
  }

  /** Another tab saved something: read it again. */
  private async handleTabMessage(message: TabMessage): Promise<void> {
    const { persistence } = this.deps;
    switch (message.kind) {
      case 'settings': {
        const before = this.current.settings;
        const settings = await persistence.loadSettings().catch(() => undefined);
        if (!settings) return;
        this.set({ settings });
        if (settings.softwareWebgpu !== before.softwareWebgpu) this.refreshRuntime();
        return;
      }
      case 'web': {
        const enabled = await persistence.loadWebEnabled().catch(() => this.current.web.enabled);
        this.set({ web: { ...this.current.web, enabled } });
        return;
      }
      case 'mcp':
        return this.mcp.reloadSaved();
      case 'conversations':
        return this.conversations.changedElsewhere(undefined);
      case 'conversation':
        return this.conversations.changedElsewhere(message.id);
    }
  }

  /** Asks again which device a load would use (the answer depends on the software-WebGPU setting). */
  private refreshRuntime(): void {
    void this.deps.opener
      .runtime()
      .then(({ webgpu, shaderF16, fallbackAdapter }) => this.set({ runtime: { webgpu, shaderF16, ...(fallbackAdapter ? { fallbackAdapter } : {}) } }));
  }

  /** Puts every setting back to the library's defaults; {@link undoResetSettings} brings them back. */
  private resetSettings(): void {
    const before = this.current.settings;
    const changed = changedSettings(before);
    this.updateSettings({ ...DEFAULT_SETTINGS });
    this.set({ settingsUndo: changed.length ? { before, changed } : undefined });
    this.notify(changed.length ? `Settings reset to defaults (${changed.join(', ')}). Undo brings them back.` : 'The settings were already the defaults.');
  }

  /** Brings back the settings a reset replaced. */
  private undoResetSettings(): void {
    const undo = this.current.settingsUndo;
    if (!undo) return;
    this.updateSettings({ ...undo.before });
    this.set({ settingsUndo: undefined });
    this.notify('Settings restored.');
  }

  /** Turns research mode on or off for the next messages, and remembers it. */
  private setWeb(enabled: boolean): void {
    this.set({ web: { ...this.current.web, enabled } });
    void this.deps.persistence
      .saveWebEnabled(enabled)
      .then(() => this.deps.tabs?.post({ kind: 'web' }))
      .catch(() => undefined);
    if (enabled) void this.refreshWebStatus();
  }

  /** Asks the proxy whether search works, for the Web switch. */
  async refreshWebStatus(): Promise<void> {
    const research = this.model.research ?? this.deps.research(undefined);
    const status = await research.status();
    this.set({ web: { ...this.current.web, status } });
  }

  /** Reads `tools.js` again (after the user edited it). A broken file keeps the previous tools. */
  private async reloadTools(): Promise<void> {
    if (this.model.chat) await this.loadToolsInto(this.model.chat);
    else await this.previewTools();
  }

  private async loadToolsInto(chat: NexusChat): Promise<void> {
    this.set({ tools: { ...this.current.tools, loading: true } });
    try {
      await chat.loadTools(this.deps.toolsUrl, this.toolsOptions());
      this.set({ tools: { ...this.keptToolState(), url: this.deps.toolsUrl, loading: false, list: this.mcp.describe(chat.tools) } });
    } catch (error) {
      this.set({
        tools: { ...this.keptToolState(), url: this.deps.toolsUrl, loading: false, list: this.mcp.describe(chat.tools), error: (error as Error).message },
      });
    }
    // Many tools: the tool-search model loads and the tools are embedded now, not at the first answer.
    void chat.prepareTools(this.toolSelection());
  }

  /** The page's tool-selection settings, as every answer gives them. The same model spec keeps the same index: toggling re-embeds nothing. */
  private toolSelection(): NonNullable<ChatOptions['toolSelection']> {
    const { semanticToolSearch, toolSelectionThreshold } = this.current.settings;
    return { semantic: semanticToolSearch ? { ...DEFAULT_EMBEDDING_MODEL } : false, threshold: toolSelectionThreshold };
  }

  private toolsOptions(): { evaluate?: 'function' | 'module' } {
    return this.deps.toolsEvaluate ? { evaluate: this.deps.toolsEvaluate } : {};
  }

  /** What the tools state keeps across a reload of `tools.js`: where tool search stands. */
  private keptToolState(): { search?: AppState['tools']['search'] } {
    const search = this.current.tools.search;
    return search ? { search } : {};
  }

  /** Shows what `tools.js` registers before any model is loaded. */
  private async previewTools(): Promise<void> {
    const registry = this.previewRegistry;
    try {
      await loadTools(registry, this.deps.toolsUrl, this.toolsOptions());
      if (this.model.chat) return;
      this.mcp.servers.declare('tools.js', registry.mcpServers);
      this.mcp.servers.attach(registry);
      this.set({ tools: { url: this.deps.toolsUrl, loading: false, list: this.mcp.describe(registry) } });
    } catch (error) {
      if (!this.model.chat) this.set({ tools: { ...this.current.tools, loading: false, error: (error as Error).message } });
    }
  }

  // ---------------------------------------------------------------------------------------------
  // Plumbing
  // ---------------------------------------------------------------------------------------------

  /** A short message for the status line (also read out by screen readers). */
  notify(text: string): void {
    this.set({ notice: text });
  }

  private set(change: Partial<AppState>): void {
    this.current = { ...this.current, ...change };
    for (const listener of this.listeners) listener(this.current);
  }
}

/** Which settings differ from the defaults, in words (what a reset would change). */
function changedSettings(settings: Settings): string[] {
  const words: Partial<Record<keyof Settings, string>> = {
    systemPrompt: 'your system prompt',
    answerPrompt: 'your answer prompt',
    strategy: 'strategy',
    toolChoice: 'tool choice',
    maxRounds: 'tool rounds',
    repetitionPenalty: 'repetition penalty',
    temperature: 'temperature',
    topP: 'top-p',
    enableThinking: 'thinking',
    maxNewTokens: 'answer length',
    softwareWebgpu: 'software WebGPU',
    hubUrl: 'model hub',
    theme: 'theme',
    semanticToolSearch: 'tool search by meaning',
    toolSelectionThreshold: 'tool threshold',
    mcpLogLevel: 'MCP server logs',
    verdictCard: 'the verdict card',
  };
  return (Object.keys(DEFAULT_SETTINGS) as (keyof Settings)[])
    .filter((key) => JSON.stringify(settings[key]) !== JSON.stringify(DEFAULT_SETTINGS[key]))
    .map((key) => words[key] ?? key);
}
