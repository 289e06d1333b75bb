import type { McpConnectOptions, McpServerEntry } from './mcp-options.ts';
import type { McpConnection } from './mcp-tools.ts';

export type { McpServerEntry } from './mcp-options.ts';
import type { ToolRegistry } from './tool-registry.ts';

/** Where a server stands. */
export type McpServerPhase = 'connecting' | 'connected' | 'down';

/** A server's state, as the tools panel shows it. Frozen; a change makes a new one. */
export interface McpServerStatus {
  readonly url: string;
  /** The entry's label, else the server's own name once known, else the address. */
  readonly label: string;
  /** Who declared it: `'tools.js'`, `'relay'`, `'settings'`, or a library caller's name. */
  readonly source: string;
  readonly phase: McpServerPhase;
  /** Its registered tool names while connected; none otherwise (a server that is down offers nothing). */
  readonly tools: readonly string[];
  /** Tools it listed that were left out, with why. */
  readonly skipped: readonly { name: string; reason: string }[];
  /** Its registered tools whose description, schema or hints changed since it first listed them. */
  readonly changed?: readonly string[];
  /** Why it is down (or why the last attempt failed). */
  readonly error?: string;
  /** When down: milliseconds until the next attempt. */
  readonly retryInMs?: number;
}

/** Options of {@link McpServers}. */
export interface McpServersOptions {
  /** The `fetch` connections use (default the global one). */
  fetch?: typeof globalThis.fetch;
  /** Ping period of each connection, so a server restart is noticed between calls (default 15 s; 0 turns it off). */
  heartbeatMs?: number;
  /** Reconnection delays: the first, doubled after each failure up to the last (default 1 s to 30 s). */
  backoff?: { readonly firstMs?: number; readonly maxMs?: number };
  /**
   * What every connection answers the server with, by server (a page's dialogs for elicitation and
   * sampling, its progress and log lines, its sign-in window); an entry's own options win.
   */
  client?: (server: McpClientServer) => McpClientHandlers | Promise<McpClientHandlers>;
  /** Timers (tests pass fake ones). */
  timers?: { setTimeout: (run: () => void, ms: number) => unknown; clearTimeout: (handle: unknown) => void };
}

/**
 * The server a client handler serves: its address, what it is called now, and whether the user trusts it.
 * A server is known by {@link McpClientServer.address}: allowances, dialogs and logs key on it, and the
 * name a server gives itself (or a label) is display only — another server may call itself the same.
 */
export interface McpClientServer {
  readonly url: string;
  /** Its identity: the endpoint's origin and path ({@link mcpServerAddress}). */
  readonly address: string;
  label(): string;
  readonly trusted: boolean;
}

/** Query parameters whose values are credentials rather than names: shown by a digest, never as written. */
const SECRET_PARAMETER = /token|key|secret|pass|auth|sig|session|credential|code/i;

/**
 * An MCP server's identity: its whole endpoint as the browser reaches it (the host in punycode, the default port
 * dropped), query included, without user info or fragment. Gateways name the servers they host by query
 * (`…/mcp?server=notes`), so two queries are two servers: an allowance given to one is not the other's (issue 67,
 * L5). A parameter that holds a credential (`api_key`, `token`, …) is written as a digest of its value, so the
 * identity still tells two apart while dialogs and logs never show the secret.
 *
 * @param url - the endpoint as configured.
 * @returns for example `https://mcp.example.com/notes/mcp` or `https://gw.example/mcp?server=notes`; the text
 *   itself where it is not a URL.
 */
export function mcpServerAddress(url: string): string {
  try {
    const parsed = new URL(url);
    const query = [...parsed.searchParams]
      .map(([name, value]) => `${encodeURIComponent(name)}=${SECRET_PARAMETER.test(name) ? `~${digest(value)}` : encodeURIComponent(value)}`)
      .join('&');
    return `${parsed.origin}${parsed.pathname}${query ? `?${query}` : ''}`;
  } catch {
    return url;
  }
}

/** A short digest of a value (FNV-1a, 32 bits, hex): enough to tell two credentials apart, not to recover one. */
function digest(value: string): string {
  let hash = 0x811c9dc5;
  for (let i = 0; i < value.length; i++) hash = Math.imul(hash ^ value.charCodeAt(i), 0x01000193) >>> 0;
  return hash.toString(16).padStart(8, '0');
}

/** The options of a connection that answer the server's own requests and notifications. */
export type McpClientHandlers = Pick<
  McpConnectOptions,
  'apps' | 'elicit' | 'sample' | 'roots' | 'onProgress' | 'onUserContent' | 'logLevel' | 'onLog' | 'oauth'
