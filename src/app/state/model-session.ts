import { isAbortError, type LoadProgress, type ModelSource, type NexusChat } from '../../internal.ts';
import type { AppState, ModelState } from './app-state.ts';
import { explainLoadError } from './model-loader.ts';
import { linkedModelOrigin, modelAddress, modelLabel } from './model-sources.ts';
import type { Research } from './web-research.ts';
import type { StoreDeps } from './store-deps.ts';
import type { ActionHandlers, ModelAction } from './app-actions.ts';
import type { SliceChange } from './state-writers.ts';

/** What the model session needs of the page's store. */
export interface ModelHost {
  /** The page's state as it is now. */
  state(): AppState;
  /** Writes this slice's own part of the page's state (see state-writers.ts). */
  set(change: SliceChange<'model'>): void;
  notify(text: string): void;
  /** Stops the answer that is running (a new model replaces the one it runs on). */
  stopAnswer(): void;
  /** The chat is the page's now: load its tools and hand it the open conversation. */
  attached(chat: NexusChat): Promise<void>;
}

/**
 * The model part of the page's store: opening a model (from the address, a link, the picker), its
 * download progress and warm-up, the self-check and its skip, cancel and retry, and the chat it
 * yields. One model at a time; a load overtaken by a newer one drops its result.
 */
export class ModelSession {
  /** The chat over the loaded model. */
  chat: NexusChat | undefined;
  /** Web research over the chat. */
  research: Research | undefined;
  /** The load (or re-check) in progress, so a message sent during the check can wait for it. */
  loading: Promise<void> | undefined;
  private source: ModelSource | undefined;
  /** Cancels the load that is running, if one is. */
  private loadController: AbortController | undefined;
  /** Cancels the self-check that is running, if one is. */
  private checkController: AbortController | undefined;
  /** Bumped by every load, so a load that was overtaken by a newer one drops its result. */
  private loadGeneration = 0;

  /** The model slice's actions, which the store's one dispatch routes here (see app-actions.ts). */
  readonly actions: ActionHandlers<ModelAction> = {
    loadModel: ({ source }) => this.loadModel(source),
    confirmLinkedModel: () => this.confirmLinkedModel(),
    declineLinkedModel: () => this.declineLinkedModel(),
    retryModel: () => this.retryModel(),
    searchQuantizations: () => this.searchQuantizations(),
    recheckModel: () => this.recheckModel(),
    cancelLoad: () => this.cancelLoad(),
    skipCheck: () => this.skipCheck(),
  };

  constructor(
    private readonly host: ModelHost,
    private readonly deps: Pick<StoreDeps, 'persistence' | 'opener' | 'research' | 'setAddress' | 'origin'>,
  ) {}

