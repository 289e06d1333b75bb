import { McpServers, type McpServerStatus, type ToolRegistry } from '../../internal.ts';
import type { ActionHandlers, McpAction } from '../state/app-actions.ts';
import type { ToolInfo } from '../state/app-state.ts';
import type { McpPageClient, McpPageClientHost } from './mcp-page-client.ts';
import type { SavedMcpServer } from '../conversation/persistence.ts';
import { serverName } from './server-names.ts';
import type { StoreDeps } from '../state/store-deps.ts';

/** What the MCP session needs of the page's store: what its page client needs, and where the servers are listed. */
export interface McpHost extends McpPageClientHost {
  /** The servers changed (connected, down, their tools): the store lists them with the tools. */
  listed(servers: readonly McpServerStatus[]): void;
  /** Puts a text into the message box, not sent (the answers part writes what the box is given back). */
  compose(text: string): void;
}

/**
 * The MCP part of the page's store: the servers the page takes tools from (those `tools.js` names, those the
 * user added, those the app server relays to), what they ask of the user and offer beside tools (through the
 * page's MCP client, loaded with the first server), and the saved list. The servers outlive any one model.
 */
export class McpSession {
  /** Every server the page takes tools from. */
  readonly servers: McpServers;
  /** What servers ask of the user, and offer beside tools: loaded with the first server. */
  private pageClient: Promise<McpPageClient> | undefined;
  /** The servers the user added, as saved. */
  private saved: SavedMcpServer[] = [];

  /** The MCP slice's actions, which the store's one dispatch routes here (see app-actions.ts). */
  readonly actions: ActionHandlers<McpAction> = {
    addMcpServer: ({ url, trust }) => this.add(url, trust === true),
    removeMcpServer: ({ url }) => this.remove(url),
    retryMcpServer: ({ url }) => this.servers.retry(url),
    answerMcpRequest: ({ id, answer }) => void this.client().then((client) => client.answer(id, answer)),
    attachMcpResource: async ({ url, uri }) => (await this.client()).attach(this.servers, url, uri),
    useMcpPrompt: ({ url, name }) => this.usePrompt(url, name),
    openMcpApp: async ({ server, uri }) => (await this.client()).openApp(this.servers, server, uri),
    callMcpAppTool: async ({ server, name, arguments: args }) => (await this.client()).callForApp(this.servers, server, name, args),
    mcpAppMessage: ({ text }) => this.host.compose(text),
  };

  constructor(
    private readonly host: McpHost,
    private readonly deps: StoreDeps,
    registry: ToolRegistry,
  ) {
    this.servers = new McpServers(registry, {
      ...(deps.fetch ? { fetch: deps.fetch } : {}),
      client: async (server) => (await this.client()).handlers(server),
      ...deps.mcpOptions,
    });
    this.servers.subscribe((servers) => {
      if (servers.length || this.pageClient) void this.client().then((client) => client.refresh(this.servers, servers));
      host.listed(servers);
    });
  }

  /** Connects the saved servers and asks the app server for those it relays to; each connects on its own. */
  restore(saved: SavedMcpServer[]): void {
    this.saved = saved;
    this.declareSaved();
    void this.loadRelayed();
  }

  /** Another tab changed the saved servers: read them again. */
  async reloadSaved(): Promise<void> {
    this.saved = await this.deps.persistence.loadMcpServers().catch(() => this.saved);
    this.declareSaved();
  }

  /** The name of the server a tool comes from, as the page shows it; undefined for a tool of no server. */
  serverLabel(tool: string): string | undefined {
    const server = this.servers.serverOf(tool);
    return server && serverName(server, this.servers.list());
  }

  /** The tools of a registry as the panel lists them, each MCP tool with its server. */
  describe(registry: ToolRegistry): ToolInfo[] {
    return registry.names.flatMap((name) => {
      const tool = registry.get(name);
      const server = this.serverLabel(name);
      const changed = this.servers.serverOf(name)?.changed?.includes(name) === true;
      return tool
        ? [{ schema: tool.schema, confirm: tool.confirm, readOnly: tool.readOnly, ...(server ? { server } : {}), ...(changed ? { changed } : {}) }]
        : [];
    });
  }

  /**
   * Adds a server by its address; it connects at once and is remembered.
   * @param url - its MCP endpoint.
   * @param trust - run its tools that are not marked read-only without asking.
   * @returns an error message for an address that cannot be used, else undefined.
   */
  private async add(url: string, trust: boolean): Promise<string | undefined> {
    const address = url.trim();
    try {
      const parsed = new URL(address);
      if (parsed.protocol !== 'http:' && parsed.protocol !== 'https:') throw new Error('not http');
    } catch {
      return `"${address}" is not an http(s) address. Give the server's MCP endpoint, such as http://127.0.0.1:3001/mcp.`;
    }
    if (this.host.state().mcp.some((server) => server.url === address)) return `${address} is already in the list.`;
    this.saved = [...this.saved, { url: address, ...(trust ? { trust: true } : {}) }];
    this.declareSaved();
    await this.save();
    return undefined;
  }

  /** Removes a server the user added; its tools go with it. */
  private async remove(url: string): Promise<void> {
    this.saved = this.saved.filter((server) => server.url !== url);
    this.declareSaved();
    await this.save();
  }

  /**
   * Puts a server's prompt into the message box (not sent: the user reads it first); a prompt with
   * arguments asks for them in a form first.
   */
  private async usePrompt(url: string, name: string): Promise<void> {
    const text = await (await this.client()).usePrompt(this.servers, url, name);
    if (text) this.host.compose(text);
  }

  /** The page's MCP client part, loaded when first needed (a page without servers never fetches it). */
  private client(): Promise<McpPageClient> {
    const signIn = this.deps.mcpSignIn;
    this.pageClient ??= Promise.all([import('./mcp-page-client.ts'), typeof signIn === 'function' ? signIn() : signIn]).then(
      ([{ McpPageClient }, deps]) =>
        // The client needs of the page what this session does (its state, the chat, progress and logs).
        new McpPageClient(this.host, deps),
    );
    return this.pageClient;
  }

  private async save(): Promise<void> {
    await this.deps.persistence.saveMcpServers(this.saved).catch(() => undefined);
    this.deps.tabs?.post({ kind: 'mcp' });
  }

  private declareSaved(): void {
    this.servers.declare(
      'settings',
      this.saved.map((server) => ({ url: server.url, ...(server.trust ? { trust: true } : {}) })),
    );
  }

  /** The servers the app server relays to (none where it lists none, or is not Nexus Chat's). */
  private async loadRelayed(): Promise<void> {
    const listUrl = this.deps.mcpRelayUrl;
    if (!listUrl) return;
    try {
      const response = await (this.deps.fetch ?? globalThis.fetch)(listUrl, { headers: { accept: 'application/json' } });
      if (!response.ok || !/json/.test(response.headers.get('content-type') ?? '')) return;
      const { servers } = (await response.json()) as { servers?: { url: string; label?: string; trust?: boolean }[] };
      this.servers.declare(
        'relay',
        (servers ?? []).map((server) => ({
          url: new URL(server.url, new URL(listUrl, globalThis.location?.href)).href,
          ...(server.label ? { label: server.label } : {}),
          ...(server.trust ? { trust: true } : {}),
        })),
      );
    } catch {
      // No relay: only the servers tools.js and the user name.
    }
  }
}