>;

interface Server {
  entry: McpServerEntry;
  source: string;
  status: McpServerStatus;
  connection?: McpConnection;
  /** Bumped when the server is dropped or retried, so a late connection of an earlier attempt closes itself. */
  attempt: number;
  failures: number;
  retry?: unknown;
  settled: Promise<void>;
}

/** Times in a row a server that does not answer is tried again by itself (about two minutes with the default backoff); then Retry. */
const MAX_RETRIES = 8;

/**
 * The MCP servers a chat takes tools from, kept connected: each connects on its own (one that hangs
 * or fails never holds up the others), its tools join the registry while it is connected and leave
 * it while it is down, and a server that went away is tried again with backoff until it is back.
 * Servers come from several places (`tools.js`, the app server's relay, the user's settings), each
 * declared as a whole list that replaces what that place declared before.
 */
export class McpServers {
  private readonly servers = new Map<string, Server>();
  private readonly listeners = new Set<(servers: readonly McpServerStatus[]) => void>();
  private readonly timers: NonNullable<McpServersOptions['timers']>;
  private registry: ToolRegistry;
  private closed = false;

  /**
   * @param registry - where connected servers' tools go.
   * @param options - fetch, heartbeat, backoff, timers.
   */
  constructor(
    registry: ToolRegistry,
    private readonly options: McpServersOptions = {},
  ) {
    this.registry = registry;
    this.timers = options.timers ?? {
      setTimeout: (run, ms) => globalThis.setTimeout(run, ms),
      clearTimeout: (handle) => globalThis.clearTimeout(handle as ReturnType<typeof setTimeout>),
    };
  }

  /** Every server's state, in the order declared. */
  list(): readonly McpServerStatus[] {
    return [...this.servers.values()].map((server) => server.status);
  }

  /** Calls `listener` after every change of any server's state; returns the unsubscribe function. */
  subscribe(listener: (servers: readonly McpServerStatus[]) => void): () => void {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }

  /**
   * Makes `entries` the servers `source` declares: new addresses connect, addresses it no longer
   * lists are closed and their tools removed; an address another source already declared stays with it.
   * @param source - who declares them (`'tools.js'`, `'relay'`, `'settings'`, …).
   * @param entries - the servers.
   */
  declare(source: string, entries: readonly McpServerEntry[]): void {
    if (this.closed) return;
    const wanted = new Map(entries.map((entry) => [entry.url, entry]));
    for (const [url, server] of this.servers) {
      if (server.source === source && !wanted.has(url)) this.drop(url);
    }
    for (const entry of wanted.values()) {
      const current = this.servers.get(entry.url);
      if (current && (current.source !== source || sameEntry(current.entry, entry))) continue;
      if (current) this.drop(entry.url);
      this.add(source, entry);
    }
  }

  /** Resolves once every server declared so far has connected or failed its first attempt. */
  async ready(): Promise<readonly McpServerStatus[]> {
    await Promise.all([...this.servers.values()].map((server) => server.settled));
    return this.list();
  }

  /**
   * Moves the connected servers' tools into `registry` (the chat's, once a model is loaded), or puts
   * them back into the same one after its tool set was restored (a reloaded `tools.js` drops them).
   */
  attach(registry: ToolRegistry = this.registry): void {
    this.registry = registry;
    for (const server of this.servers.values()) {
      if (!server.connection) continue;
      server.connection.attach(registry);
      this.update(server, { tools: server.connection.tools, skipped: server.connection.skipped, changed: server.connection.changed });
    }
  }

  /** Tries a server that is down again now, instead of at its next scheduled attempt. */
  retry(url: string): void {
    const server = this.servers.get(url);
    if (server?.status.phase !== 'down') return;
    this.timers.clearTimeout(server.retry);
    // The user asked: the count of tries in a row starts over.
    server.failures = 0;
    this.connect(server);
  }

  /** The server a registered tool name comes from, if any. */
  serverOf(toolName: string): McpServerStatus | undefined {
    return this.list().find((server) => server.tools.includes(toolName));
  }

  /** Whether the user trusts a server (its entry's `trust`): its tools run without asking. */
  trusts(url: string): boolean {
    return this.servers.get(url)?.entry.trust === true;
  }

  /** The live connection to a server (its resources and prompts), while it is connected. */
  connectionOf(url: string): McpConnection | undefined {
    return this.servers.get(url)?.connection;
  }

