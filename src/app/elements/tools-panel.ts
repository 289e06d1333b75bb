import { LitElement, html, nothing } from 'lit';
import type { AppState, ToolInfo } from '../state/app-state.ts';
import { describeToolSearch } from './tool-search-line.ts';
import { toolsPanelStyles } from './tools-panel-styles.ts';
import { fire } from '../state/app-actions.ts';
import { serverName } from '../mcp/server-names.ts';

/** What `tools.js` registered (name, description, parameters), a reload button, and load errors. */
export class ToolsPanel extends LitElement {
  static override properties = {
    tools: { attribute: false },
    servers: { attribute: false },
    extras: { attribute: false },
    addError: { state: true },
    filter: { state: true },
  };

  /** What the user typed to narrow the list: matched against names, descriptions and servers. */
  declare filter: string;

  /** The tools state, from the store. */
  declare tools: AppState['tools'];
  /** The MCP servers and where each stands, from the store. */
  declare servers: AppState['mcp'];
  /** What each server offers beside tools (resources to attach), its log and any sign-in it asks for. */
  declare extras: AppState['mcpExtras'];
  /** Why the address typed into "Add a server" was refused. */
  declare addError: string | undefined;

  static override styles = toolsPanelStyles;

  override render() {
    const { list, error, loading, url } = this.tools;
    return html`<div class="head">
        <p class="muted">From <code>${url}</code>: edit the file, then reload.</p>
        <button class="small" data-testid="reload-tools" ?disabled=${loading} @click=${() => fire(this, { type: 'reloadTools' })}>${loading ? 'Loading…' : 'Reload'}</button>
      </div>
      ${
        error
          ? html`<div class="error" role="alert" data-testid="tools-error">
            <strong>${list?.length ? 'The file could not be loaded; the previous tools stay in use.' : 'The tools could not be loaded.'}</strong>${error}
          </div>`
          : nothing
      }
      ${this.renderServers()}
      ${this.renderToolSearch()}
      ${this.renderLastOffered()}
      ${list ? this.renderList(list) : loading ? html`<p class="muted">Loading tools…</p>` : nothing}`;
  }

  /** The tools, with a filter once there are enough to need one. */
  private renderList(list: readonly ToolInfo[]) {
    const words = (this.filter ?? '').toLowerCase().split(/\s+/).filter(Boolean);
    const shown = words.length ? list.filter((tool) => words.every((word) => toolText(tool).includes(word))) : list;
    return html`${
      list.length > 6
        ? html`<input class="field filter" type="search" data-testid="tools-filter" placeholder="Filter ${list.length} tools" aria-label="Filter tools" .value=${this.filter ?? ''} @input=${(e: Event) => (this.filter = (e.target as HTMLInputElement).value)} />`
        : nothing
    }
      ${shown.length || !words.length ? html`<ul data-testid="tools">${shown.map((tool) => this.renderTool(tool))}</ul>` : html`<p class="muted" data-testid="tools-none">No tool matches “${this.filter}”.</p>`}`;
  }

  /** The MCP servers: where each stands, Retry for one that is down, Remove for one the user added, and Add. */
  private renderServers() {
    const servers = this.servers ?? [];
    return html`<section class="servers" aria-labelledby="mcp-heading" data-testid="mcp-servers">
      <h3 id="mcp-heading">MCP servers</h3>
      ${servers.length ? html`<ul>${servers.map((server) => this.renderServer(server))}</ul>` : html`<p class="muted">None yet. Add one by its address, or name it in tools.js with mcp(url).</p>`}
      <form class="add" @submit=${this.handleAddServer}>
        <input type="url" name="url" required placeholder="https://example.org/mcp" aria-label="MCP server address" data-testid="mcp-url" />
        <label><input type="checkbox" name="trust" data-testid="mcp-trust" /> run its actions without asking</label>
        <button class="small" type="submit" data-testid="mcp-add">Add</button>
      </form>
      ${this.addError ? html`<p class="warning" role="alert" data-testid="mcp-add-error">${this.addError}</p>` : nothing}
    </section>`;
  }

