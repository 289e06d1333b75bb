import type {
  McpAppResource,
  McpAppToolResult,
  McpClientHandlers,
  McpConnection,
  McpClientServer,
  McpElicitation,
  McpElicitationAnswer,
  McpLogLevel,
  McpOAuthStore,
  McpSamplingAnswer,
  McpSamplingRequest,
  McpServers,
  McpServerStatus,
  NexusChat,
} from '../../internal.ts';
import { mcpServerAddress, samplingMessages, samplingReport } from '../../internal.ts';
import type { AppState, McpFormField, McpRequestState, McpServerExtras } from '../state/app-state.ts';
import type { SliceChange } from '../state/state-writers.ts';
import { serverName } from './server-names.ts';

/** The page around the MCP client part: state, notices, the chat, the running answer. */
export interface McpPageClientHost {
  state(): AppState;
  /** Writes this slice's own part of the page's state (see state-writers.ts). */
  set(change: SliceChange<'mcp'>): void;
  notify(text: string): void;
  /** The loaded chat, which answers sampling; none before a model is loaded. */
  chat(): NexusChat | undefined;
  /** A tool of the running answer reported progress. */
  progress(tool: string, text: string): void;
  /** A server sent a log message (shown in the running answer's diagnostics, if one runs). */
  log(server: string, level: string, text: string): void;
  /** Attaches a resource's text to the next message (the attachments slice writes them). */
  attach(input: { name: string; from: string; text: string }): void;
  /** Asks the user to allow a call an MCP app view makes (the approval dialog); resolves with their decision. */
  approve(request: { name: string; arguments: Readonly<Record<string, unknown>>; server: string }): Promise<boolean>;
}

/** Where the page's sign-in windows send the code back, and where tokens are kept. */
export interface McpSignInDeps {
  /** The page the authorization server redirects to (`mcp-oauth-callback.html` beside the app). */
  redirectUrl: string;
  /** The page's client metadata document (served by the app over https), its client id where a server accepts one. */
  clientMetadataUrl?: string;
  /** Resolves with the `code` (and the `iss`) the callback page received for `state`; rejects with the server's `error`. */
  waitForCode(state: string): Promise<{ code: string; iss?: string }>;
  /** Keeps registrations and tokens across reloads (default: this page's memory). */
  store?: McpOAuthStore;
}

/** Log lines kept per server. */
const LOG_LINES = 20;

/**
 * Requests one server may have waiting for the user at once: a server that asks faster than anyone
 * answers gets the rest declined, not a queue of dialogs that hides every other server's.
 */
export const MAX_WAITING_PER_SERVER = 3;

/** Sampling requests one server may have answered without a dialog (allowed or trusted) in a minute. */
export const MAX_SAMPLES_PER_MINUTE = 10;

const MINUTE_MS = 60_000;

/** Characters that reorder or hide text (bidi overrides and isolates, marks): never part of an address shown. */
const BIDI_CONTROLS = /[\u061C\u200E\u200F\u202A-\u202E\u2066-\u2069]/g;

/**
 * A page a server asks the user to open, as the browser will reach it: only http and https, without
 * user info (`accounts.google.com@attacker.invalid` is attacker.invalid), bidi controls removed, the host
 * in punycode (a Cyrillic look-alike shows as `xn--…`). A reason instead where it is not a web page.
 */
export function webAddress(url: string): { href: string; host: string } | { refused: string } {
  let parsed: URL;
  try {
    parsed = new URL(url.replace(BIDI_CONTROLS, '').trim());
  } catch {
    return { refused: 'it is not an address' };
  }
  if (parsed.protocol !== 'https:' && parsed.protocol !== 'http:') return { refused: `it is not a web page (${parsed.protocol})` };
  parsed.username = '';
  parsed.password = '';
  return { href: parsed.href.replace(BIDI_CONTROLS, ''), host: parsed.host };
}