  /** Closes every connection and removes the tools; later declarations are ignored. */
  async close(): Promise<void> {
    this.closed = true;
    await Promise.all([...this.servers.keys()].map((url) => this.drop(url)));
  }

  private add(source: string, entry: McpServerEntry): void {
    const server: Server = {
      entry,
      source,
      status: Object.freeze({ url: entry.url, label: entry.label ?? entry.url, source, phase: 'connecting', tools: [], skipped: [] }),
      attempt: 0,
      failures: 0,
      settled: Promise.resolve(),
    };
    this.servers.set(entry.url, server);
    this.connect(server);
  }

  private connect(server: Server): void {
    const attempt = ++server.attempt;
    const current = () => this.servers.get(server.entry.url) === server && server.attempt === attempt && !this.closed;
    this.update(server, { phase: 'connecting', retryInMs: undefined });
    const { url, label: _label, ...connectOptions } = server.entry;
    const registry = this.registry;
    const client = this.options.client;
    // The client loads with the first server (pages without one never fetch it).
    server.settled = Promise.all([
      import('./mcp-tools.ts'),
      client ? client({ url, address: mcpServerAddress(url), label: () => server.status.label, trusted: server.entry.trust === true }) : {},
    ])
      .then(([{ connectMcp }, handlers]) =>
        connectMcp(url, registry, {
          ...handlers,
          ...connectOptions,
          ...(this.options.fetch ? { fetch: this.options.fetch } : {}),
          heartbeatMs: this.options.heartbeatMs ?? 15_000,
          onToolsChanged: (tools) => {
            if (current()) this.update(server, { tools, skipped: server.connection?.skipped ?? [], changed: server.connection?.changed ?? [] });
          },
          onLost: (reason) => {
            if (!current()) return;
            server.connection = undefined;
            this.down(server, `it stopped answering (${reason})`);
          },
        }),
      )
      .then(
        (connection) => {
          if (!current()) {
            void connection.close();
            return;
          }
          server.connection = connection;
          server.failures = 0;
          // The registry changed while it connected (a model loaded): its tools go where the others are.
          if (registry !== this.registry) connection.attach(this.registry);
          this.update(server, {
            phase: 'connected',
            label: server.entry.label ?? connection.serverName,
            tools: connection.tools,
            skipped: connection.skipped,
            error: undefined,
          });
        },
        (error: unknown) => {
          if (current()) this.down(server, (error as Error).message, { retry: (error as { lasting?: boolean }).lasting !== true });
        },
      );
  }

  /**
   * A server is down: it is tried again with backoff, up to {@link MAX_RETRIES} times in a row, unless
   * trying again cannot help (the page's policy forbids it); then it waits for Retry.
   */
  private down(server: Server, error: string, how: { retry: boolean } = { retry: true }): void {
    const { firstMs = 1000, maxMs = 30_000 } = this.options.backoff ?? {};
    const delay = Math.min(maxMs, firstMs * 2 ** server.failures);
    server.failures += 1;
    if (!how.retry || server.failures > MAX_RETRIES) {
      this.update(server, { phase: 'down', tools: [], error, retryInMs: undefined });
      return;
    }
    this.update(server, { phase: 'down', tools: [], error, retryInMs: delay });
    server.retry = this.timers.setTimeout(() => {
      if (this.servers.get(server.entry.url) === server && !this.closed) this.connect(server);
    }, delay);
  }

  private async drop(url: string): Promise<void> {
    const server = this.servers.get(url);
    if (!server) return;
    this.servers.delete(url);
    server.attempt += 1;
    this.timers.clearTimeout(server.retry);
    const connection = server.connection;
    server.connection = undefined;
    // Its tools leave the registry before anyone is told (close() unregisters them at once).
    const closing = connection?.close().catch(() => undefined);
    this.emit();
    await closing;
  }

  private update(server: Server, change: Partial<Omit<McpServerStatus, 'url' | 'source'>>): void {
    const next: Record<string, unknown> = { ...server.status, ...change };
    for (const key of Object.keys(next)) if (next[key] === undefined) delete next[key];
    server.status = Object.freeze(next as unknown as McpServerStatus);
    this.emit();
  }

  private emit(): void {
    const list = this.list();
    for (const listener of this.listeners) listener(list);
  }
}

/** Whether two declarations of one address ask for the same connection (headers, trust, timeouts). */
function sameEntry(a: McpServerEntry, b: McpServerEntry): boolean {
  return JSON.stringify(a) === JSON.stringify(b);
}