  /** A server's name, with its host where another server has the same name (two "shop" servers). */
  private nameOf(server: AppState['mcp'][number]): string {
    return serverName(server, this.servers ?? []);
  }

  private renderServer(server: AppState['mcp'][number]) {
    const where = { 'tools.js': 'from tools.js', relay: 'relayed by the app server', settings: 'added here' }[server.source] ?? server.source;
    const state =
      server.phase === 'connected'
        ? `connected · ${server.tools.length} tool${server.tools.length === 1 ? '' : 's'}`
        : server.phase === 'connecting'
          ? 'connecting…'
          : `down${server.retryInMs ? ` · trying again in ${Math.max(1, Math.round(server.retryInMs / 1000))} s` : ''}`;
    const skipped = server.skipped.length ? `Left out: ${server.skipped.map((s) => `${s.name} (${s.reason})`).join('; ')}` : '';
    return html`<li class="server" data-testid="mcp-server" data-phase=${server.phase} data-url=${server.url}>
      <div>
        <strong data-testid="mcp-name">${this.nameOf(server)}</strong>
        <span class=${server.phase === 'down' ? 'badge warn' : 'badge'}>${state}</span>
        <span class="muted">${where}</span>
      </div>
      <div class="actions">
        ${server.phase === 'down' ? html`<button class="small" data-testid="mcp-retry" @click=${() => fire(this, { type: 'retryMcpServer', url: server.url })}>Retry</button>` : nothing}
        ${
          server.source === 'settings'
            ? html`<button class="small" data-testid="mcp-remove" aria-label=${`Remove ${this.nameOf(server)}`} @click=${() => fire(this, { type: 'removeMcpServer', url: server.url })}>Remove</button>`
            : nothing
        }
      </div>
      ${server.phase === 'down' && server.error ? html`<p class="why warning" data-testid="mcp-error">Its tools are not offered: ${server.error}</p>` : nothing}
      ${skipped ? html`<p class="why muted">${skipped}</p>` : nothing}
      ${this.renderServerExtras(server)}
    </li>`;
  }

  /** A sign-in the server asks for, its resources to attach, and its log. */
  private renderServerExtras(server: AppState['mcp'][number]) {
    const extras = this.extras?.[server.url];
    if (!extras) return nothing;
    const resources = server.phase === 'connected' ? extras.resources : [];
    return html`${
      extras.signIn
        ? html`<p class="why warning" data-testid="mcp-sign-in-needed">
            ${server.label} asks you to sign in before it lists its tools.
            <button class="small primary" data-testid="mcp-sign-in" @click=${() => this.handleSignIn(extras.signIn ?? '')}>Sign in</button>
          </p>`
        : nothing
    }
      ${
        resources.length
          ? html`<details data-testid="mcp-resources">
              <summary>${resources.length} resource${resources.length === 1 ? '' : 's'} to attach</summary>
              <ul>
                ${resources.map(
                  (r) => html`<li>
                    <span title=${r.description ?? r.uri}>${r.name || r.uri}</span>
                    <button class="small" data-testid="mcp-attach" aria-label=${`Attach ${r.name || r.uri} to your next message`} @click=${() => fire(this, { type: 'attachMcpResource', url: server.url, uri: r.uri })}>Attach</button>
                  </li>`,
                )}
              </ul>
            </details>`
          : nothing
      }
      ${
        extras.log.length
          ? html`<details data-testid="mcp-log">
              <summary>Log (${extras.log.length})</summary>
              <ul>${extras.log.map((line) => html`<li><span class="badge">${line.level}</span> ${line.text}</li>`)}</ul>
            </details>`
          : nothing
      }`;
  }