interface Pending {
  state: McpRequestState;
  resolve: (answer: unknown) => void;
}

/**
 * The page's part of the MCP client: what servers ask of the user (a form, a page to open, a
 * completion by the model in the tab), one dialog at a time, each answered by the user; progress and
 * log lines; sign-in windows; and what servers offer beside tools (resources to attach, prompts to
 * start from).
 */
export class McpPageClient {
  private readonly queue: Pending[] = [];
  private nextId = 1;
  /** Servers (by address) whose sampling requests the user allowed for this visit. */
  private readonly samplingAllowed = new Set<string>();
  /** When each server's recent sampling requests ran without a dialog, by address. */
  private readonly sampledAt = new Map<string, number[]>();
  /** Servers already told about this minute, by address and what was cut. */
  private readonly cutNoticeAt = new Map<string, number>();
  /** Servers whose resources and prompts were asked for (once a server is connected). */
  private readonly listed = new Set<string>();

  constructor(
    private readonly host: McpPageClientHost,
    private readonly signIn: McpSignInDeps | undefined,
    private readonly now: () => number = Date.now,
  ) {}

  /** The handlers one server's connection answers with. */
  handlers(server: McpClientServer): McpClientHandlers {
    const level = this.host.state().settings.mcpLogLevel;
    return {
      // The page shows MCP Apps views (mcp-app-view.ts), in its sandbox.
      apps: true,
      elicit: (request) => this.elicit(server, request),
      sample: (request) => this.sample(server, request),
      onProgress: (tool, progress) => this.host.progress(tool, progressText(progress)),
      ...(level === 'off' ? {} : { logLevel: level, onLog: (entry) => this.log(server, entry.level, entry.data, entry.logger) }),
      ...(this.signIn
        ? {
            oauth: {
              redirectUrl: this.signIn.redirectUrl,
              ...(this.signIn.clientMetadataUrl ? { clientMetadataUrl: this.signIn.clientMetadataUrl } : {}),
              authorize: (page) => this.authorize(server.url, page),
              ...(this.signIn.store ? { store: this.signIn.store } : {}),
            },
          }
        : {}),
    };
  }

  /** A tool's view, read from its server; an error in words where the server is not connected or the view cannot be shown. */
  async openApp(servers: McpServers, server: string, uri: string): Promise<McpAppResource | { error: string }> {
    const connection = await connected(servers, server);
    if (!connection) return { error: `the MCP server at ${server} is not connected; its app shows again when it is back` };
    try {
      return await connection.readApp(uri);
    } catch (error) {
      return { error: (error as Error).message };
    }
  }

  /**
   * A call a view makes, after the user allows it (a trusted server's run unasked, as its tools do). A refusal or
   * a failure is a result with `isError`, which the view can show: the view is never told more than its call's result.
   */
  async callForApp(servers: McpServers, server: string, name: string, args: Record<string, unknown>): Promise<McpAppToolResult> {
    const failed = (text: string): McpAppToolResult => ({ content: [{ type: 'text', text }], isError: true });
    const connection = servers.connectionOf(server);
    const status = servers.list().find((entry) => entry.url === server);
    if (!connection || !status) return failed(`The MCP server at ${server} is not connected.`);
    if (!servers.trusts(server) && !(await this.host.approve({ name, arguments: args, server: serverName(status, servers.list()) }))) {
      return failed(`The user did not allow ${name}.`);
    }
    try {
      return await connection.callForApp(name, args);
    } catch (error) {
      return failed((error as Error).message);
    }
  }

