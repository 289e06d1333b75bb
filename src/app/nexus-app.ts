import { LitElement, css, html, nothing } from 'lit';
import { NexusChat, ToolRegistry, loadTools, type LoadProgress, type ModelSource, type ToolCallRecord, type ToolSchema } from '../index.ts';
import { modelFromAddress } from './model-param.ts';

/** Where the page finds its tools; a plain file, editable without a rebuild. */
const TOOLS_URL = './tools.js';

/** One file's download progress. */
interface FileProgress {
  loaded: number;
  total: number;
}

/** One turn as the page shows it. */
interface Turn {
  role: 'user' | 'assistant';
  text: string;
  calls: ToolCallRecord[];
  state: 'streaming' | 'done' | 'stopped' | 'failed';
}

type Phase = 'idle' | 'loading' | 'warming' | 'ready' | 'error';

/**
 * The root of the chat page: loads the model named in the address (`?model=…`) in a worker,
 * shows per-file progress and the device and dtype in use, and runs a streaming chat with the
 * tools `tools.js` registered.
 */
export class NexusApp extends LitElement {
  static override properties = {
    phase: { state: true },
    files: { state: true },
    loadError: { state: true },
    toolSchemas: { state: true },
    toolsError: { state: true },
    webgpu: { state: true },
    turns: { state: true },
    busy: { state: true },
  };

  static override styles = css`
    :host { display: block; max-width: 52rem; margin: 0 auto; padding: 1.5rem; font: 15px/1.5 system-ui, sans-serif; }
    h1 { font-size: 1.4rem; margin: 0 0 0.25rem; }
    .tagline { color: #667; margin: 0 0 1.25rem; }
    .status { font-size: 0.9rem; }
    .error { color: #b00020; white-space: pre-wrap; }
    progress { width: 12rem; vertical-align: middle; }
    .turn { margin: 0.75rem 0; white-space: pre-wrap; }
    .turn.user { font-weight: 600; }
    .call { font-size: 0.85rem; color: #556; }
    form { display: flex; gap: 0.5rem; margin-top: 1rem; }
    textarea { flex: 1; font: inherit; min-height: 2.5rem; }
    code { font-size: 0.9em; }
  `;

  /** Where loading stands. */
  declare phase: Phase;
  /** Download progress per model file. */
  declare files: Record<string, FileProgress>;
  /** Why the model could not be loaded, in words meant for the user. */
  declare loadError: string | undefined;
  /** The envelopes of the tools `tools.js` registered, once loaded. */
  declare toolSchemas: ToolSchema[] | undefined;
  /** Why `tools.js` could not be loaded. */
  declare toolsError: string | undefined;
  /** Whether this browser offers a WebGPU adapter (undefined while asking). */
  declare webgpu: boolean | undefined;
  /** The conversation as shown. */
  declare turns: Turn[];
  /** An answer is being generated. */
  declare busy: boolean;

  private chat: NexusChat | undefined;
  private stopController: AbortController | undefined;

  constructor() {
    super();
    this.phase = 'idle';
    this.files = {};
    this.turns = [];
    this.busy = false;
  }

  override connectedCallback(): void {
    super.connectedCallback();
    void this.detectWebGpu();
    void this.loadToolsFile();
    const source = modelFromAddress(location.search, location.href);
    if (source) void this.loadModel(source);
  }

  override render() {
    return html`
      <h1>Nexus Chat</h1>
      <p class="tagline">A small language model in this tab, made useful by calling tools.</p>
      ${this.renderRuntime()} ${this.renderModel()} ${this.renderConversation()} ${this.renderComposer()} ${this.renderTools()}
    `;
  }

  private renderRuntime() {
    if (this.webgpu === undefined) return html`<p class="status" data-testid="runtime">Checking for WebGPU…</p>`;
    return html`<p class="status" data-testid="runtime">
      ${this.webgpu ? 'WebGPU is available: the model will run on the GPU.' : 'No WebGPU adapter: the model will run on WASM (slower).'}
    </p>`;
  }

  private renderModel() {
    switch (this.phase) {
      case 'idle':
        return html`<p class="status" data-testid="model-status">No model loaded. Name one in the address, e.g. <code>?model=onnx-community/Qwen3-0.6B-ONNX</code>.</p>`;
      case 'loading':
        return html`<div data-testid="model-status">Loading the model… ${this.renderFiles()}</div>`;
      case 'warming':
        return html`<p class="status" data-testid="model-status">Warming up…</p>`;
      case 'error':
        return html`<p class="error" data-testid="model-status">${this.loadError}</p>`;
      case 'ready': {
        const info = this.chat?.info;
        return html`<p class="status" data-testid="model-status">Ready: ${info?.model} on ${info?.device === 'webgpu' ? 'WebGPU' : info?.device?.toUpperCase()} ${info?.dtype}</p>`;
      }
    }
  }

  private renderFiles() {
    return html`<ul>
      ${Object.entries(this.files).map(
        ([file, p]) => html`<li><code>${file}</code> <progress max=${p.total || 1} value=${p.loaded}></progress> ${formatBytes(p.loaded)} of ${formatBytes(p.total)}</li>`,
      )}
    </ul>`;
  }

