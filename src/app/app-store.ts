import {
  DEFAULT_EMBEDDING_MODEL,
  InvalidHistoryError,
  ToolRegistry,
  isAbortError,
  loadTools,
  type ApprovalHandler,
  type ChatAnswer,
  type ChatMessage,
  type ChatOptions,
  type LoadProgress,
  type ModelSource,
  type NexusChat,
  type Strategy,
  type ToolCallRecord,
} from '../index.ts';
import {
  DEFAULT_SETTINGS,
  emptyConversation,
  type Activity,
  type AppState,
  type Conversation,
  type ConversationSummary,
  type DiagnosticEntry,
  type ModelState,
  type Settings,
  type ToolInfo,
  type Turn,
} from './app-state.ts';
import { conversationToJson, conversationToMarkdown, importConversationFile, type ConversationFile } from './conversation-files.ts';
import { deviceLabel, threadWords, titleFrom } from './format.ts';
import { explainLoadError, type ModelOpener } from './model-loader.ts';
import { modelFromAddress } from './model-param.ts';
import { linkedModelOrigin, modelAddress, modelLabel } from './model-sources.ts';
import type { Persistence } from './persistence.ts';
import { READ_PAGE, WEB_TOOL_NAMES, type Research, type ResearchFactory, type Source, type WebActivity } from './web-research.ts';

/** What the store is built from; the page passes the real ones, tests pass scripted ones. */
export interface StoreDeps {
  persistence: Persistence;
  opener: ModelOpener;
  research: ResearchFactory;
  /** Where `tools.js` is fetched from. */
  toolsUrl: string;
  /**
   * How `tools.js` runs (see `LoadToolsOptions.evaluate`): the page imports it as a module, which its
   * Content-Security-Policy (no `eval`) allows; default `'function'`, for Node.
   */
  toolsEvaluate?: 'function' | 'module';
  /** Mirrors the model in use into the page address (`?model=`); no-op where there is no address bar. */
  setAddress?: (model: string | undefined) => void;
  /** The page's origin, so a folder it serves is named by its path (`/models/x`); default `location.origin`. */
  origin?: string;
}

/** Streamed text is saved at most this often, so an answer cut off by a closed tab is still there. */
const SAVE_EVERY_MS = 400;
/** Diagnostics are for reading, not archiving: one entry's text and the entries per answer are capped. */
const MAX_DIAGNOSTIC_CHARS = 6000;
const MAX_DIAGNOSTICS = 200;

/**
 * The page's one store: all state lives here, every change replaces {@link AppState} (so elements
 * re-render by identity), and every action the user can take is a method. Elements only read
 * `state` and call methods; they never touch the chat, storage or the network.
 */