  /** Fetches what a server that just connected offers beside tools; forgets servers that left. */
  async refresh(servers: McpServers, statuses: readonly McpServerStatus[]): Promise<void> {
    const extras = { ...this.host.state().mcpExtras };
    let changed = false;
    for (const url of Object.keys(extras)) {
      if (!statuses.some((server) => server.url === url)) {
        delete extras[url];
        changed = true;
      }
    }
    for (const url of this.listed) if (!statuses.some((server) => server.url === url)) this.listed.delete(url);
    if (changed) this.host.set({ mcpExtras: extras });
    for (const status of statuses) {
      if (status.phase !== 'connected' || this.listed.has(status.url)) continue;
      const connection = servers.connectionOf(status.url);
      if (!connection) continue;
      this.listed.add(status.url);
      const [resources, prompts] = await Promise.all([connection.resources().catch(() => []), connection.prompts().catch(() => [])]);
      this.patch(status.url, { resources, prompts });
    }
  }

  /** The user's answer to the request shown (`id`): the form's values, accepted, declined or dismissed. */
  answer(id: number, answer: McpElicitationAnswer | { action: 'allow' | 'allow-always' | 'decline' }): void {
    const first = this.queue[0];
    if (first?.state.id !== id) return;
    this.queue.shift();
    if (first.state.kind === 'sample' && answer.action === 'allow-always') this.samplingAllowed.add(first.state.address);
    first.resolve(answer);
    this.host.set({ mcpRequest: this.queue[0]?.state });
  }

  /** Reads a server's resource into the composer's attachments. */
  async attach(servers: McpServers, url: string, uri: string): Promise<void> {
    const status = servers.list().find((server) => server.url === url);
    const connection = servers.connectionOf(url);
    const resource = this.host.state().mcpExtras[url]?.resources.find((r) => r.uri === uri);
    if (!status || !connection || !resource) {
      this.host.notify('That server is not connected now; its resources come back when it is.');
      return;
    }
    try {
      const text = await connection.readResource(uri);
      this.host.attach({ name: resource.name || uri, from: `MCP server ${status.label}`, text });
    } catch (error) {
      this.host.notify(`Could not read ${resource.name || uri} from ${status.label}: ${(error as Error).message}`);
    }
  }

  /** A server's prompt as text for the composer (its user messages); a prompt with arguments asks for them first. */
  async usePrompt(servers: McpServers, url: string, name: string): Promise<string | undefined> {
    const status = servers.list().find((server) => server.url === url);
    const connection = servers.connectionOf(url);
    const prompt = this.host.state().mcpExtras[url]?.prompts.find((p) => p.name === name);
    if (!status || !connection || !prompt) return undefined;
    let args: Record<string, string> = {};
    if (prompt.arguments?.length) {
      const answer = await this.ask<McpElicitationAnswer>({
        id: this.nextId++,
        kind: 'form',
        server: status.label,
        address: mcpServerAddress(url),
        message: `The prompt “${prompt.title ?? prompt.name}” needs these filled in.`,
        fields: prompt.arguments.map((argument) => ({
          name: argument.name,
          label: argument.name,
          ...(argument.description ? { description: argument.description } : {}),
          type: 'string' as const,
          required: argument.required === true,
        })),
      });
      if (answer?.action !== 'accept') return undefined;
      args = Object.fromEntries(Object.entries(('content' in answer ? answer.content : undefined) ?? {}).map(([key, value]) => [key, String(value)]));
    }
    try {
      const messages = await connection.getPrompt(name, args);
      return messages
        .filter((message) => message.role === 'user')
        .map((message) => message.content)
        .join('\n\n');
    } catch (error) {
      this.host.notify(`${status.label} could not give the prompt “${name}”: ${(error as Error).message}`);
      return undefined;
    }
  }

  /** Every waiting request is answered "cancel" (the page is closing, or the servers went away). */
  cancelAll(): void {
    for (const pending of this.queue.splice(0)) pending.resolve({ action: pending.state.kind === 'sample' ? 'decline' : 'cancel' });
    this.host.set({ mcpRequest: undefined });
  }

