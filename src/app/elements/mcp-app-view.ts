/**
 * A tool's MCP Apps view under its line (the `io.modelcontextprotocol/ui` extension): the server's HTML in the
 * app server's sandbox page (src/server/mcp-app-sandbox.ts), which frames it again, sandboxed; this element is
 * the host end of the extension's JSON-RPC over `postMessage`, through the extension's own `AppBridge`. Loaded with
 * the first call that has a view.
 *
 * What a view may ask of the page: its tool's arguments and result (sent once it is initialised), a call of a
 * tool of its own server (asked of the user first, as the model's calls are), text for the message box (never
 * sent by itself), a link to open (shown in the page's link dialog first), and its height. Nothing else is
 * offered: no context for the model, no sampling, no resources but its own.
 */
import { LitElement, css, html, nothing } from 'lit';
import type { AppBridge } from '@modelcontextprotocol/ext-apps/app-bridge';
import type { McpAppCall, McpAppResource } from '../../internal.ts';
import { fire } from '../state/app-actions.ts';

/** Where the page frames views from. */
const SANDBOX_PAGE = '/mcp-app-sandbox.html';
/** The frame's sandbox: scripts and forms only (no same-origin, no top navigation, no popups), as the sandbox page's policy says again. */
const FRAME_SANDBOX = 'allow-scripts allow-forms';
/** The heights a view may ask for, in CSS pixels. */
const HEIGHTS = { first: 160, least: 48, most: 720 };

/** The view of one call. */
export class McpAppView extends LitElement {
  static override properties = {
    call: { attribute: false },
    resource: { state: true },
    error: { state: true },
    height: { state: true },
  };

  static override styles = css`
    :host {
      display: block;
      margin: 0.4rem 0 0.2rem;
    }
    iframe {
      display: block;
      width: 100%;
      border: 1px solid var(--border, #ccc);
      border-radius: var(--radius, 6px);
      background: var(--surface, transparent);
    }
    .failed {
      margin: 0;
      color: var(--muted, #666);
      font-size: 0.9em;
    }
  `;

  /** The call whose view this shows: its server, the view's `ui://` address, the arguments and the result. */
  declare call: McpAppCall;
  /** The view, once read from its server. */
  declare resource: McpAppResource | undefined;
  /** Why the view cannot be shown, in words. */
  declare error: string | undefined;
  /** The frame's height, as the view last asked (bounded). */
  declare height: number;

  private bridge: AppBridge | undefined;
  private opened = false;

  constructor() {
    super();
    this.height = HEIGHTS.first;
  }

  override connectedCallback(): void {
    super.connectedCallback();
    // Back in the page after leaving it (a re-rendered list): shown again. A first connection waits for `call`,
    // which Lit sets only at the first update where the element was defined after its property was bound.
    if (this.hasUpdated && this.call && !this.opened) void this.handleOpen();
  }

  override updated(changed: Map<string, unknown>): void {
    if (changed.has('call') && this.call && !this.opened && this.isConnected) void this.handleOpen();
  }

  override disconnectedCallback(): void {
    super.disconnectedCallback();
    void this.bridge?.close().catch(() => undefined);
    this.bridge = undefined;
    this.opened = false;
    this.resource = undefined;
  }

  override render() {
    if (this.error) return html`<p class="failed" data-testid="mcp-app-error">The app of this tool cannot be shown: ${this.error}.</p>`;
    return this.resource ? this.renderFrame(this.resource) : nothing;
  }

  private renderFrame(resource: McpAppResource) {
    const src = `${SANDBOX_PAGE}?csp=${encodeURIComponent(JSON.stringify(resource.domains))}`;
    return html`<iframe
      data-testid="mcp-app"
      data-uri=${resource.uri}
      title=${`App of ${this.call.tool}`}
      sandbox=${FRAME_SANDBOX}
      referrerpolicy="no-referrer"
      style=${`height:${this.height}px`}
      src=${src}
    ></iframe>`;
  }

  /** Reads the view, frames the sandbox page and connects the bridge before the page inside it can speak. */
  private async handleOpen(): Promise<void> {
    this.opened = true;
    const [read, { AppBridge, PostMessageTransport }] = await Promise.all([
      fire(this, { type: 'openMcpApp', server: this.call.server, uri: this.call.uri }),
      import('@modelcontextprotocol/ext-apps/app-bridge'),
    ]);
    if (!read || 'error' in read) {
      this.error = read?.error ?? 'the page did not answer';
      return;
    }
    this.resource = read;
    await this.updateComplete;
    const frame = this.renderRoot.querySelector('iframe');
    const target = frame?.contentWindow;
    if (!frame || !target || !this.isConnected) return;
    const bridge = new AppBridge(
      null,
      { name: 'Nexus Chat', version: '1' },
      { serverTools: {}, message: { text: {} }, openLinks: {}, sandbox: { csp: read.domains } },
      {
        hostContext: {
          theme: matchMedia('(prefers-color-scheme: dark)').matches ? 'dark' : 'light',
          displayMode: 'inline',
          availableDisplayModes: ['inline'],
          platform: 'web',
          toolInfo: { tool: { name: this.call.tool, inputSchema: { type: 'object' } } },
        },
      },
    );
    this.bridge = bridge;
    bridge.onsandboxready = () => void bridge.sendSandboxResourceReady({ html: read.html, csp: read.domains });
    bridge.oninitialized = () => this.handleInitialized(bridge);
    bridge.onsizechange = ({ height }) => this.handleSize(height);
    bridge.oncalltool = async (params) =>
      (await fire(this, { type: 'callMcpAppTool', server: this.call.server, name: params.name, arguments: params.arguments ?? {} })) as never;
    // A link it asks to open goes through the page's link dialog (its address in full); the answer's element shows it.
    bridge.onopenlink = async ({ url }) => {
      this.dispatchEvent(new CustomEvent('open-link', { detail: String(url).slice(0, 8_192) }));
      return {};
    };
    bridge.onmessage = async ({ content }) => {
      const text = content.flatMap((part) => (part.type === 'text' ? [part.text] : [])).join('\n');
      if (text.trim()) await fire(this, { type: 'mcpAppMessage', text: text.slice(0, 20_000) });
      return {};
    };
    // Messages are taken only from the sandbox page's window (the transport checks each message's source).
    await bridge.connect(new PostMessageTransport(target, target));
  }

  /** The view is ready: it gets its call's arguments, then its result (the extension's order). */
  private handleInitialized(bridge: AppBridge): void {
    void bridge
      .sendToolInput({ arguments: this.call.arguments })
      .then(() => bridge.sendToolResult(this.call.result as never))
      .catch(() => undefined);
  }

  private handleSize(height: number | undefined): void {
    if (typeof height !== 'number' || !Number.isFinite(height)) return;
    this.height = Math.min(HEIGHTS.most, Math.max(HEIGHTS.least, Math.ceil(height)));
  }
}

customElements.define('nexus-mcp-app', McpAppView);
