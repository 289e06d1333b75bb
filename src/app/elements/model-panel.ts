import { LitElement, html, nothing } from 'lit';
import { DEFAULT_MODEL, MODEL_FAMILIES, describeRuntime, type ModelSource } from '../../internal.ts';
import type { AppState, FileProgress, ModelState } from '../state/app-state.ts';
import type { DeviceModel } from '../state/device-models.ts';
import { deviceLabel, formatApproxBytes, formatBytes, formatPercent, formatRate, KV_CACHE_WORDS, threadWords } from '../format.ts';
import { modelFromAddress } from '../state/model-param.ts';
import { KNOWN_MODELS, servedModelFolders, sourceFromFolder, sourceFromZip } from '../state/model-sources.ts';
import { modelPanelStyles } from './model-panel-styles.ts';
import { fire } from '../state/app-actions.ts';

type Choice = 'known' | 'other';

/**
 * A verdict's sentence with the model called by the name the card shows: the library names it by its
 * source, which for a folder is a whole address ending in that name (the sentence's title keeps it).
 */
function inWords(detail: string, name: string | undefined): string {
  if (!name) return detail;
  const address = new RegExp(`\\S*/${name.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}(?=[\\s(.,]|$)`, 'g');
  return detail.replace(address, name);
}

/**
 * The model card: the picker, the download progress per file, the warm-up and self-check, and
 * the verdict in plain words with what to do next.
 */
export class ModelPanel extends LitElement {
  static override properties = {
    model: { attribute: false },
    runtime: { attribute: false },
    picking: { state: true },
    choice: { state: true },
    knownId: { state: true },
    freeSpace: { state: true },
    pickError: { state: true },
    now: { state: true },
    verdictCard: { attribute: false },
    served: { state: true },
    onDevice: { attribute: false },
  };

  /** The model folders this app's server serves, offered in the picker. */
  declare served: string[];

  /** The models this browser keeps (from the store, once listed): the picker marks them. */
  declare onDevice: readonly DeviceModel[] | undefined;
  /** The model's state, from the store. */
  declare model: ModelState;
  /** What the browser offers, from the store (undefined while asking). */
  declare runtime: AppState['runtime'];
  /** The picker is open over a loaded model ("Change model"). */
  declare picking: boolean;
  /** Which kind of source the picker has selected. */
  declare choice: Choice;
  /** The known model selected in the picker. */
  declare knownId: string;
  /** Bytes the browser says this site may still store, when it says. */
  declare freeSpace: number | undefined;
  /** Why a picked folder or .zip could not be used. */
  declare pickError: string | undefined;
  /** The verdict card as the user left it (a setting, so it stays so after a reload): `auto` folds it on a phone. */
  declare verdictCard: 'auto' | 'open' | 'folded';
  /** The clock the self-check's running time is shown against; ticks only while checking. */
  declare now: number;
  private ticker: ReturnType<typeof setInterval> | undefined;

  static override styles = modelPanelStyles;

  constructor() {
    super();
    this.picking = false;
    this.choice = 'known';
    this.knownId = (DEFAULT_MODEL as { hub: string }).hub;
    this.verdictCard = 'auto';
  }

  override connectedCallback(): void {
    super.connectedCallback();
    void servedModelFolders(location.href).then((served) => (this.served = served));
    void fire(this, { type: 'listDeviceModels' });
    void navigator.storage?.estimate?.().then(
      ({ quota, usage }) => (this.freeSpace = quota !== undefined ? quota - (usage ?? 0) : undefined),
      () => undefined,
    );
  }

  override disconnectedCallback(): void {
    super.disconnectedCallback();
    this.stopTicking();
  }

  override updated(): void {
    // A second-by-second clock only while downloading or checking: the page says it is alive, and for how long.
    const running = this.model.phase === 'checking' || this.model.phase === 'loading';
    if (running && !this.ticker) {
      this.now = Date.now();
      this.ticker = setInterval(() => (this.now = Date.now()), 1000);
    } else if (!running) this.stopTicking();
  }

  private stopTicking(): void {
    clearInterval(this.ticker);
    this.ticker = undefined;
  }

  override render() {
    const { phase } = this.model;
    if (phase === 'idle' || (this.picking && phase !== 'loading' && phase !== 'warming' && phase !== 'checking')) return this.renderPicker();
    if (phase === 'error') return this.renderError();
    if (phase === 'confirm') return this.renderLinked();
    if (phase === 'ready') return this.renderVerdict();
    return this.renderProgress();
  }