  private renderConversation() {
    return html`<section data-testid="conversation">
      ${this.turns.map(
        (turn) => html`<div class="turn ${turn.role}" data-role=${turn.role} data-state=${turn.state}>
          ${turn.text}${turn.calls.map((call) => html`<div class="call">called ${call.name}(${formatArgs(call.arguments)}) → ${call.status}</div>`)}
        </div>`,
      )}
    </section>`;
  }

  private renderComposer() {
    if (this.phase !== 'ready') return nothing;
    return html`<form @submit=${this.handleSubmit}>
      <textarea name="prompt" data-testid="prompt" placeholder="Ask something…" ?disabled=${this.busy}></textarea>
      ${this.busy ? html`<button type="button" data-testid="stop" @click=${this.handleStop}>Stop</button>` : html`<button type="submit" data-testid="send">Send</button>`}
    </form>`;
  }

  private renderTools() {
    if (this.toolsError) return html`<p class="error" data-testid="tools-error">${this.toolsError}</p>`;
    if (!this.toolSchemas) return html`<p class="status">Loading tools…</p>`;
    return html`
      <h2>Tools</h2>
      <ul data-testid="tools">
        ${this.toolSchemas.map(({ function: fn }) => html`<li><code>${fn.name}</code>${fn.description ? html` — ${fn.description}` : nothing}</li>`)}
      </ul>
    `;
  }

  private async handleSubmit(event: SubmitEvent): Promise<void> {
    event.preventDefault();
    const form = event.target as HTMLFormElement;
    const field = form.elements.namedItem('prompt') as HTMLTextAreaElement;
    const prompt = field.value.trim();
    if (!prompt || !this.chat || this.busy) return;
    field.value = '';
    await this.ask(prompt);
  }

  private handleStop(): void {
    this.stopController?.abort();
  }

  private async ask(prompt: string): Promise<void> {
    const chat = this.chat;
    if (!chat) return;
    const answer: Turn = { role: 'assistant', text: '', calls: [], state: 'streaming' };
    this.turns = [...this.turns, { role: 'user', text: prompt, calls: [], state: 'done' }, answer];
    const update = (change: Partial<Turn>) => {
      Object.assign(answer, change);
      this.turns = [...this.turns];
    };
    const offToken = chat.on('token', (text) => update({ text: answer.text + text }));
    const offRound = chat.on('round', () => update({ text: '' }));
    const offCall = chat.on('toolCall', (call) => update({ calls: [...answer.calls, call] }));
    this.stopController = new AbortController();
    this.busy = true;
    try {
      const result = await chat.chat(prompt, { signal: this.stopController.signal });
      update({ text: result.text, state: 'done' });
    } catch (error) {
      const stopped = (error as { name?: string }).name === 'AbortError';
      update({ state: stopped ? 'stopped' : 'failed', text: stopped ? answer.text : `${answer.text}\n${(error as Error).message}` });
    } finally {
      offToken();
      offRound();
      offCall();
      this.busy = false;
    }
  }

  private async loadModel(source: ModelSource): Promise<void> {
    this.phase = 'loading';
    try {
      const chat = await NexusChat.load(source, {
        onProgress: (event: LoadProgress) => this.handleProgress(event),
      });
      this.chat = chat;
      await chat.loadTools(TOOLS_URL).catch((error: unknown) => {
        this.toolsError = error instanceof Error ? error.message : String(error);
      });
      this.phase = 'ready';
    } catch (error) {
      this.loadError = error instanceof Error ? error.message : String(error);
      this.phase = 'error';
    }
  }

  private handleProgress(event: LoadProgress): void {
    if (event.status === 'warmup') {
      this.phase = 'warming';
      return;
    }
    if (event.status === 'progress' && event.file) {
      this.files = { ...this.files, [event.file]: { loaded: event.loaded ?? 0, total: event.total ?? 0 } };
    }
  }

  private async detectWebGpu(): Promise<void> {
    const gpu = (navigator as Navigator & { gpu?: { requestAdapter(): Promise<unknown> } }).gpu;
    try {
      this.webgpu = Boolean(gpu && (await gpu.requestAdapter()));
    } catch {
      this.webgpu = false;
    }
  }

  private async loadToolsFile(): Promise<void> {
    try {
      const preview = new ToolRegistry();
      await loadTools(preview, TOOLS_URL);
      this.toolSchemas = preview.schemas;
    } catch (error) {
      this.toolsError = error instanceof Error ? error.message : String(error);
    }
  }
}

function formatBytes(bytes: number): string {
  if (!bytes) return '…';
  return bytes < 1024 * 1024 ? `${(bytes / 1024).toFixed(0)} KB` : `${(bytes / 1024 / 1024).toFixed(1)} MB`;
}

function formatArgs(args: Record<string, unknown>): string {
  return Object.entries(args)
    .map(([k, v]) => `${k}: ${typeof v === 'string' ? v : JSON.stringify(v)}`)
    .join(', ');
}

customElements.define('nexus-app', NexusApp);

declare global {
  interface HTMLElementTagNameMap {
    'nexus-app': NexusApp;
  }
}