  /** Opens the server's sign-in page in a window of its own (from the click: no popup blocker). */
  private handleSignIn(address: string): void {
    if (/^https?:\/\//i.test(address)) window.open(address, 'nexus-mcp-sign-in', 'popup,noopener,width=520,height=700');
  }

  private async handleAddServer(event: SubmitEvent): Promise<void> {
    event.preventDefault();
    const form = event.currentTarget as HTMLFormElement;
    const data = new FormData(form);
    this.addError = await fire(this, { type: 'addMcpServer', url: String(data.get('url') ?? ''), trust: data.get('trust') === 'on' });
    if (!this.addError) form.reset();
  }

  /** Where finding tools by meaning stands, once it matters (see {@link describeToolSearch}). */
  private renderToolSearch() {
    const search = this.tools.search;
    const line = describeToolSearch(search);
    if (!line) return nothing;
    return html`<div class=${line.failed ? 'warning' : 'muted'} data-testid="tool-search" data-state=${search?.state ?? nothing}>
      ${line.text} ${line.why ? html`<details><summary>Why</summary>${line.why}</details>` : nothing}
    </div>`;
  }

  /** With many tools, each answer sees only some: which the last one saw, and why. */
  private renderLastOffered() {
    const offered = this.tools.lastOffered;
    if (!offered) return nothing;
    const words: Record<string, string> = {
      lexical: 'matched your words',
      semantic: 'matched your meaning',
      combined: 'matched words and meaning',
      called: 'already used in this conversation',
      named: 'you named it',
      always: 'always offered',
      finder: 'lets the model find more',
      group: `the model picked its group${this.tools.lastGroup ? ` (${this.tools.lastGroup})` : ''}`,
    };
    return html`<section class="offered" data-testid="last-offered">
      <h3>Offered for the last answer (${Object.keys(offered).length} of ${this.tools.list?.length ?? '?'} tools)</h3>
      <ul>
        ${Object.entries(offered).map(([name, why]) => html`<li><code>${name}</code> <span class="muted">${words[why] ?? why}</span></li>`)}
      </ul>
    </section>`;
  }

  private renderTool({ schema, confirm, readOnly, server, changed }: ToolInfo) {
    const fn = schema.function;
    const required = new Set(fn.parameters.required ?? []);
    const params = Object.entries(fn.parameters.properties);
    return html`<li>
      <div class="name">
        <code>${fn.name}</code>
        ${confirm ? html`<span class="badge warn">asks before running</span>` : nothing}
        ${readOnly ? html`<span class="badge">read-only</span>` : nothing}
        ${server ? html`<span class="muted" data-testid="tool-server">from ${server}</span>` : nothing}
        ${changed ? html`<span class="badge warn" data-testid="tool-changed" title="Its server changed what this tool says it does since it was first listed; it asks again before running.">changed by its server</span>` : nothing}
      </div>
      <p class="description">${fn.description}</p>
      ${
        params.length
          ? html`<table>
            <thead><tr><th>parameter</th><th>type</th><th>description</th></tr></thead>
            <tbody>
              ${params.map(
                ([name, p]) => html`<tr>
                  <td><code>${name}</code>${required.has(name) ? '' : html` <span class="muted">(optional)</span>`}</td>
                  <td class="type">${describeType(p)}</td>
                  <td>${typeof p.description === 'string' ? p.description : ''}</td>
                </tr>`,
              )}
            </tbody>
          </table>`
          : html`<p class="muted">No parameters.</p>`
      }
    </li>`;
  }
}

function describeType(schema: { readonly [keyword: string]: unknown }): string {
  if (Array.isArray(schema.enum)) return schema.enum.map((v) => JSON.stringify(v)).join(' | ');
  if (schema.type === 'array') {
    const items = schema.items as { type?: unknown } | undefined;
    return `${typeof items?.type === 'string' ? items.type : 'any'}[]`;
  }
  return typeof schema.type === 'string' ? schema.type : 'any';
}

customElements.define('nexus-tools-panel', ToolsPanel);

declare global {
  interface HTMLElementTagNameMap {
    'nexus-tools-panel': ToolsPanel;
  }
}

/** A tool as searchable text: its name (with spaces for underscores), description and server. */
function toolText({ schema, server }: ToolInfo): string {
  const fn = schema.function;
  return `${fn.name} ${fn.name.replace(/_/g, ' ')} ${fn.description} ${server ?? ''}`.toLowerCase();
}