  private renderPicker() {
    return html`<form class="card" data-testid="model-picker" @submit=${this.handleLoad}>
      <h2>Choose a model</h2>
      <p class="lead">It runs entirely in this tab. The first load downloads it once; later visits start from the browser's cache.</p>
      <fieldset class="known">
        <legend class="sr-only">Suggested models</legend>
        ${KNOWN_MODELS.map(
          (m) => html`<label class="option">
            <input type="radio" name="choice" .checked=${this.choice === 'known' && this.knownId === m.id} @change=${() => this.handleChoose('known', m.id)} />
            <span class="name">${m.label}</span>
            <span class="note">${MODEL_FAMILIES[m.family].label} · ${this.renderSize(m.id, `about ${formatApproxBytes(m.approxBytes)} (${m.dtype})`)} · ${m.note}</span>
          </label>`,
        )}
      </fieldset>
      <fieldset>
        <legend>Or another model</legend>
        <label class="option other">
          <input type="radio" name="choice" .checked=${this.choice === 'other'} @change=${() => this.handleChoose('other')} />
          <span class="name">A hub id, or a folder this app serves</span>
          <input class="field" type="text" name="other" data-testid="custom-model" placeholder="onnx-community/Qwen3-0.6B-ONNX  or  /models/my-model" spellcheck="false" @focus=${() => this.handleChoose('other')} />
        </label>
        ${this.renderServed()}
        <div class="disk">
          <span class="muted">From this computer:</span>
          <button type="button" @click=${() => this.renderRoot.querySelector<HTMLInputElement>('#folder')?.click()}>Choose folder…</button>
          <button type="button" @click=${() => this.renderRoot.querySelector<HTMLInputElement>('#zip')?.click()}>Choose .zip…</button>
          <input id="folder" type="file" webkitdirectory multiple @change=${this.handleFolder} />
          <input id="zip" type="file" accept=".zip,application/zip" @change=${this.handleZip} />
        </div>
      </fieldset>
      ${this.pickError ? html`<p class="pick-error" role="alert">${this.pickError}</p>` : nothing}
      <div class="actions sticky">
        <button class="primary" type="submit" data-testid="load-model">Load ${this.choice === 'known' ? (KNOWN_MODELS.find((m) => m.id === this.knownId)?.label ?? 'model') : 'model'}</button>
        ${this.picking ? html`<button type="button" class="ghost" @click=${() => (this.picking = false)}>Cancel</button>` : nothing}
      </div>
      ${this.renderFacts()}
    </form>`;
  }