export class AppStore {
  private current: AppState;
  private readonly listeners = new Set<(state: AppState) => void>();
  private chat: NexusChat | undefined;
  private source: ModelSource | undefined;
  private research: Research | undefined;
  private stopController: AbortController | undefined;
  /** The conversation deleted last, for Undo. */
  private deleted: Conversation | undefined;
  /** The search being run, so a slower earlier one does not overwrite it. */
  private pendingQuery = '';
  /** The turn the running answer writes into. */
  private answeringId: string | undefined;
  /** Cancels the load that is running, if one is. */
  private loadController: AbortController | undefined;
  /** Cancels the self-check that is running, if one is. */
  private checkController: AbortController | undefined;
  /** The load (or re-check) in progress, so a message sent during the check can wait for it. */
  private loading: Promise<void> | undefined;
  private pendingApproval: ((approved: boolean) => void) | undefined;
  /** Bumped by every load, so a load that was overtaken by a newer one drops its result. */
  private loadGeneration = 0;
  private saveTimer: ReturnType<typeof setTimeout> | undefined;

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
    const [settings, webEnabled, conversations] = await Promise.all([
      persistence.loadSettings().catch(() => ({ ...DEFAULT_SETTINGS })),
      persistence.loadWebEnabled().catch(() => false),
      persistence.listConversations().catch(() => []),
    ]);
    const latest = conversations[0] ? await persistence.loadConversation(conversations[0].id).catch(() => undefined) : undefined;
    const repaired = latest && repairInterrupted(latest);
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
    const origin = this.deps.origin ?? globalThis.location?.origin ?? 'http://localhost';
    // A link may name any model anywhere: one from elsewhere that is not the model this browser last
    // used is shown with where it comes from, and waits for a click before anything is downloaded.
    const linked = named ? linkedModelOrigin(named, { origin, hubUrl: this.current.settings.hubUrl }) : undefined;
    if (named && linked && modelAddress(named, origin) !== last) {
      this.source = named;
      this.set({ model: { phase: 'confirm', label: modelLabel(named), address: modelAddress(named, origin), files: {}, attempts: [], linked } });
      return;
    }
    // A model that failed last time is not fetched again on every reload: the failure is shown, with Try again.
    const failed = await persistence.loadFailedModel().catch(() => undefined);
    const where = modelAddress(source, origin);
    if (failed && where && failed.address === where) {
      this.source = source;
      this.set({
        model: {
          phase: 'error',
          label: modelLabel(source),
          address: where,
          files: {},
          attempts: [],
          error: `${failed.error}\nNot tried again by itself: it failed on your last visit. Use Try again when it should work.`,
        },
      });
      return;
    }
    await this.loadModel(source);
  }

  // ---------------------------------------------------------------------------------------------
  // The model
  // ---------------------------------------------------------------------------------------------

  /** Loads a model (replacing the one in use), checks it calls tools, and makes it the chat's. */
  async loadModel(source: ModelSource): Promise<void> {
    await this.track(this.runLoad(source, 'open'));
  }

  /** Loads the model a link named, after the user saw where it comes from. */
  async confirmLinkedModel(): Promise<void> {
    if (this.current.model.phase === 'confirm' && this.source) await this.loadModel(this.source);
  }

  /** Declines the model a link named: nothing is downloaded, the picker is shown, the address forgets it. */
  declineLinkedModel(): void {
    if (this.current.model.phase !== 'confirm') return;
    this.source = undefined;
    this.set({ model: { phase: 'idle', files: {}, attempts: [] } });
    this.deps.setAddress?.(undefined);
  }

  /** Tries the last model again (after a failed load). */
  async retryModel(): Promise<void> {
    if (this.source) await this.track(this.runLoad(this.source, 'open'));
  }

  /** Walks every quantization for one that calls tools; offered when the loaded one does not. */
  async searchQuantizations(): Promise<void> {
    if (this.source) await this.track(this.runLoad(this.source, 'search'));
  }

  /** Runs the self-check again on the model in use (a remembered verdict may be old). */
  async recheckModel(): Promise<void> {
    const { chat, source } = this;
    if (!chat || !source || this.current.busy || this.current.model.phase !== 'ready') return;
    await this.track(this.runRecheck(chat, source));
  }

  /**
   * Cancels the model load in progress (download or warm-up): its worker is ended, the picker is
   * shown again, and the files that finished stay in the browser's cache for a later load.
   */
  cancelLoad(): void {
    const phase = this.current.model.phase;
    if (phase === 'loading' || phase === 'warming') this.loadController?.abort(new DOMException('Loading was cancelled.', 'AbortError'));
  }

  /**
   * Skips the self-check that is running: the model is kept and ready, unjudged (tools are still
   * offered), and the page says so. A check can take minutes on a slow device; the user decides.
   */
  skipCheck(): void {
    if (this.current.model.phase === 'checking') this.checkController?.abort();
  }

  private async track(work: Promise<void>): Promise<void> {
    this.loading = work;
    try {
      await work;
    } finally {
      if (this.loading === work) this.loading = undefined;
    }
  }

  private newLoadSignal(): AbortSignal {
    this.loadController?.abort(new DOMException('Another model is loading.', 'AbortError'));
    this.loadController = new AbortController();
    return this.loadController.signal;
  }

  private newCheckSignal(): AbortSignal {
    this.checkController?.abort();
    this.checkController = new AbortController();
    return this.checkController.signal;
  }

  private async runRecheck(chat: NexusChat, source: ModelSource): Promise<void> {
    const signal = this.newCheckSignal();
    this.patchModel({ phase: 'checking', checkStartedAt: Date.now() });
    try {
      const verdict = await this.deps.opener.recheck(source, chat, signal);
      if (verdict) this.patchModel({ phase: 'ready', verdict, checkSkipped: false });
      else this.patchModel({ phase: 'ready' });
      if (!verdict) this.notify('Self-check cancelled; the earlier verdict stands.');
    } catch (error) {
      this.patchModel({ phase: 'ready' });
      this.notify(`The self-check could not run: ${(error as Error).message}`);
    }
  }

  private async runLoad(source: ModelSource, how: 'open' | 'search'): Promise<void> {
    if (this.current.busy) this.stop();
    const generation = ++this.loadGeneration;
    const previous = this.chat;
    this.chat = undefined;
    this.research = undefined;
    this.source = source;
    const address = modelAddress(source, this.deps.origin ?? globalThis.location?.origin ?? 'http://localhost');
    this.set({
      model: {
        phase: 'loading',
        label: modelLabel(source),
        ...(address ? { address } : {}),
        files: {},
        attempts: [],
        ...(how === 'search' ? { searching: true } : {}),
      },
    });
    this.deps.setAddress?.(address);
    // One model at a time: a second one would double the memory a small GPU has.
    await previous?.dispose().catch(() => undefined);
    const stale = () => generation !== this.loadGeneration;
    const hooks = {
      onProgress: (event: LoadProgress) => !stale() && this.handleProgress(event),
      onChecking: () => !stale() && this.patchModel({ phase: 'checking', checkStartedAt: Date.now() }),
      onNote: (text: string) => !stale() && this.patchModel({ attempts: [...this.current.model.attempts, text] }),
      checkSignal: this.newCheckSignal(),
      loadSignal: this.newLoadSignal(),
    };
    try {
      const { chat, verdict } = how === 'open' ? await this.deps.opener.open(source, hooks) : await this.deps.opener.search(source, hooks);
      if (stale()) {
        await chat.dispose();
        return;
      }
      await this.attachChat(chat);
      const { searching: _searching, error: _error, verdict: _verdict, checkSkipped: _skipped, threads: _threads, ...model } = this.current.model;
      this.set({
        model: {
          ...model,
          phase: 'ready',
          device: chat.info.device,
          dtype: chat.info.dtype,
          ...(chat.info.family ? { family: chat.info.family } : {}),
          ...(chat.info.threads ? { threads: chat.info.threads } : {}),
          ...(verdict ? { verdict } : { checkSkipped: true }),
        },
      });
      // Remembered only once it loaded, so a model that fails is not retried on every visit.
      if (address) void this.deps.persistence.saveLastModel(address).catch(() => undefined);
      if (address) void this.forgetFailure(address);
      this.notify(verdict ? `Model ready: ${model.label}.` : `Model ready: ${model.label}. The self-check was skipped.`);
    } catch (error) {
      if (stale()) return;
      if (isAbortError(error)) {
        this.set({ model: { phase: 'idle', files: {}, attempts: [] } });
        this.deps.setAddress?.(undefined);
        this.notify('Loading cancelled. Files that finished downloading are kept for next time.');
        return;
      }
      const explained = explainLoadError(error);
      this.patchModel({ phase: 'error', error: explained });
      if (address) void this.deps.persistence.saveFailedModel({ address, error: explained }).catch(() => undefined);
    }
  }

  /** A model that loads is no longer the one that failed. */
  private async forgetFailure(address: string): Promise<void> {
    const { persistence } = this.deps;
    const failed = await persistence.loadFailedModel().catch(() => undefined);
    if (failed?.address === address) await persistence.saveFailedModel(undefined).catch(() => undefined);
  }

  private async attachChat(chat: NexusChat): Promise<void> {
    const approve: ApprovalHandler = (request) => this.requestApproval(request.name, request.arguments);
    chat.approve = approve;
    this.chat = chat;
    chat.on('toolSearch', (search) => this.set({ tools: { ...this.current.tools, search } }));
    this.research = this.deps.research(chat);
    await this.loadToolsInto(chat);
    this.restoreHistory(this.current.conversation);
  }

  private handleProgress(event: LoadProgress): void {
    const { model } = this.current;
    if (event.status === 'warmup') {
      this.patchModel({ phase: 'warming' });
      return;
    }
    if (event.status === 'plan' && event.files) {
      const files = { ...model.files };
      for (const planned of event.files) {
        const before = files[planned.file] ?? { loaded: 0, total: 0, done: false };
        files[planned.file] = { ...before, total: Math.max(before.total, planned.total) };
      }
      this.patchModel({ files });
      return;
    }
    const file = event.file;
    if (!file) return;
    if (event.status === 'progress' && (event.loaded ?? 0) > 0 && model.downloadStartedAt === undefined) this.patchModel({ downloadStartedAt: Date.now() });
    const before = model.files[file] ?? { loaded: 0, total: 0, done: false };
    let next = before;
    if (event.status === 'initiate' || event.status === 'download') next = before;
    else if (event.status === 'progress') next = { loaded: event.loaded ?? before.loaded, total: event.total || before.total, done: false };
    else if (event.status === 'done') next = { loaded: before.total || before.loaded, total: before.total || before.loaded, done: true };
    else return;
    this.patchModel({ files: { ...model.files, [file]: next } });
  }

  // ---------------------------------------------------------------------------------------------
  // Answers
  // ---------------------------------------------------------------------------------------------

  /** Sends a message and streams the answer. Ignored while an answer runs or with no model. */
  async send(text: string): Promise<void> {
    const prompt = text.trim();
    if (!prompt || this.current.busy) return;
    if (this.current.model.phase === 'checking') {
      // The user would rather chat than wait: the check is skipped, and the message goes once the model is free.
      this.skipCheck();
      await this.loading;
    }
    const chat = this.chat;
    if (!chat || this.current.busy || this.current.model.phase !== 'ready') return;
    const user: Turn = { id: newId(), role: 'user', text: prompt, state: 'done', historyIndex: chat.history.length };
    const { label, device, dtype, threads } = this.current.model;
    const answer: Turn = {
      id: newId(),
      role: 'assistant',
      text: '',
      state: 'streaming',
      activity: [],
      sources: [],
      diagnostics: [],
      web: this.current.web.enabled,
      ...(label ? { model: [label, deviceLabel(device, dtype), ...(threads ? [threadWords(threads)] : [])].join(' · ') } : {}),
    };
    const conversation = this.current.conversation;
    this.setConversation({
      ...conversation,
      title: conversation.turns.length ? conversation.title : titleFrom(prompt),
      turns: [...conversation.turns, user, answer],
    });
    await this.runAnswer(chat, prompt, answer.id);
  }

  /**
   * Stops the answer being generated (and refuses a pending approval). The page stops showing
   * text at once — the answer is `stopping` until the worker has ended its step — so nothing
   * appears after Stop, however long the step takes.
   */
  stop(): void {
    this.resolveApproval(false);
    this.skipCheck();
    const controller = this.stopController;
    if (!controller || controller.signal.aborted) return;
    controller.abort();
    const answering = this.answeringId;
    if (answering) this.updateTurn(answering, (turn) => (turn.state === 'streaming' ? { state: 'stopping', note: 'Stopping…' } : {}));
    this.set({ stopping: true });
  }

  /** Answers the last message again: the last exchange is cut from the history first. */
  async regenerate(): Promise<void> {
    const last = this.lastExchange();
    if (last) await this.resend(last.user, last.user.text);
  }

  /** Replaces the last message with `text` and answers it. */
  async editLast(text: string): Promise<void> {
    const last = this.lastExchange();
    if (last && text.trim()) await this.resend(last.user, text);
  }

  private lastExchange(): { user: Turn } | undefined {
    if (this.current.busy || !this.chat) return undefined;
    const turns = this.current.conversation.turns;
    const user = turns.findLast((t) => t.role === 'user');
    return user ? { user } : undefined;
  }

  private async resend(user: Turn, text: string): Promise<void> {
    const chat = this.chat;
    if (!chat) return;
    const conversation = this.current.conversation;
    const keep = conversation.turns.slice(0, conversation.turns.indexOf(user));
    const history = conversation.history.slice(0, user.historyIndex ?? conversation.history.length);
    try {
      chat.setHistory(withoutSystemTurns(history));
    } catch (error) {
      this.notify(`Could not cut the conversation back: ${(error as Error).message}`);
      return;
    }
    this.setConversation({ ...conversation, turns: keep, history, title: keep.length ? conversation.title : titleFrom(text) });
    await this.send(text);
  }

  private async runAnswer(chat: NexusChat, prompt: string, answerId: string): Promise<void> {
    const { settings, web } = this.current;
    chat.systemPrompt = settings.systemPrompt;
    chat.answerPrompt = settings.answerPrompt;
    chat.maxRounds = settings.maxRounds;
    this.applyToolSettings(chat);
    const controller = new AbortController();
    this.stopController = controller;
    this.answeringId = answerId;
    this.set({ busy: true });
    // Once Stop is pressed, what the worker still sends is not shown: the user asked for silence.
    const update = (change: (turn: Turn) => Partial<Turn>) => this.updateTurn(answerId, (turn) => (controller.signal.aborted ? {} : change(turn)));
    const settle = (change: (turn: Turn) => Partial<Turn>) => this.updateTurn(answerId, change);
    const stopListening = this.listen(chat, update, web.enabled);
    const options: ChatOptions = {
      signal: controller.signal,
      strategy: toolPolicy(this.current.model.verdict, settings.strategy),
      repetitionPenalty: settings.repetitionPenalty,
      enableThinking: settings.enableThinking,
      maxNewTokens: settings.maxNewTokens,
      ...(settings.temperature > 0 ? { sampling: { temperature: settings.temperature, topP: settings.topP } } : {}),
      ...(this.current.conversation.instructions?.trim() ? { instructions: this.current.conversation.instructions.trim() } : {}),
    };
    try {
      let result: ChatAnswer & { sources?: Source[] };
      if (web.enabled && this.research) {
        // Research mode sets its own tool choice and round limit (a hunt needs more than four).
        result = await this.research.ask(prompt, {
          ...options,
          onActivity: (activity) => update((turn) => ({ activity: [...(turn.activity ?? []), activity] })),
        });
      } else {
        result = await chat.chat(prompt, { ...options, toolChoice: settings.toolChoice, maxRounds: settings.maxRounds });
      }
      // An answer that finished while Stop was on its way still stops where the user saw it stop.
      if (controller.signal.aborted) settle(() => ({ state: 'stopped', note: 'Stopped.', checking: false }));
      else
        settle((turn) => ({
          text: result.text,
          state: 'done',
          metrics: result.metrics,
          sources: result.sources ?? [],
          checking: false,
          drafts: draftsBesides(turn.drafts, result.text),
        }));
    } catch (error) {
      if (isAbortError(error) || controller.signal.aborted) settle(() => ({ state: 'stopped', note: 'Stopped.', checking: false }));
      else settle(() => ({ state: 'failed', checking: false, note: `The answer failed: ${error instanceof Error ? error.message : String(error)}` }));
    } finally {
      stopListening();
      this.stopController = undefined;
      this.answeringId = undefined;
      this.resolveApproval(false);
      const history = controller.signal.aborted ? this.historyAsShown(chat, answerId) : [...chat.history];
      this.setConversation({ ...this.current.conversation, history });
      const selection = chat.lastToolSelection;
      const { lastOffered: _previous, lastGroup: _group, ...tools } = this.current.tools;
      this.set({ tools: selection ? { ...tools, lastOffered: selection.reasons, ...(selection.group ? { lastGroup: selection.group.chosen } : {}) } : tools });
      this.set({ busy: false, stopping: false });
      await this.saveNow();
    }
  }

  /**
   * After a stop, the chat's history ends with what the worker had generated, which may be a token
   * or two past what the page showed: the saved history and the model's memory keep what the user saw.
   */
  private historyAsShown(chat: NexusChat, answerId: string): ChatMessage[] {
    const history = [...chat.history];
    const shown = this.current.conversation.turns.find((t) => t.id === answerId)?.text.trim() ?? '';
    const last = history.at(-1);
    if (last?.role !== 'assistant' || last.tool_calls?.length || last.content === shown) return history;
    const adjusted = shown ? [...history.slice(0, -1), { ...last, content: shown }] : history.slice(0, -1);
    try {
      chat.setHistory(withoutSystemTurns(adjusted));
      return adjusted;
    } catch {
      return history;
    }
  }

  /** Subscribes the answer's turn to the chat's events; returns the unsubscribe function. */
  private listen(chat: NexusChat, update: (change: (turn: Turn) => Partial<Turn>) => void, web: boolean): () => void {
    const diagnose = (entry: DiagnosticEntry) => update((turn) => ({ diagnostics: [...(turn.diagnostics ?? []), entry].slice(-MAX_DIAGNOSTICS) }));
    const offs = [
      chat.on('token', (text) => update((turn) => ({ text: turn.text + text, checking: false }))),
      chat.on('round', (info) => {
        diagnose({ kind: 'round', round: info.round, roundKind: info.kind });
        // Text streamed in a round that ended in calls was a draft or a preamble; the answer comes
        // after. It stays on the page, folded, so nothing the user read disappears.
        update((turn) => ({ checking: false, ...(turn.text.trim() ? { text: '', drafts: [...(turn.drafts ?? []), turn.text.trim()] } : {}) }));
      }),
      chat.on('escalate', () => update(() => ({ checking: true }))),
      chat.on('toolCall', (call) => update((turn) => ({ activity: addCall(turn.activity ?? [], call, web) }))),
      chat.on('raw', (raw, info) => diagnose({ kind: 'raw', round: info.round, strategy: info.strategy, text: raw.slice(0, MAX_DIAGNOSTIC_CHARS) })),
      chat.on('step', (which, raw, resolved) => diagnose({ kind: 'step', which, raw: raw.slice(0, MAX_DIAGNOSTIC_CHARS), resolved })),
      chat.on('forced', (event) => diagnose({ kind: 'forced', event: { ...event, raw: event.raw.slice(0, MAX_DIAGNOSTIC_CHARS) } })),
    ];
    return () => {
      for (const off of offs) off();
    };
  }

  // ---------------------------------------------------------------------------------------------
  // Approval of `confirm` tools
  // ---------------------------------------------------------------------------------------------

  private requestApproval(name: string, args: Readonly<Record<string, unknown>>): Promise<boolean> {
    this.resolveApproval(false);
    const description = this.chat?.toolSchemas.find((s) => s.function.name === name)?.function.description ?? '';
    this.set({ approval: { name, description, arguments: args } });
    return new Promise<boolean>((resolve) => {
      this.pendingApproval = resolve;
    });
  }

  /** The user's decision on the pending approval (the model has no say). */
  resolveApproval(approved: boolean): void {
    const resolve = this.pendingApproval;
    this.pendingApproval = undefined;
    if (this.current.approval) this.set({ approval: undefined });
    resolve?.(approved);
  }

  // ---------------------------------------------------------------------------------------------
  // Conversations
  // ---------------------------------------------------------------------------------------------

  /** Starts an empty conversation (saved once it has a message). */
  newConversation(): void {
    if (this.current.busy) return;
    this.chat?.reset();
    this.set({ conversation: emptyConversation(newId()) });
  }

  /** Opens a saved conversation; the model continues it with its full history. */
  async selectConversation(id: string): Promise<void> {
    if (this.current.busy || id === this.current.conversation.id) return;
    const saved = await this.deps.persistence.loadConversation(id).catch(() => undefined);
    if (!saved) {
      this.notify('That conversation could not be read.');
      return;
    }
    const conversation = repairInterrupted(saved);
    this.set({ conversation });
    this.restoreHistory(conversation);
    if (conversation !== saved) await this.saveNow();
  }

  /** Deletes a saved conversation (Undo brings it back); deleting the open one starts a new one. */
  async deleteConversation(id: string): Promise<void> {
    if (this.current.busy && id === this.current.conversation.id) return;
    const { persistence } = this.deps;
    const doomed = id === this.current.conversation.id ? this.current.conversation : await persistence.loadConversation(id).catch(() => undefined);
    const conversations = await persistence.deleteConversation(id).catch(() => this.current.conversations.filter((c) => c.id !== id));
    this.deleted = doomed;
    this.set({ conversations, ...(doomed ? { undoDelete: { title: doomed.title } } : {}) });
    if (doomed) this.notify(`Deleted “${doomed.title}”.`);
    if (id === this.current.conversation.id) this.newConversation();
  }

  /** Sets the open conversation's own instructions (empty removes them). Saved with the conversation. */
  setConversationInstructions(text: string): void {
    const { instructions: _old, ...conversation } = this.current.conversation;
    const trimmed = text.trim();
    this.setConversation(trimmed ? { ...conversation, instructions: trimmed } : conversation);
  }

  /** Brings back the conversation deleted last. */
  async undoDelete(): Promise<void> {
    const conversation = this.deleted;
    this.deleted = undefined;
    this.set({ undoDelete: undefined });
    if (!conversation) return;
    const conversations = await this.deps.persistence.saveConversation(conversation).catch(() => this.current.conversations);
    this.set({ conversations });
    this.notify(`Restored “${conversation.title}”.`);
  }

  /** Renames a conversation (an empty name keeps the old one). */
  async renameConversation(id: string, title: string): Promise<void> {
    const name = title.replace(/\s+/g, ' ').trim().slice(0, 120);
    if (!name) return;
    if (id === this.current.conversation.id) {
      this.set({ conversation: { ...this.current.conversation, title: name } });
      await this.saveNow();
      return;
    }
    const saved = await this.deps.persistence.loadConversation(id).catch(() => undefined);
    if (!saved) return;
    const conversations = await this.deps.persistence.saveConversation({ ...saved, title: name }).catch(() => this.current.conversations);
    this.set({ conversations });
  }

  /** A conversation as a file to save: JSON (restores exactly) or Markdown (to read). */
  async exportConversation(id: string, format: 'json' | 'markdown'): Promise<ConversationFile | undefined> {
    const conversation =
      id === this.current.conversation.id ? this.current.conversation : await this.deps.persistence.loadConversation(id).catch(() => undefined);
    if (!conversation) return undefined;
    return format === 'json' ? conversationToJson(conversation) : conversationToMarkdown(conversation);
  }

  /**
   * Imports an exported conversation (JSON or Markdown) as a new saved conversation and opens it.
   * A file that is not one is refused with a message that says why; nothing is changed then.
   */
  async importConversation(name: string, text: string): Promise<void> {
    let imported: Conversation;
    let notes: string[];
    try {
      ({ conversation: imported, notes } = importConversationFile(name, text, newId));
    } catch (error) {
      this.notify(`Could not import ${name}: ${(error as Error).message}`);
      this.set({ importError: `Could not import ${name}: ${(error as Error).message}` });
      return;
    }
    const conversation = { ...imported, id: newId() };
    const conversations = await this.deps.persistence.saveConversation(conversation).catch(() => this.current.conversations);
    this.set({ conversations, importError: undefined });
    this.notify([`Imported “${conversation.title}”.`, ...notes].join(' '));
    if (!this.current.busy) await this.selectConversation(conversation.id);
  }

  /** Finds the saved conversations whose title or text contains every word of `query` (an empty query ends the search). */
  async searchConversations(query: string): Promise<void> {
    this.pendingQuery = query;
    const words = query.toLowerCase().split(/\s+/).filter(Boolean);
    if (!words.length) {
      this.set({ conversationSearch: undefined });
      return;
    }
    const { persistence } = this.deps;
    const matches: ConversationSummary[] = [];
    for (const summary of this.current.conversations) {
      const conversation =
        summary.id === this.current.conversation.id ? this.current.conversation : await persistence.loadConversation(summary.id).catch(() => undefined);
      const haystack = [summary.title, ...(conversation?.turns.map((t) => t.text) ?? [])].join('\n').toLowerCase();
      if (words.every((w) => haystack.includes(w))) matches.push(summary);
    }
    // A newer search may have started while this one read: only the latest is shown.
    if (this.pendingQuery !== query) return;
    this.set({ conversationSearch: { query, matches } });
  }

  private restoreHistory(conversation: Conversation): void {
    if (!this.chat) return;
    try {
      this.chat.setHistory(withoutSystemTurns(conversation.history));
    } catch (error) {
      // A history that does not fit together would derail the model: start its memory afresh.
      this.chat.reset();
      if (error instanceof InvalidHistoryError) this.notify('The saved history of this conversation was inconsistent; the model starts afresh from here.');
    }
  }

  // ---------------------------------------------------------------------------------------------
  // Settings, the Web switch, tools
  // ---------------------------------------------------------------------------------------------

  /** Changes settings for the next answers, and remembers them. */
  updateSettings(change: Partial<Settings>): void {
    const before = this.current.settings;
    const settings = { ...before, ...change };
    this.set({ settings });
    void this.deps.persistence.saveSettings(settings).catch(() => undefined);
    if (settings.softwareWebgpu !== before.softwareWebgpu) this.refreshRuntime();
  }

  /** Asks again which device a load would use (the answer depends on the software-WebGPU setting). */
  private refreshRuntime(): void {
    void this.deps.opener
      .runtime()
      .then(({ webgpu, shaderF16, fallbackAdapter }) => this.set({ runtime: { webgpu, shaderF16, ...(fallbackAdapter ? { fallbackAdapter } : {}) } }));
  }

  /** Puts every setting back to the library's defaults. */
  resetSettings(): void {
    this.updateSettings({ ...DEFAULT_SETTINGS });
    this.notify('Settings reset to defaults.');
  }

  /** Turns research mode on or off for the next messages, and remembers it. */
  setWeb(enabled: boolean): void {
    this.set({ web: { ...this.current.web, enabled } });
    void this.deps.persistence.saveWebEnabled(enabled).catch(() => undefined);
    if (enabled) void this.refreshWebStatus();
  }

  /** Asks the proxy whether search works, for the Web switch. */
  async refreshWebStatus(): Promise<void> {
    const research = this.research ?? this.deps.research(undefined);
    const status = await research.status();
    this.set({ web: { ...this.current.web, status } });
  }

  /** Reads `tools.js` again (after the user edited it). A broken file keeps the previous tools. */
  async reloadTools(): Promise<void> {
    if (this.chat) await this.loadToolsInto(this.chat);
    else await this.previewTools();
  }

  private async loadToolsInto(chat: NexusChat): Promise<void> {
    this.set({ tools: { ...this.current.tools, loading: true } });
    try {
      await chat.loadTools(this.deps.toolsUrl, this.toolsOptions());
      this.set({ tools: { ...this.keptToolState(), url: this.deps.toolsUrl, loading: false, list: describeTools(chat.tools) } });
    } catch (error) {
      this.set({
        tools: { ...this.keptToolState(), url: this.deps.toolsUrl, loading: false, list: describeTools(chat.tools), error: (error as Error).message },
      });
    }
    // Many tools: the tool-search model loads and the tools are embedded now, not at the first answer.
    this.applyToolSettings(chat);
    void chat.prepareTools();
  }

  /** The tool-selection settings onto the chat. The same model spec keeps the same index: toggling re-embeds nothing. */
  private applyToolSettings(chat: NexusChat): void {
    const { semanticToolSearch, toolSelectionThreshold } = this.current.settings;
    chat.toolSelection.semantic = semanticToolSearch ? { ...DEFAULT_EMBEDDING_MODEL } : false;
    chat.toolSelection.threshold = toolSelectionThreshold;
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
    const registry = new ToolRegistry();
    try {
      await loadTools(registry, this.deps.toolsUrl, this.toolsOptions());
      if (!this.chat) this.set({ tools: { url: this.deps.toolsUrl, loading: false, list: describeTools(registry) } });
    } catch (error) {
      if (!this.chat) this.set({ tools: { ...this.current.tools, loading: false, error: (error as Error).message } });
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

  private patchModel(change: Partial<ModelState>): void {
    this.set({ model: { ...this.current.model, ...change } });
  }

  private setConversation(conversation: Conversation): void {
    this.set({ conversation: { ...conversation, updatedAt: new Date().toISOString() } });
    this.scheduleSave();
  }

  private updateTurn(id: string, change: (turn: Turn) => Partial<Turn>): void {
    const conversation = this.current.conversation;
    const turns = conversation.turns.map((turn) => (turn.id === id ? { ...turn, ...change(turn) } : turn));
    this.setConversation({ ...conversation, turns });
  }

  private scheduleSave(): void {
    this.saveTimer ??= setTimeout(() => void this.saveNow(), SAVE_EVERY_MS);
  }

  /** Saves the open conversation now (empty ones are not kept). */
  async saveNow(): Promise<void> {
    clearTimeout(this.saveTimer);
    this.saveTimer = undefined;
    const conversation = this.current.conversation;
    if (conversation.turns.length === 0) return;
    try {
      this.set({ conversations: await this.deps.persistence.saveConversation(conversation) });
    } catch (error) {
      this.notify(`Could not save the conversation: ${(error as Error).message}`);
    }
  }
}

function describeTools(registry: ToolRegistry): ToolInfo[] {
  return registry.names.flatMap((name) => {
    const tool = registry.get(name);
    return tool ? [{ schema: tool.schema, confirm: tool.confirm, readOnly: tool.readOnly }] : [];
  });
}

/**
 * Adds a handled call to an answer's tool lines. A web tool reports its own "searched:"/"read:"
 * line before the loop reports the call; the call then only claims that line (marking how it was
 * made). A web call with no line of its own failed before reaching the proxy: it gets a failure line.
 */
function addCall(activity: readonly Activity[], call: ToolCallRecord, web: boolean): Activity[] {
  if (!web || !WEB_TOOL_NAMES.has(call.name)) {
    return [
      ...activity,
      { kind: 'call', id: call.id, name: call.name, arguments: call.arguments, source: call.source, status: call.status, result: call.result },
    ];
  }
  const at = activity.findLastIndex((a) => a.kind !== 'call' && !a.source);
  if (at >= 0) return activity.map((a, i) => (i === at ? ({ ...(a as WebActivity), source: call.source } as Activity) : a));
  const args = call.arguments;
  const failed: Activity =
    call.name === READ_PAGE
      ? { kind: 'read', url: String(args.url ?? ''), pages: [], ok: false, detail: call.result, source: call.source }
      : {
          kind: 'search',
          queries: [args.query, ...(Array.isArray(args.queries) ? args.queries : [])].map(String),
          ok: false,
          results: 0,
          detail: call.result,
          source: call.source,
        };
  return [...activity, failed];
}

/** The drafts worth keeping beside the final answer: not the answer itself, which is shown anyway. */
function draftsBesides(drafts: string[] | undefined, answer: string): string[] {
  return (drafts ?? []).filter((draft) => draft !== answer.trim());
}

/**
 * A conversation saved while an answer was being written (the tab closed or reloaded) is made
 * consistent the way an interrupted `chat()` leaves one: the question is kept with the visible text
 * already written, and the answer is marked as stopped.
 */
export function repairInterrupted(conversation: Conversation): Conversation {
  const last = conversation.turns.at(-1);
  if (last?.role !== 'assistant' || (last.state !== 'streaming' && last.state !== 'stopping')) return conversation;
  const user = conversation.turns.at(-2);
  const history = [...conversation.history];
  if (user?.role === 'user' && user.historyIndex === history.length) {
    history.push({ role: 'user', content: user.text });
    if (last.text.trim()) history.push({ role: 'assistant', content: last.text.trim() });
  }
  const interrupted: Turn = { ...last, state: 'stopped', note: 'Interrupted: the page was closed while this answer was being written.' };
  return { ...conversation, history, turns: [...conversation.turns.slice(0, -1), interrupted] };
}

/**
 * `chat.history` keeps the answer prompt the loop inserted as system turns, but `setHistory`
 * accepts no system turn (the chat adds its own). Those per-answer instructions are not needed to
 * continue, so they are dropped when a history is handed back.
 */
function withoutSystemTurns(history: readonly ChatMessage[]): ChatMessage[] {
  return history.filter((m) => m.role !== 'system');
}

function newId(): string {
  return globalThis.crypto?.randomUUID?.() ?? `${Date.now().toString(36)}-${Math.random().toString(36).slice(2, 10)}`;
}

/**
 * The strategy an answer runs with, set by the model's verdict: a model the check found does not
 * call tools is never forced into calls (priming and stepwise would turn an essay request into a
 * calculator call); it may still call one on its own. A model that passed, or was not checked,
 * runs with the user's setting.
 */
export function toolPolicy(verdict: { ok: boolean } | undefined, strategy: Strategy): Strategy {
  return verdict && !verdict.ok ? 'inline' : strategy;
}