  /**
   * Opens the model the page was started with: one a link names from elsewhere waits for the user's
   * click; one that failed on the last visit shows its failure (with Try again) instead of loading.
   */
  async open(source: ModelSource, { named, last }: { named: ModelSource | undefined; last: string | undefined }): Promise<void> {
    const { persistence } = this.deps;
    const origin = this.deps.origin ?? globalThis.location?.origin ?? 'http://localhost';
    // A link may name any model anywhere: one from elsewhere that is not the model this browser last
    // used is shown with where it comes from, and waits for a click before anything is downloaded.
    const linked = named ? linkedModelOrigin(named, { origin, hubUrl: this.host.state().settings.hubUrl }) : undefined;
    const failed = await persistence.loadFailedModel().catch(() => undefined);
    const where = modelAddress(source, origin);
    // A model this browser tried and failed to load (the user's own pick, offline) is that failure, not a link from elsewhere.
    const triedHere = failed !== undefined && failed.address === where;
    if (named && linked && modelAddress(named, origin) !== last && !triedHere) {
      this.source = named;
      this.host.set({ model: { phase: 'confirm', label: modelLabel(named), address: modelAddress(named, origin), files: {}, attempts: [], linked } });
      return;
    }
    // A model that failed last time is not fetched again on every reload: the failure is shown, with Try again.
    if (failed && where && triedHere) {
      this.source = source;
      this.host.set({
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

  /** Loads a model (replacing the one in use), checks it calls tools, and makes it the chat's. */
  async loadModel(source: ModelSource): Promise<void> {
    await this.track(this.runLoad(source, 'open'));
  }

  /** Loads the model a link named, after the user saw where it comes from. */
  async confirmLinkedModel(): Promise<void> {
    if (this.host.state().model.phase === 'confirm' && this.source) await this.loadModel(this.source);
  }

  /** Declines the model a link named: nothing is downloaded, the picker is shown, the address forgets it. */
  declineLinkedModel(): void {
    if (this.host.state().model.phase !== 'confirm') return;
    this.source = undefined;
    this.host.set({ model: { phase: 'idle', files: {}, attempts: [] } });
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
    if (!chat || !source || this.host.state().busy || this.host.state().model.phase !== 'ready') return;
    await this.track(this.runRecheck(chat, source));
  }

  /**
   * Cancels the model load in progress (download or warm-up): its worker is ended, the picker is
   * shown again, and the files that finished stay in the browser's cache for a later load.
   */
  cancelLoad(): void {
    const phase = this.host.state().model.phase;
    if (phase === 'loading' || phase === 'warming') this.loadController?.abort(new DOMException('Loading was cancelled.', 'AbortError'));
  }

  /**
   * Skips the self-check that is running: the model is kept and ready, unjudged (tools are still
   * offered), and the page says so. A check can take minutes on a slow device; the user decides.
   */
  skipCheck(): void {
    if (this.host.state().model.phase === 'checking') this.checkController?.abort();
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
      if (!verdict) this.host.notify('Self-check cancelled; the earlier verdict stands.');
    } catch (error) {
      this.patchModel({ phase: 'ready' });
      this.host.notify(`The self-check could not run: ${(error as Error).message}`);
    }
  }

  private async runLoad(source: ModelSource, how: 'open' | 'search'): Promise<void> {
    if (this.host.state().busy) this.host.stopAnswer();
    const generation = ++this.loadGeneration;
    const previous = this.chat;
    this.chat = undefined;
    this.research = undefined;
    this.source = source;
    const address = modelAddress(source, this.deps.origin ?? globalThis.location?.origin ?? 'http://localhost');
    this.host.set({
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
      onNote: (text: string) => !stale() && this.patchModel({ attempts: [...this.host.state().model.attempts, text] }),
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
      const {
        searching: _searching,
        error: _error,
        verdict: _verdict,
        checkSkipped: _skipped,
        searched: _searched,
        threads: _threads,
        kvCache: _kvCache,
        context: _context,
        ...model
      } = this.host.state().model;
      this.host.set({
        model: {
          ...model,
          phase: 'ready',
          device: chat.info.device,
          dtype: chat.info.dtype,
          ...(chat.info.family ? { family: chat.info.family } : {}),
          ...(chat.info.threads ? { threads: chat.info.threads } : {}),
          ...(chat.info.kvCache ? { kvCache: chat.info.kvCache } : {}),
          ...(chat.info.context ? { context: chat.info.context } : {}),
          ...(verdict ? { verdict } : { checkSkipped: true }),
          ...(how === 'search' ? { searched: true } : {}),
        },
      });
      // Every quantization was tried: after a reload too, there is nothing left to offer.
      if (address && how === 'search') void this.deps.persistence.saveSearchedModel(address).catch(() => undefined);
      else if (address && verdict && !verdict.ok && (await this.deps.persistence.loadSearchedModels().catch((): string[] => [])).includes(address)) {
        if (!stale()) this.patchModel({ searched: true });
      }
      // Remembered only once it loaded, so a model that fails is not retried on every visit.
      if (address) void this.deps.persistence.saveLastModel(address).catch(() => undefined);
      if (address) void this.noteUse(address, verdict);
      if (address) void this.forgetFailure(address);
      this.host.notify(verdict ? `Model ready: ${model.label}.` : `Model ready: ${model.label}. The self-check was skipped.`);
    } catch (error) {
      if (stale()) return;
      if (isAbortError(error)) {
        this.host.set({ model: { phase: 'idle', files: {}, attempts: [] } });
        this.deps.setAddress?.(undefined);
        this.host.notify('Loading cancelled. Files that finished downloading are kept for next time.');
        return;
      }
      const explained = explainLoadError(error);
      this.patchModel({ phase: 'error', error: explained });
      if (address) void this.deps.persistence.saveFailedModel({ address, error: explained }).catch(() => undefined);
    }
  }

  /**
   * Notes when the model loaded and its verdict ("Models on this device"), and the first time a model
   * loads, asks the browser to keep the site's storage (a model is a large download to lose).
   */
  private async noteUse(address: string, verdict: { ok: boolean; dtype: string; device: string } | undefined): Promise<void> {
    const { persistence } = this.deps;
    const use = { usedAt: new Date().toISOString(), ...(verdict ? { verdict: { ok: verdict.ok, dtype: verdict.dtype, device: verdict.device } } : {}) };
    await persistence.saveModelUse(address, use).catch(() => undefined);
    if (await persistence.loadPersistAsked().catch(() => true)) return;
    await persistence.savePersistAsked().catch(() => undefined);
    await globalThis.navigator?.storage?.persist?.().catch(() => false);
  }

  /** A model that loads is no longer the one that failed. */
  private async forgetFailure(address: string): Promise<void> {
    const { persistence } = this.deps;
    const failed = await persistence.loadFailedModel().catch(() => undefined);
    if (failed?.address === address) await persistence.saveFailedModel(undefined).catch(() => undefined);
  }

  /** Makes a loaded model the chat's: approvals, tool search status, research, tools and history. */
  private async attachChat(chat: NexusChat): Promise<void> {
    this.chat = chat;
    this.research = this.deps.research(chat);
    await this.host.attached(chat);
  }

  private handleProgress(event: LoadProgress): void {
    const { model } = this.host.state();
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

  private patchModel(change: Partial<ModelState>): void {
    this.host.set({ model: { ...this.host.state().model, ...change } });
  }
}