  /** The folders this app serves, one click from the address field (they were only named in a 404 before). */
  private renderServed() {
    if (!this.served?.length) return nothing;
    return html`<div class="disk" data-testid="served-models">
      <span class="muted">Served by this app:</span>
      ${this.served.map((address) => html`<button type="button" class="small" @click=${() => this.handlePickServed(address)}>${address.replace(/^\/models\//, '')}${this.onDevice?.some((m) => m.address === address) ? ' · downloaded' : ''}</button>`)}
    </div>`;
  }

  /** A model's download size, or what it holds on this device once downloaded (no second download). */
  private renderSize(address: string, download: string) {
    const kept = this.onDevice?.find((m) => m.address === address);
    return kept ? html`<strong data-testid="downloaded">downloaded · ${formatBytes(kept.bytes)} on this device</strong>` : download;
  }

  private renderFacts() {
    return html`<div class="facts">
      ${this.renderRuntime()}
      ${this.freeSpace !== undefined ? html`<span>Storage this site may use: about ${formatApproxBytes(this.freeSpace)}. ${KNOWN_MODELS[0]?.label ?? 'A small model'} needs about ${formatApproxBytes(KNOWN_MODELS[0]?.approxBytes ?? 600e6)}.</span>` : nothing}
    </div>`;
  }

  private renderRuntime() {
    if (!this.runtime) return html`<span data-testid="runtime">Checking for WebGPU…</span>`;
    return html`<span data-testid="runtime">${describeRuntime({ runtime: 'browser', ...this.runtime })}</span>`;
  }

  private renderProgress() {
    const { phase, label, files, attempts, searching } = this.model;
    const entries = Object.entries(files);
    const loaded = entries.reduce((n, [, f]) => n + f.loaded, 0);
    const total = entries.reduce((n, [, f]) => n + f.total, 0);
    const step = phase === 'loading' ? 0 : phase === 'warming' ? 1 : 2;
    const steps = ['Download', 'Warm up', 'Check tools'];
    return html`<section class="card" data-testid="model-progress" aria-busy="true">
      <h2>${searching ? 'Searching for a quantization that calls tools' : `${phase === 'loading' ? 'Loading' : phase === 'warming' ? 'Warming up' : 'Checking'} ${label}`}</h2>
      <ol class="steps" aria-label="Loading steps">
        ${steps.map((s, i) => html`<li class=${i < step ? 'done' : i === step ? 'now' : ''} aria-current=${i === step ? 'step' : 'false'}>${i < step ? '✓ ' : ''}${s}</li>`)}
      </ol>
      ${
        entries.length
          ? html`<ul class="files" data-testid="model-files">
            ${entries.map(([file, p]) => this.renderFile(file, p))}
            ${entries.length > 1 ? this.renderFile('Total', { loaded, total, done: loaded >= total && total > 0 }, true) : nothing}
          </ul>`
          : html`<p class="muted" data-testid="model-starting">Starting the model runtime…</p>`
      }
      ${phase === 'warming' ? html`<p class="phase"><span class="spinner" aria-hidden="true"></span>Warming up (compiling the model for this device)…</p>` : nothing}
      ${phase === 'checking' ? this.renderChecking() : nothing}
      ${phase === 'loading' ? this.renderRate(loaded, total) : nothing}
      ${
        phase === 'loading' && entries.length && entries.every(([, f]) => f.done)
          ? html`<p class="phase" data-testid="model-reading"><span class="spinner" aria-hidden="true"></span>Reading the model into memory…</p>`
          : nothing
      }
      ${attempts.length ? html`<ul class="notes" data-testid="model-notes">${attempts.map((a) => html`<li>${a}</li>`)}</ul>` : nothing}
      ${
        phase === 'loading' || phase === 'warming'
          ? html`<div class="actions"><button class="small" data-testid="cancel-load" @click=${() => fire(this, { type: 'cancelLoad' })}>Cancel</button></div>`
          : nothing
      }
      <div class="facts">${this.renderRuntime()}</div>
    </section>`;
  }

  /** The self-check: what it does, for how long so far, and a way out. */
  private renderChecking() {
    const started = this.model.checkStartedAt;
    const seconds = started ? Math.max(0, Math.floor(((this.now ?? Date.now()) - started) / 1000)) : 0;
    return html`<div class="phase checking">
      <p><span class="spinner" aria-hidden="true"></span>Checking that this model calls tools… <span class="muted" data-testid="check-elapsed">${seconds} s</span></p>
      <p class="muted">It asks one question that only a tool can answer. You can skip it; a message you send now goes once it is done.</p>
      <button class="small" data-testid="skip-check" @click=${() => fire(this, { type: 'skipCheck' })}>Skip check</button>
    </div>`;
  }

  /** How fast the download goes and how long it has left, once that can be told. */
  private renderRate(loaded: number, total: number) {
    const started = this.model.downloadStartedAt;
    const rate = started ? formatRate(loaded, total, (this.now ?? Date.now()) - started) : '';
    return rate ? html`<p class="muted rate" data-testid="download-rate">${rate}</p>` : nothing;
  }

  /** "1.2 MB of 350 MB", or what is known: never a size that is not. */
  private sizeText(p: FileProgress): string {
    if (p.total) return `${formatBytes(p.done ? p.total : p.loaded)} of ${formatBytes(p.total)}`;
    if (p.loaded) return formatBytes(p.loaded);
    return p.done ? 'done' : 'waiting';
  }

  private renderFile(file: string, p: FileProgress, isTotal = false) {
    const percent = p.done ? '100%' : formatPercent(p.loaded, p.total);
    return html`<li class="file ${isTotal ? 'total' : ''}" data-testid=${isTotal ? 'progress-total' : 'progress-file'}>
      <code title=${file}>${file}</code>
      <span class="size">${this.sizeText(p)}${percent ? html` · ${percent}` : nothing}</span>
      <progress max=${p.total || 1} .value=${p.done ? p.total || 1 : p.loaded} aria-label="${file}: ${percent || 'starting'}"></progress>
    </li>`;
  }

  private renderVerdict() {
    const { verdict, device, dtype, label } = this.model;
    if (!verdict && this.model.checkSkipped) return this.renderUnchecked();
    const ok = verdict?.ok ?? false;
    const when = verdict ? new Date(verdict.checkedAt).toLocaleString(undefined, { dateStyle: 'medium', timeStyle: 'short' }) : '';
    const detail = verdict ? inWords(verdict.detail, label) : 'Not checked.';
    const title = ok ? (verdict?.needed_forcing ? 'Calls tools when nudged' : 'Calls tools') : 'This model does not call tools reliably';
    return this.renderVerdictFrame(
      ok ? 'ok' : 'bad',
      String(ok),
      ok ? '✓' : '!',
      title,
      html`
      <p data-testid="verdict-detail" title=${verdict && detail !== verdict.detail ? verdict.detail : nothing}>${detail}</p>
      ${this.model.searched && this.model.attempts.length ? html`<ul class="notes" data-testid="model-notes">${this.model.attempts.map((a) => html`<li>${a}</li>`)}</ul>` : nothing}
      <div class="meta">
        <span class="badge accent" data-testid="device">${deviceLabel(device, dtype)}</span>
        <span>${label}</span>
        ${this.renderProfile()}
        ${verdict ? html`<span>· ${verdict.remembered ? `remembered from ${when}` : `checked ${when}`}</span>` : nothing}
      </div>
      ${ok ? nothing : html`<p class="muted" data-testid="tool-policy">You can still chat with it. Answers are not forced into tool calls (no priming, no stepwise); it may still call a tool on its own.</p>`}
      <div class="actions">
        ${ok || this.model.searched ? nothing : html`<button class="small" data-testid="search-quantizations" @click=${() => fire(this, { type: 'searchQuantizations' })}>Try other quantizations</button>`}
        ${
          ok || this.model.address === KNOWN_MODELS[0]?.id
            ? nothing
            : html`<button class="small" @click=${() => fire(this, { type: 'loadModel', source: { hub: KNOWN_MODELS[0]?.id ?? '' } })}>Switch to ${KNOWN_MODELS[0]?.label}</button>`
        }
        ${verdict?.remembered ? html`<button class="small ghost" data-testid="recheck" @click=${() => fire(this, { type: 'recheckModel' })}>Check again</button>` : nothing}
        <button class="small ghost" data-testid="change-model" @click=${this.handleChangeModel}>Change model</button>
      </div>`,
    );
  }

  /** Ready without a verdict: the user skipped the check. */
  private renderUnchecked() {
    const { device, dtype, label } = this.model;
    return this.renderVerdictFrame(
      'unchecked',
      'unknown',
      '?',
      'Tool calling not checked',
      html`
      <p data-testid="verdict-detail">You skipped the self-check. Tools are offered, but nothing has shown yet that this model calls them and answers from their results.</p>
      <div class="meta">
        <span class="badge accent" data-testid="device">${deviceLabel(device, dtype)}</span>
        <span>${label}</span>
        ${this.renderProfile()}
      </div>
      <div class="actions">
        <button class="small" data-testid="recheck" @click=${() => fire(this, { type: 'recheckModel' })}>Check now</button>
        <button class="small ghost" data-testid="change-model" @click=${this.handleChangeModel}>Change model</button>
      </div>`,
    );
  }

  private renderProfile() {
    const { family, threads, context, kvCache } = this.model;
    return html`${family ? html`<span data-testid="profile" title=${family.detectedBy}>· ${family.label} profile</span>` : nothing}
      ${family?.calls ? html`<span data-testid="calls" title=${family.calls}>· ${family.callSyntax ? 'calls as its template writes them' : 'calls in its profile’s syntax'}</span>` : nothing}
      ${context ? html`<span data-testid="context" title=${context.detail}>· remembers ${context.tokens.toLocaleString('en-US')} tokens</span>` : nothing}
      ${
        threads
          ? html`<span data-testid="threads" title=${threads === 1 ? 'One CPU thread: the page is not cross-origin isolated, or the device has one core.' : 'ONNX Runtime computes on this many CPU threads.'}>· ${threadWords(threads)}</span>`
          : nothing
      }
      ${kvCache ? html`<span data-testid="kv-cache" title=${KV_CACHE_WORDS[kvCache].detail}>· ${KV_CACHE_WORDS[kvCache].short}</span>` : nothing}`;
  }

  /**
   * The verdict card: one line (icon, verdict, device) when folded — the default on a phone, where
   * the conversation needs the room — and the detail, facts and actions when open.
   */
  private renderVerdictFrame(kind: string, ok: string, icon: string, title: string, details: unknown) {
    const open = this.verdictCard === 'auto' ? !(typeof matchMedia === 'function' && matchMedia('(max-width: 560px)').matches) : this.verdictCard === 'open';
    return html`<section class="card compact verdict ${kind} ${open ? 'open' : 'folded'}" data-testid="verdict" data-ok=${ok}>
      <span class="icon" aria-hidden="true">${icon}</span>
      <div class="body">
        <div class="title-row">
          <h2>${title}</h2>
          ${open ? nothing : html`<span class="badge accent" data-testid="device">${deviceLabel(this.model.device, this.model.dtype)}</span>`}
          <button class="small ghost toggle" data-testid="verdict-toggle" aria-expanded=${String(open)} @click=${() => fire(this, { type: 'updateSettings', change: { verdictCard: open ? 'folded' : 'open' } })}>${open ? 'Less' : 'More'}</button>
        </div>
        ${open ? details : nothing}
      </div>
    </section>`;
  }

  private handleChangeModel(): void {
    this.picking = true;
    // Preselected: the model in use, never a download the user did not ask for.
    const address = this.model.address ?? '';
    this.handleChoose(KNOWN_MODELS.some((m) => m.id === address) ? 'known' : 'other', address);
    if (this.choice === 'other') void this.updateComplete.then(() => this.handlePickServed(address));
    void fire(this, { type: 'listDeviceModels' });
    // The picker replaces the card where the user is: show it from its top, however far down they were.
    void this.updateComplete.then(() => this.renderRoot.querySelector('[data-testid="model-picker"]')?.scrollIntoView({ block: 'start' }));
  }

  /** A link named a model from elsewhere: where it comes from, and nothing fetched until Load. */
  private renderLinked() {
    const { label, linked } = this.model;
    return html`<section class="card" data-testid="linked-model">
      <h2>Load ${label ?? 'this model'}?</h2>
      <p class="lead">The link you opened asks this page to download a model. Nothing has been downloaded yet.</p>
      <dl class="facts">
        <dt>From</dt>
        <dd><code data-testid="linked-model-from">${linked?.from ?? ''}</code></dd>
        <dt>Size</dt>
        <dd>${linked?.approxBytes ? `about ${formatApproxBytes(linked.approxBytes)}` : 'unknown until the download starts (the progress shows each file)'}</dd>
      </dl>
      <div class="actions">
        <button class="primary" data-testid="confirm-linked-model" @click=${() => fire(this, { type: 'confirmLinkedModel' })}>Load it</button>
        <button data-testid="decline-linked-model" @click=${() => fire(this, { type: 'declineLinkedModel' })}>Choose another model</button>
      </div>
    </section>`;
  }

  private renderError() {
    return html`<section class="card error" role="alert" data-testid="model-error">
      <h2>Could not load ${this.model.label ?? 'the model'}</h2>
      <p>${this.model.error}</p>
      ${this.model.attempts.length ? html`<ul class="notes">${this.model.attempts.map((a) => html`<li>${a}</li>`)}</ul>` : nothing}
      <div class="actions">
        <button class="primary" data-testid="retry-model" @click=${() => fire(this, { type: 'retryModel' })}>Try again</button>
        <button @click=${() => (this.picking = true)}>Choose another model</button>
      </div>
      <div class="facts">${this.renderRuntime()}</div>
    </section>`;
  }

  private handlePickServed(address: string): void {
    const field = this.renderRoot.querySelector<HTMLInputElement>('[data-testid="custom-model"]');
    if (field) field.value = address;
    this.handleChoose('other');
  }

  private handleChoose(choice: Choice, knownId?: string): void {
    this.choice = choice;
    if (knownId && choice === 'known') this.knownId = knownId;
  }

  private handleLoad(event: SubmitEvent): void {
    event.preventDefault();
    const form = event.currentTarget as HTMLFormElement;
    const value = (name: string) => (form.elements.namedItem(name) as HTMLInputElement | null)?.value.trim() ?? '';
    let source: ModelSource | undefined;
    if (this.choice === 'known') source = { hub: this.knownId };
    else {
      // The same rules as ?model=: a path or URL is a folder served over HTTP, anything else a hub id.
      const typed = value('other');
      source = typed ? modelFromAddress(`?model=${encodeURIComponent(typed)}`, location.href) : undefined;
    }
    if (!source) {
      this.pickError = 'Type a hub id such as onnx-community/Qwen3-0.6B-ONNX, or a served folder such as /models/my-model.';
      return;
    }
    this.load(source);
  }

  private handleFolder(event: Event): void {
    const input = event.target as HTMLInputElement;
    const files = [...(input.files ?? [])];
    input.value = '';
    if (files.length) this.load(sourceFromFolder(files));
  }

  private async handleZip(event: Event): Promise<void> {
    const input = event.target as HTMLInputElement;
    const file = input.files?.[0];
    input.value = '';
    if (!file) return;
    try {
      this.load(await sourceFromZip(file));
    } catch (error) {
      this.pickError = (error as Error).message;
    }
  }

  private load(source: ModelSource): void {
    this.pickError = undefined;
    this.picking = false;
    void fire(this, { type: 'loadModel', source });
  }
}

customElements.define('nexus-model-panel', ModelPanel);

declare global {
  interface HTMLElementTagNameMap {
    'nexus-model-panel': ModelPanel;
  }
}