  /** Queues a request for the user, or refuses it (`undefined`) where its server already has enough waiting. */
  private ask<T>(state: McpRequestState): Promise<T> | undefined {
    const waiting = this.queue.filter((pending) => pending.state.address === state.address).length;
    if (waiting >= MAX_WAITING_PER_SERVER) {
      this.noteCut(state.server, state.address, `has ${MAX_WAITING_PER_SERVER} requests waiting for you; more were declined until you answer those`);
      return undefined;
    }
    return new Promise<T>((resolve) => {
      this.queue.push({ state, resolve: resolve as (answer: unknown) => void });
      if (this.queue.length === 1) this.host.set({ mcpRequest: state });
    });
  }

  /** One line in the page when a server's requests are cut, at most once a minute per server. */
  private noteCut(label: string, address: string, what: string): void {
    const last = this.cutNoticeAt.get(address);
    if (last !== undefined && this.now() - last < MINUTE_MS) return;
    this.cutNoticeAt.set(address, this.now());
    this.host.notify(`The MCP server ${label} (${address}) ${what}.`);
  }

  private async elicit(server: McpClientServer, request: McpElicitation): Promise<McpElicitationAnswer> {
    const id = this.nextId++;
    const from = { id, server: server.label(), address: server.address, message: request.message };
    if (request.mode === 'url') {
      const page = webAddress(request.url);
      if ('refused' in page) {
        // Nothing was opened, so the server is not told it was.
        this.host.notify(`The MCP server ${from.server} (${from.address}) asked to open an address that was declined: ${page.refused}.`);
        return { action: 'decline' };
      }
      return (await this.ask<McpElicitationAnswer>({ ...from, kind: 'url', url: page.href, host: page.host })) ?? { action: 'decline' };
    }
    return (await this.ask<McpElicitationAnswer>({ ...from, kind: 'form', fields: formFields(request.requestedSchema) })) ?? { action: 'decline' };
  }

  private async sample(server: McpClientServer, request: McpSamplingRequest): Promise<McpSamplingAnswer> {
    const chat = this.host.chat();
    if (!chat) throw new Error('No model is loaded in the tab to answer with; load one and ask again.');
    const label = server.label();
    const address = server.address;
    if (!server.trusted && !this.samplingAllowed.has(address)) {
      const asked = this.ask<{ action: string }>({
        id: this.nextId++,
        kind: 'sample',
        server: label,
        address,
        messages: samplingMessages(request).map((message) => ({ role: message.role, text: message.content })),
        ...(request.systemPrompt ? { systemPrompt: request.systemPrompt } : {}),
        maxTokens: request.maxTokens,
        declined: samplingReport(request).declined,
      });
      const action = asked ? (await asked).action : 'decline';
      if (action !== 'allow' && action !== 'allow-always') throw new Error('The user declined to let the model answer this request.');
    } else {
      // Allowed once is not allowed without end: a bounded number a minute runs without a dialog.
      const recent = (this.sampledAt.get(address) ?? []).filter((at) => this.now() - at < MINUTE_MS);
      if (recent.length >= MAX_SAMPLES_PER_MINUTE) {
        this.noteCut(label, address, `asked the model to answer more than ${MAX_SAMPLES_PER_MINUTE} times in a minute; the rest were refused`);
        throw new Error(`This client answers at most ${MAX_SAMPLES_PER_MINUTE} sampling requests a minute from one server; ask again later.`);
      }
      this.sampledAt.set(address, [...recent, this.now()]);
    }
    const { report: _report, ...answer } = await chat.sampleForMcp(request);
    return answer;
  }

  private async authorize(url: string, page: URL): Promise<{ code: string; iss?: string }> {
    if (!this.signIn) throw new Error('This page cannot sign in.');
    // What the server's metadata names is opened by the user's click: only a web page, never a script.
    if (page.protocol !== 'https:' && page.protocol !== 'http:') throw new Error(`the sign-in page is not a web address (${page.protocol})`);
    const state = page.searchParams.get('state') ?? '';
    this.patch(url, { signIn: page.href });
    try {
      return await this.signIn.waitForCode(state);
    } finally {
      this.patch(url, { signIn: undefined });
    }
  }

