import { LitElement, css, html, nothing } from 'lit';
import { ToolRegistry, loadTools, type ToolSchema } from '../tools/index.ts';

/** Where the page finds its tools; a plain file, editable without a rebuild. */
const TOOLS_URL = './tools.js';

/**
 * The root of the chat page. For now it shows what the page can run on and which tools
 * `tools.js` registered; the model loader and the chat arrive with the engine and page issues.
 */
export class NexusApp extends LitElement {
  static override properties = {
    toolSchemas: { state: true },
    toolsError: { state: true },
    webgpu: { state: true },
  };

  static override styles = css`
    :host {
      display: block;
      max-width: 52rem;
      margin: 0 auto;
      padding: 1.5rem;
      font: 15px/1.5 system-ui, sans-serif;
    }
    h1 { font-size: 1.4rem; margin: 0 0 0.25rem; }
    .tagline { color: #667; margin: 0 0 1.25rem; }
    .status { font-size: 0.9rem; }
    .error { color: #b00020; white-space: pre-wrap; }
    ul { padding-left: 1.2rem; }
    code { font-size: 0.9em; }
  `;

  /** The envelopes of the tools `tools.js` registered, once loaded. */
  declare toolSchemas: ToolSchema[] | undefined;
  /** Why `tools.js` could not be loaded, in words meant for the user. */
  declare toolsError: string | undefined;
  /** Whether this browser offers a WebGPU adapter (undefined while asking). */
  declare webgpu: boolean | undefined;

  private readonly registry = new ToolRegistry();

  override connectedCallback(): void {
    super.connectedCallback();
    void this.detectWebGpu();
    void this.loadToolsFile();
  }

  override render() {
    return html`
      <h1>Nexus Chat</h1>
      <p class="tagline">A small language model in this tab, made useful by calling tools.</p>
      ${this.renderRuntime()} ${this.renderTools()}
    `;
  }

  private renderRuntime() {
    if (this.webgpu === undefined) return html`<p class="status" data-testid="runtime">Checking for WebGPU…</p>`;
    return html`<p class="status" data-testid="runtime">
      ${this.webgpu ? 'WebGPU is available: the model will run on the GPU.' : 'No WebGPU adapter: the model will run on WASM (slower).'}
    </p>`;
  }

  private renderTools() {
    if (this.toolsError) return html`<p class="error" data-testid="tools-error">${this.toolsError}</p>`;
    if (!this.toolSchemas) return html`<p class="status">Loading tools…</p>`;
    return html`
      <h2>Tools</h2>
      <ul data-testid="tools">
        ${this.toolSchemas.map(
          ({ function: fn }) => html`<li><code>${fn.name}</code>${fn.description ? html` — ${fn.description}` : nothing}</li>`,
        )}
      </ul>
    `;
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
      await loadTools(this.registry, TOOLS_URL);
      this.toolSchemas = this.registry.schemas;
    } catch (error) {
      this.toolsError = error instanceof Error ? error.message : String(error);
    }
  }
}

customElements.define('nexus-app', NexusApp);

declare global {
  interface HTMLElementTagNameMap {
    'nexus-app': NexusApp;
  }
}