  private log(server: McpClientServer, level: McpLogLevel, data: unknown, logger: string | undefined): void {
    const text = `${logger ? `${logger}: ` : ''}${typeof data === 'string' ? data : JSON.stringify(data)}`.slice(0, 500);
    const log = [...(this.host.state().mcpExtras[server.url]?.log ?? []), { level, text }].slice(-LOG_LINES);
    this.patch(server.url, { log });
    this.host.log(`${server.label()} (${server.address})`, level, text);
  }

  private patch(url: string, change: Partial<McpServerExtras>): void {
    const current = this.host.state().mcpExtras[url] ?? { resources: [], prompts: [], log: [] };
    const next: McpServerExtras = { ...current, ...change };
    if (next.signIn === undefined) delete next.signIn;
    this.host.set({ mcpExtras: { ...this.host.state().mcpExtras, [url]: next } });
  }
}

/** A server's progress report in words: "2 of 3: step 2". */
function progressText(progress: { progress: number; total?: number; message?: string }): string {
  const count = progress.total ? `${progress.progress} of ${progress.total}` : String(progress.progress);
  return progress.message ? `${count}: ${progress.message}` : count;
}

/** The form's fields from the server's flat schema (strings, numbers, booleans, enums). */
export function formFields(schema: Extract<McpElicitation, { mode: 'form' }>['requestedSchema']): McpFormField[] {
  const required = new Set(schema.required ?? []);
  return Object.entries(schema.properties ?? {}).map(([name, property]) => {
    const p = property as Record<string, unknown>;
    const options = enumOptions(p);
    const type: McpFormField['type'] = options ? 'enum' : p.type === 'number' || p.type === 'integer' || p.type === 'boolean' ? p.type : 'string';
    const value = p.default;
    return {
      name,
      label: typeof p.title === 'string' ? p.title : name,
      ...(typeof p.description === 'string' ? { description: p.description } : {}),
      type,
      ...(options ? { options } : {}),
      ...(typeof value === 'string' || typeof value === 'number' || typeof value === 'boolean' ? { default: value } : {}),
      required: required.has(name),
      ...(typeof p.format === 'string' ? { format: p.format } : {}),
    };
  });
}

function enumOptions(p: Record<string, unknown>): McpFormField['options'] | undefined {
  if (Array.isArray(p.enum)) {
    const names = Array.isArray(p.enumNames) ? p.enumNames : [];
    return p.enum.map((value, i) => ({ value: String(value), label: typeof names[i] === 'string' ? names[i] : String(value) }));
  }
  if (Array.isArray(p.oneOf)) {
    return p.oneOf.flatMap((option) => {
      const o = option as { const?: unknown; title?: unknown };
      return o.const === undefined ? [] : [{ value: String(o.const), label: typeof o.title === 'string' ? o.title : String(o.const) }];
    });
  }
  return undefined;
}

/** How long a view shown as the page loads waits for its server to connect. */
const APP_SERVER_WAIT_MS = 20_000;

/**
 * A server's connection once it is up: at once where it is, else when it connects (a view shown as the page
 * loads, before the saved servers are back), or undefined once it is down or has not connected within its wait.
 */
function connected(servers: McpServers, url: string): Promise<McpConnection | undefined> {
  const now = servers.connectionOf(url);
  if (now) return Promise.resolve(now);
  return new Promise((resolve) => {
    const done = () => {
      clearTimeout(timer);
      off();
      resolve(servers.connectionOf(url));
    };
    const timer = setTimeout(done, APP_SERVER_WAIT_MS);
    const off = servers.subscribe((statuses) => {
      const phase = statuses.find((entry) => entry.url === url)?.phase;
      if (phase === 'connected' || phase === 'down') done();
    });
  });
}
