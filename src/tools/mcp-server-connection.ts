import { boundedFetch } from './bounded-fetch.ts';
import { connectAdvice, corsFinding, crossOrigin, describeFailure, httpStatus, McpConnectError, unexposedSessionAdvice } from './mcp-failures.ts';
import { codeOfResponse, mcpOAuthProvider } from './mcp-oauth.ts';
import type { McpConnectOptions, McpElicitation, McpSamplingRequest } from './mcp-options.ts';
import { invalidHeaderDeclaration } from './mcp-param-headers.ts';
import { mcpResultText, mcpUserParts, withElicitationDefaults, type ResultPart } from './mcp-results.ts';
import type { McpConnection } from './mcp-connection.ts';
import type { ToolHandler, ToolRegistry } from './tool-registry.ts';
import { type ToolReturn, withDetails } from './tool-registry.ts';
import {
  appResourceOf,
  appResultOf,
  appUriOf,
  checkAppUri,
  MCP_APP_MIME_TYPE,
  MCP_APPS_EXTENSION,
  McpAppError,
  visibilityOf,
  type McpAppResource,
} from './mcp-apps.ts';
import type { McpAppCall, McpAppToolResult } from './mcp-app-call.ts';
import { callAsTask } from './mcp-tasks.ts';
import type { ObjectSchemaInput } from './tool-schema.ts';

/** Most tools taken from one server (a listing past it is cut, and says so in `skipped`). */
const MAX_TOOLS = 500;
/** Longest tool description the model reads: a longer one is a page of text in every prompt, so it is cut, and says so. */
const MAX_DESCRIPTION_CHARS = 2_000;

/**
 * A server's tool description within {@link MAX_DESCRIPTION_CHARS}: a longer one is cut at a word, saying how long
 * it was. The tool itself is kept: server-sequential-thinking's one tool (2,781 characters) was dropped (issue 69).
 */
function boundedDescription(description: string): string {
  if (description.length <= MAX_DESCRIPTION_CHARS) return description;
  const head = description.slice(0, MAX_DESCRIPTION_CHARS);
  const cut = head.slice(0, Math.max(head.lastIndexOf(' '), MAX_DESCRIPTION_CHARS / 2)).trimEnd();
  return `${cut} … [cut: the server's description is ${description.length.toLocaleString('en-US')} characters]`;
}
/** Deepest and largest input schema taken: one that registers must not break every answer after it. */
const MAX_SCHEMA_DEPTH = 12;
const MAX_SCHEMA_CHARS = 32_000;
/** Most re-listings a server's `tools/list_changed` notices cause in a minute; more are folded into one at the minute's end. */
const MAX_RELISTINGS_PER_MINUTE = 6;
/** Most pages of a paginated listing followed. */
const MAX_PAGES = 50;
/** A result "schema" in the shape the SDK's request() takes that accepts any JSON: the caller checks it. */
const ANY_RESULT = { '~standard': { version: 1, vendor: 'browser-llm-nexus', validate: (value: unknown) => ({ value }) } };

/** The MCP tool as the server lists it. */
interface ListedTool {
  name: string;
  description?: string;
  inputSchema: { type?: unknown; properties?: Record<string, unknown>; required?: string[] };
  annotations?: { readOnlyHint?: boolean; title?: string };
  /** `taskSupport: "required"`: the tool runs only as an MCP task. */
  execution?: { taskSupport?: string };
  /** `ui.resourceUri` and `ui.visibility`: its MCP Apps view, and who may call it (mcp-apps.ts). */
  _meta?: Record<string, unknown>;
}

/** How deep a JSON value nests (a scalar is 0), counted without recursion so a hostile depth cannot overflow the stack. */
function nestingDepth(value: unknown): number {
  let deepest = 0;
  const stack: [unknown, number][] = [[value, 0]];
  while (stack.length) {
    const [node, depth] = stack.pop() as [unknown, number];
    if (node === null || typeof node !== 'object') continue;
    deepest = Math.max(deepest, depth + 1);
    if (deepest > MAX_SCHEMA_DEPTH) return deepest;
    for (const child of Object.values(node)) stack.push([child, depth + 1]);
  }
  return deepest;
}

/** Why a listed tool is not taken, when it is out of bounds. */
function outOfBounds(tool: ListedTool): string | undefined {
  if (nestingDepth(tool.inputSchema) > MAX_SCHEMA_DEPTH) return `its input schema nests deeper than ${MAX_SCHEMA_DEPTH} levels`;
  if ((JSON.stringify(tool.inputSchema) ?? '').length > MAX_SCHEMA_CHARS) {
    return `its input schema is larger than ${MAX_SCHEMA_CHARS.toLocaleString('en-US')} characters`;
  }
  return undefined;
}

/** A tool name the registry and the templates take: letters, digits, `_` and `-`. */
function safeName(name: string): string {
  return name.replace(/[^A-Za-z0-9_-]/g, '_').slice(0, 64);
}

/** Bounds a promise in time; the error names what timed out. */
async function within<T>(ms: number, what: string, work: Promise<T>): Promise<T> {
  let timer: ReturnType<typeof setTimeout> | undefined;
  try {
    return await Promise.race([
      work,
      new Promise<never>((_, reject) => (timer = setTimeout(() => reject(new Error(`${what} took longer than ${ms / 1000} s`)), ms))),
    ]);
  } finally {
    clearTimeout(timer);
  }
}

/**
 * The SDK's v2 client, loaded with the first connection (a page that connects to none never carries it). It
 * negotiates the protocol per server: `server/discover` first (2026-07-28, stateless, with the `Mcp-Method` and
 * `Mcp-Name` headers), and the `initialize` handshake of 2025-11-25 where the server does not speak it.
 */
export async function loadSdk(): Promise<Sdk> {
  // zod, which the SDK validates with, asks whether it may compile code by trying `Function('')` once: under
  // the page's Content-Security-Policy (no eval) that try is a reported violation. Its interpreter needs no
  // eval; a setting the application made itself is left as it is.
  const scope = globalThis as { __zod_globalConfig?: { jitless?: boolean } };
  scope.__zod_globalConfig ??= {};
  scope.__zod_globalConfig.jitless ??= true;
  return import('@modelcontextprotocol/client');
}

/** The SDK's client package. */
export type Sdk = typeof import('@modelcontextprotocol/client');
type SdkClient = InstanceType<Sdk['Client']>;
type StreamableTransport = InstanceType<Sdk['StreamableHTTPClientTransport']>;

/** What one connection is made of: where, into which registry, how, and a sign-in without a user where one was given. */
export interface ConnectionParts {
  url: string;
  endpoint: URL;
  registry: ToolRegistry;
  options: McpConnectOptions;
  machine: unknown;
}

/**
 * One connected MCP server and the tools it registered: opened once ({@link ServerConnection.open}), kept
 * in step with the server's list, and closed by the caller or lost when the server goes away.
 */
export class ServerConnection implements McpConnection {
  readonly url: string;
  serverName = '';
  private readonly endpoint: URL;
  private readonly options: McpConnectOptions;
  private readonly connectTimeout: number;
  private readonly callTimeout: number;
  private readonly oauth: ReturnType<typeof mcpOAuthProvider> | undefined;
  private readonly transportOptions: Record<string, unknown>;
  private client: SdkClient;
  private streamable: StreamableTransport | undefined;
  private target: ToolRegistry;
  private listed: ListedTool[] = [];
  /** What this connection registered, by name, with the handler that tells its own entry from another's. */
  private owned = new Map<string, ToolHandler>();
  private skippedTools: { name: string; reason: string }[] = [];
  /** Each tool's definition as first listed, by the server's name for it. */
  private readonly firstListed = new Map<string, string>();
  /** The server's names of tools whose definition changed since; and their registered names now. */
  private readonly changedTools = new Set<string>();
  private readonly changedNames = new Set<string>();
  private closed = false;
  private heartbeat: ReturnType<typeof setInterval> | undefined;
  /** Whether the last listing stopped with more pages to go (past the tool or page bound). */
  private cutShort = false;
  private offersResources = false;
  private offersPrompts = false;
  /** The server runs `tools/call` as a task where asked (MCP tasks, SEP-1686: `capabilities.tasks.requests.tools.call`). */
  private runsTasks = false;
  /** A server may send `list_changed` as often as it likes: at most a few re-listings a minute, the rest folded into one. */
  private readonly relistings = { times: [] as number[], pending: undefined as ReturnType<typeof setTimeout> | undefined, folded: false };

  constructor(
    private readonly sdk: Sdk,
    parts: ConnectionParts,
  ) {
    const { url, endpoint, registry, options, machine } = parts;
    this.url = url;
    this.endpoint = endpoint;
    this.target = registry;
    this.options = options;
    this.connectTimeout = options.connectTimeoutMs ?? 10_000;
    this.callTimeout = options.callTimeoutMs ?? 60_000;
    this.oauth = options.oauth ? mcpOAuthProvider(endpoint.href, options.oauth) : undefined;
    const authProvider = machine ?? this.oauth;
    this.transportOptions = {
      ...(options.headers ? { requestInit: { headers: options.headers } } : {}),
      // Every message bounded in bytes while it arrives, before the SDK parses it (a listing of 300,000 tools).
      fetch: boundedFetch(options.fetch),
      ...(authProvider ? { authProvider } : {}),
    };
    this.client = this.newClient();
  }

  get tools(): readonly string[] {
    return [...this.owned.keys()];
  }

  get skipped(): readonly { name: string; reason: string }[] {
    return [...this.skippedTools];
  }

  get changed(): readonly string[] {
    return [...this.changedNames];
  }

  get protocolVersion(): string {
    return this.client.getNegotiatedProtocolVersion() ?? '';
  }

  definition(serverToolName: string): { name: string; description?: string; inputSchema: Record<string, unknown> } | undefined {
    const tool = this.listed.find((listed) => listed.name === serverToolName);
    return tool && structuredClone({ ...tool, inputSchema: tool.inputSchema as Record<string, unknown> });
  }

  /** Connects, lists and registers the tools, and listens for changes; throws an {@link McpConnectError} saying why not. */
  async open(): Promise<void> {
    await this.connect();
    const { client, options } = this;
    if (options.logLevel && client.getServerCapabilities()?.logging) await client.setLoggingLevel(options.logLevel).catch(() => undefined);
    this.serverName = safeName(client.getServerVersion()?.name ?? this.endpoint.hostname);
    this.offersResources = Boolean(client.getServerCapabilities()?.resources);
    this.offersPrompts = Boolean(client.getServerCapabilities()?.prompts);
    const tasks = (client.getServerCapabilities() as { tasks?: { requests?: { tools?: { call?: unknown } } } } | undefined)?.tasks;
    this.runsTasks = Boolean(tasks?.requests?.tools?.call);
    try {
      this.listed = await this.listAll();
      this.register();
    } catch (error) {
      const unseenSession = this.unseenSession(error);
      await client.close().catch(() => undefined);
      throw new McpConnectError(
        `The MCP server at ${this.url} connected but its tools could not be listed: ${describeFailure(error)}.${unseenSession ? ` ${unexposedSessionAdvice(this.endpoint)}` : ''}`,
      );
    }
    client.setNotificationHandler('notifications/tools/list_changed', () => this.handleListChanged());
    client.onclose = () => this.lost('the connection closed');
    if (options.heartbeatMs) {
      this.heartbeat = setInterval(() => {
        within(this.connectTimeout, 'a ping', this.client.ping()).catch((error) => this.lost(describeFailure(error)));
      }, options.heartbeatMs);
    }
  }

  /** A client offering only what the caller can answer: a server asking for anything else is told the method is not supported. */
  private newClient(): SdkClient {
    const { sdk, options } = this;
    const capabilities = {
      ...(options.elicit ? { elicitation: { form: {}, url: {} } } : {}),
      ...(options.sample ? { sampling: {} } : {}),
      ...(options.roots ? { roots: { listChanged: false } } : {}),
      // Offered only where the caller renders views: a server then sends tools with a `ui://` view.
      ...(options.apps ? { extensions: { [MCP_APPS_EXTENSION]: { mimeTypes: [MCP_APP_MIME_TYPE] } } } : {}),
    };
    // The 2026-07-28 protocol where the server speaks it, else the 2025 handshake: asked per server, at connect.
    const made = new sdk.Client({ name: 'browser-llm-nexus', version: '1' }, { capabilities, versionNegotiation: { mode: 'auto' } });
    const elicit = options.elicit;
    if (elicit) made.setRequestHandler('elicitation/create', (request) => answerElicitation(elicit, request.params as Record<string, unknown>) as never);
    const sample = options.sample;
    if (sample) made.setRequestHandler('sampling/createMessage', async (request) => (await sample(request.params as McpSamplingRequest)) as never);
    const roots = options.roots;
    if (roots) made.setRequestHandler('roots/list', async () => ({ roots: roots.map((root) => ({ ...root })) }));
    const onLog = options.onLog;
    if (onLog) {
      made.setNotificationHandler('notifications/message', (notice) => {
        const { level, logger, data } = notice.params;
        onLog({ level, ...(logger !== undefined ? { logger } : {}), data });
      });
    }
    return made;
  }

  private newStreamable(): StreamableTransport {
    return new this.sdk.StreamableHTTPClientTransport(this.endpoint, this.transportOptions as never);
  }

  /** Runs the sign-in the server asked for: the user authorizes, the code becomes tokens on `transport`. */
  private async signIn(transport: { finishAuth(code: string, iss?: string): Promise<void> }, cause: unknown): Promise<void> {
    const { oauth, options } = this;
    const page = oauth?.takeAuthorizationUrl();
    if (!options.oauth || !page) throw cause;
    let response: { code: string; iss?: string };
    try {
      response = codeOfResponse(await options.oauth.authorize(page), oauth?.authorizationServer());
    } catch (error) {
      throw new McpConnectError(`Signing in to the MCP server at ${this.url} did not finish: ${describeFailure(error)}.`);
    }
    await transport.finishAuth(response.code, response.iss);
  }

  /** Whether the server refused a request for want of the session id it gave, which CORS hid from this page. */
  private unseenSession(error: unknown): boolean {
    return crossOrigin(this.endpoint) && this.streamable !== undefined && this.streamable.sessionId === undefined && sessionRefused(error);
  }

  /** Connects over Streamable HTTP, and where the server asks for a sign-in, signs in and connects again. */
  private async connectSigningIn(): Promise<void> {
    const { sdk, connectTimeout } = this;
    const streamable = this.streamable as StreamableTransport;
    try {
      await within(connectTimeout, 'connecting', this.client.connect(streamable));
    } catch (unauthorized) {
      if (!(unauthorized instanceof sdk.UnauthorizedError)) throw unauthorized;
      // The sign-in is the user's pace, outside the connect wait; then the connection starts again, signed in.
      await this.signIn(streamable, unauthorized);
      await this.startAgain();
      await within(connectTimeout, 'connecting', this.client.connect(this.streamable as StreamableTransport));
    }
  }

  /** A fresh client and transport for a second try (signed in, or with the issuer check relaxed): the first is closed. */
  private async startAgain(): Promise<void> {
    await this.client.close().catch(() => undefined);
    this.client = this.newClient();
    this.streamable = this.newStreamable();
  }

  /** Whether an authorization server's metadata named another issuer where that server is the MCP server's own origin. */
  private ownOriginIssuer(error: unknown): boolean {
    if (!(error instanceof this.sdk.IssuerMismatchError) || error.kind !== 'metadata' || this.transportOptions.skipIssuerMetadataValidation) return false;
    return (error.expected ?? '').replace(/\/$/, '') === this.endpoint.origin;
  }

  /** Connects over Streamable HTTP, signing in where asked; else over HTTP+SSE; else says why not, with what to do. */
  private async connect(): Promise<void> {
    const { sdk, connectTimeout } = this;
    this.streamable = this.newStreamable();
    try {
      try {
        await this.connectSigningIn();
      } catch (mismatch) {
        if (!this.ownOriginIssuer(mismatch)) throw mismatch;
        // A server of the 2025-03-26 revision is its own authorization server, found at its origin, with no
        // protected-resource metadata naming it: there is no other server's identity its metadata could
        // impersonate, and that revision asked for no issuer check, so its own `issuer` is not held against it.
        this.transportOptions.skipIssuerMetadataValidation = true;
        await this.startAgain();
        await this.connectSigningIn();
      }
    } catch (first) {
      const unseenSession = this.unseenSession(first);
      await this.client.close().catch(() => undefined);
      if (first instanceof McpConnectError) throw first;
      if (unseenSession) {
        throw Object.assign(
          new McpConnectError(`Could not connect to the MCP server at ${this.url}: ${describeFailure(first)}. ${unexposedSessionAdvice(this.endpoint)}`),
          {
            lasting: true,
          },
        );
      }
      // A server of the older protocol answers the Streamable HTTP POST with an error: try HTTP+SSE.
      // A server that hangs is not asked twice: the wait is bounded once.
      const hung = /took longer than/.test((first as Error).message);
      this.client = this.newClient();
      this.streamable = undefined;
      try {
        if (hung || first instanceof sdk.UnauthorizedError || httpStatus(first) === 401) throw first;
        await within(connectTimeout, 'connecting', this.client.connect(new sdk.SSEClientTransport(this.endpoint, this.transportOptions as never)));
      } catch {
        await this.client.close().catch(() => undefined);
        // A request the page's policy refused is reported to the page as a separate event: let it arrive first.
        if (first instanceof TypeError) await new Promise((resolve) => setTimeout(resolve, 0));
        // The browser says only "Failed to fetch": which CORS header the server lacks is found by asking it again, plainly.
        const cors = first instanceof TypeError && crossOrigin(this.endpoint) ? await corsFinding(this.endpoint) : undefined;
        const advice = connectAdvice(first, this.endpoint, cors);
        throw Object.assign(new McpConnectError(`Could not connect to the MCP server at ${this.url}: ${describeFailure(first)}. ${advice.text}`), {
          lasting: advice.lasting,
        });
      }
    }
  }

  /**
   * Runs a request, signing in once and asking again where the server wants authorization for it (a
   * listing or a call that needs a scope the token lacks: MCP's step-up). A second refusal is the error.
   */
  private async authorized<T>(work: () => Promise<T>): Promise<T> {
    try {
      return await work();
    } catch (unauthorized) {
      if (!(unauthorized instanceof this.sdk.UnauthorizedError) || !this.streamable) throw unauthorized;
      await this.signIn(this.streamable, unauthorized);
      return work();
    }
  }

  private unregisterOwned(): void {
    for (const [name, handler] of this.owned) if (this.target.get(name)?.handler === handler) this.target.unregister(name);
    this.owned = new Map();
  }

  /** The server went away: its tools go, and the caller hears why. */
  private lost(reason: string): void {
    if (this.closed) return;
    this.closed = true;
    clearInterval(this.heartbeat);
    this.unregisterOwned();
    void this.client.close().catch(() => undefined);
    this.options.onLost?.(reason);
  }

  private async listAll(): Promise<ListedTool[]> {
    const tools: ListedTool[] = [];
    this.cutShort = false;
    let cursor: string | undefined;
    // The whole listing, every page of it, within the documented connect wait: not that wait per page.
    const deadline = Date.now() + this.connectTimeout;
    for (let page = 0; page < MAX_PAGES; page++) {
      // Listed without the SDK's own result schema, which refuses the whole list for one odd tool:
      // each tool is checked here, and one that cannot be used is skipped and named.
      const listing = (await within(
        Math.max(deadline - Date.now(), 1),
        'listing the tools',
        this.authorized(() => this.client.request({ method: 'tools/list', ...(cursor ? { params: { cursor } } : {}) }, ANY_RESULT as never)),
      )) as { tools?: unknown; nextCursor?: unknown };
      if (!Array.isArray(listing.tools)) throw new Error('its tools/list answer has no list of tools');
      tools.push(...(listing.tools as ListedTool[]));
      cursor = typeof listing.nextCursor === 'string' && listing.nextCursor !== '' ? listing.nextCursor : undefined;
      if (!cursor) break;
      if (tools.length >= MAX_TOOLS || page === MAX_PAGES - 1) {
        this.cutShort = true;
        break;
      }
    }
    return tools;
  }

  private async callTool(tool: ListedTool, args: Record<string, unknown>, signal: AbortSignal | undefined): Promise<string | ToolReturn> {
    const { options, callTimeout } = this;
    let result: { content?: ResultPart[]; structuredContent?: unknown; isError?: boolean };
    const call = () =>
      tool.execution?.taskSupport === 'required'
        ? callAsTask(
            (message, asked) => this.client.request(message as never, ANY_RESULT as never, asked),
            { tool: tool.name, args },
            {
              ...(signal ? { signal } : {}),
              timeout: callTimeout,
              onProgress: (progress) => options.onProgress?.(tool.name, progress),
            },
          )
        : this.client.callTool(
            { name: tool.name, arguments: args },
            {
              // The definition as listed here (the SDK's own listing is not used): its x-mcp-header properties become headers.
              toolDefinition: tool as never,
              ...(signal ? { signal } : {}),
              timeout: callTimeout,
              // A progress token on every call: the server's reports reach the caller and keep a long call alive.
              onprogress: (progress) => options.onProgress?.(tool.name, progress),
              resetTimeoutOnProgress: true,
            },
          );
    try {
      result = (await this.authorized(call)) as typeof result;
    } catch (error) {
      if (signal?.aborted) throw error;
      if (error instanceof McpConnectError) throw new Error(error.message);
      if (error instanceof this.sdk.SdkError && error.code === this.sdk.SdkErrorCode.RequestTimeout) {
        throw new Error(`${tool.name} did not answer within ${callTimeout / 1000} s; the call was cancelled.`);
      }
      // The server answered, with an error of its own: a refusal of this call, not the want of a server.
      if (error instanceof this.sdk.ProtocolError) throw error;
      // Not an answer from the server but the want of one: its tools go until it is back.
      this.lost(describeFailure(error));
      throw new Error(`The MCP server ${this.serverName} cannot be reached (${describeFailure(error)}); its tools are unavailable until it is back.`);
    }
    const text = mcpResultText(result);
    const forUser = mcpUserParts(result).map((part) => mcpResultText({ content: [{ ...part, annotations: {} }] }));
    if (forUser.length) options.onUserContent?.(tool.name, forUser);
    const uri = this.options.apps ? appUriOf(tool) : undefined;
    const app: McpAppCall | undefined =
      uri === undefined ? undefined : { server: this.url, uri, tool: tool.name, arguments: args, result: appResultOf(result) };
    if (result.isError) throw new Error(text || `${tool.name} failed on the server.`);
    // What the server meant for the user only, and the view that shows the result, go with the call for the page.
    return forUser.length || app ? withDetails(text, { ...(forUser.length ? { shown: forUser } : {}), ...(app ? { app } : {}) }) : text;
  }

  async readApp(uri: string, signal?: AbortSignal): Promise<McpAppResource> {
    // Checked before asking: a model-supplied address of another scheme never reaches the server.
    checkAppUri(uri);
    const read = await this.authorized(() => this.client.readResource({ uri }, { ...(signal ? { signal } : {}), timeout: this.callTimeout }));
    return appResourceOf(uri, read);
  }

  async callForApp(name: string, args: Record<string, unknown>, signal?: AbortSignal): Promise<McpAppToolResult> {
    const tool = this.listed.find((listed) => listed.name === name);
    const callable = this.listed.filter((listed) => visibilityOf(listed).app).map((listed) => listed.name);
    if (!tool || !visibilityOf(tool).app) {
      throw new McpAppError(`${this.serverName} has no tool "${name.slice(0, 100)}" that its views may call; they may call: ${callable.join(', ') || 'none'}.`);
    }
    const result = (await this.authorized(() =>
      this.client.callTool(
        { name, arguments: args },
        { toolDefinition: tool as never, ...(signal ? { signal } : {}), timeout: this.callTimeout, resetTimeoutOnProgress: true },
      ),
    )) as Parameters<typeof appResultOf>[0];
    return appResultOf(result);
  }

  /** One resource's text, as the model reads it (binary parts described), for the user to attach. */
  async readResource(uri: string, signal?: AbortSignal): Promise<string> {
    const read = (await this.authorized(() => this.client.readResource({ uri }, { ...(signal ? { signal } : {}), timeout: this.callTimeout }))) as {
      contents?: { uri?: string; text?: string; blob?: string; mimeType?: string }[];
    };
    return mcpResultText({ content: (read.contents ?? []).map((resource) => ({ type: 'resource', resource })) });
  }

  /** A server with resources gets a tool to read them: a result's `resource_link` is then something the model can follow. */
  private registerResourceReader(): void {
    const own = 'read_resource';
    const name = this.target.resolveName(own) === undefined ? own : safeName(`${this.serverName}__${own}`);
    const handler: ToolHandler = (args, context) => this.readResource(String(args.uri ?? ''), context.signal);
    try {
      this.target.tool(
        name,
        `Read a resource of the ${this.serverName} MCP server by its URI (as a link in one of its results gives it)`,
        { uri: { type: 'string', description: 'The resource URI, exactly as given' } } as never,
        handler,
        this.options.trust ? { readOnly: true } : { confirm: true },
      );
      this.owned.set(name, handler);
    } catch (error) {
      this.skippedTools.push({ name: own, reason: (error as Error).message });
    }
  }

  /** Registers the listed tools in the target registry (after taking out what this connection had there). */
  private register(): void {
    this.unregisterOwned();
    this.changedNames.clear();
    this.skippedTools = this.listed.slice(MAX_TOOLS).map((t) => ({ name: t.name, reason: `more than ${MAX_TOOLS} tools listed` }));
    if (this.cutShort) this.skippedTools.push({ name: '(the rest of the list)', reason: `more than ${MAX_TOOLS} tools listed` });
    for (const tool of this.listed.slice(0, MAX_TOOLS)) this.registerTool(tool);
    if (this.offersResources) this.registerResourceReader();
  }

  /** One listed tool into the registry, or into `skipped` with why not. */
  private registerTool(tool: ListedTool): void {
    // A tool for its view only is the view's to call (callForApp), never the model's.
    if (!visibilityOf(tool).model) return;
    const unusable = whyUnusable(tool, this.client.getProtocolEra() === 'modern', this.runsTasks);
    if (unusable) {
      this.skippedTools.push(unusable);
      return;
    }
    const { options, target } = this;
    const own = safeName(tool.name);
    const name = target.resolveName(own) === undefined ? own : safeName(`${this.serverName}__${tool.name}`);
    // A server's hints are its own claims: MCP's specification says those of an untrusted server must
    // not decide anything, so only the user's trust skips the approval, and only then is read-only believed.
    const readOnly = options.trust === true && tool.annotations?.readOnlyHint === true;
    const definition = JSON.stringify({ description: tool.description ?? null, inputSchema: tool.inputSchema, annotations: tool.annotations ?? null });
    const first = this.firstListed.get(tool.name);
    if (first === undefined) this.firstListed.set(tool.name, definition);
    else if (first !== definition) this.changedTools.add(tool.name);
    const handler: ToolHandler = (args, context) => this.callTool(tool, args, context.signal);
    try {
      target.tool(
        name,
        boundedDescription(tool.description ?? tool.annotations?.title ?? tool.name),
        // Whole, as published: definitions and references (pydantic, FastMCP, the SDK's zod) are followed
        // at registration, and every keyword is checked. JSON Schema's `required` absent means none.
        { ...tool.inputSchema, type: 'object', properties: tool.inputSchema.properties ?? {} } as ObjectSchemaInput,
        handler,
        { readOnly, required: tool.inputSchema.required ?? [], ...(options.trust ? {} : { confirm: true }) },
      );
      this.owned.set(name, handler);
      if (this.changedTools.has(tool.name)) this.changedNames.add(name);
    } catch (error) {
      this.skippedTools.push({ name: tool.name, reason: (error as Error).message });
    }
  }

  private async relist(): Promise<void> {
    try {
      this.listed = await this.listAll();
    } catch (error) {
      this.lost(describeFailure(error));
      return;
    }
    if (this.closed) return;
    this.register();
    if (this.relistings.folded) this.noteFolding();
    this.options.onToolsChanged?.([...this.owned.keys()]);
  }

  /** Says, in the server's state line, that its change notices are being folded. */
  private noteFolding(): void {
    if (this.skippedTools.some((s) => s.name === '(re-listing)')) return;
    this.skippedTools.push({
      name: '(re-listing)',
      reason: `it asked to re-list its tools more than ${MAX_RELISTINGS_PER_MINUTE} times a minute; its list is read again at most that often`,
    });
  }

  /** The server's `tools/list_changed`: a re-listing now, unless it asked too often this minute (then one at the minute's end). */
  private async handleListChanged(): Promise<void> {
    const { relistings } = this;
    const now = Date.now();
    relistings.times = relistings.times.filter((t) => now - t < 60_000);
    if (relistings.times.length < MAX_RELISTINGS_PER_MINUTE) {
      relistings.times.push(now);
      await this.relist();
      return;
    }
    relistings.folded = true;
    this.noteFolding();
    relistings.pending ??= setTimeout(
      () => {
        relistings.pending = undefined;
        relistings.times.push(Date.now());
        void this.relist();
      },
      60_000 - (now - (relistings.times[0] ?? now)),
    );
  }

  async resources(): Promise<{ uri: string; name: string; mimeType?: string; description?: string }[]> {
    if (!this.offersResources) return [];
    const all: { uri: string; name: string; mimeType?: string; description?: string }[] = [];
    let cursor: string | undefined;
    for (let page = 0; page < MAX_PAGES && all.length < MAX_TOOLS; page++) {
      const listing = await this.client.listResources(cursor ? { cursor } : undefined, { timeout: this.connectTimeout });
      all.push(
        ...listing.resources.map(({ uri, name, mimeType, description }) => ({
          uri,
          name,
          ...(mimeType ? { mimeType } : {}),
          ...(description ? { description } : {}),
        })),
      );
      cursor = listing.nextCursor;
      if (!cursor) break;
    }
    return all.slice(0, MAX_TOOLS);
  }

  async prompts(): Promise<{ name: string; title?: string; description?: string; arguments?: { name: string; required?: boolean; description?: string }[] }[]> {
    if (!this.offersPrompts) return [];
    const listing = await this.client.listPrompts(undefined, { timeout: this.connectTimeout });
    return listing.prompts.slice(0, MAX_TOOLS).map(({ name, title, description, arguments: params }) => ({
      name,
      ...(title ? { title } : {}),
      ...(description ? { description } : {}),
      ...(params
        ? {
            arguments: params.map((a) => ({
              name: a.name,
              ...(a.required !== undefined ? { required: a.required } : {}),
              ...(a.description ? { description: a.description } : {}),
            })),
          }
        : {}),
    }));
  }

  async getPrompt(name: string, args: Record<string, string> = {}): Promise<{ role: 'user' | 'assistant'; content: string }[]> {
    const prompt = await this.client.getPrompt({ name, arguments: args }, { timeout: this.callTimeout });
    return prompt.messages.map((message) => ({ role: message.role, content: mcpResultText({ content: [message.content as ResultPart] }) }));
  }

  attach(next: ToolRegistry): void {
    if (this.closed) return;
    this.unregisterOwned();
    this.target = next;
    this.register();
  }

  async close(): Promise<void> {
    if (this.closed) return;
    this.closed = true;
    clearInterval(this.heartbeat);
    clearTimeout(this.relistings.pending);
    this.unregisterOwned();
    // Ends the session on the server too (an HTTP DELETE), not only this side's connection.
    await this.streamable?.terminateSession().catch(() => undefined);
    await this.client.close();
  }
}

/** A listed tool this client cannot register, and why (no name, a task-only tool, a schema that is not an object or past the bounds). */
function whyUnusable(tool: ListedTool, modern: boolean, runsTasks: boolean): { name: string; reason: string } | undefined {
  if (typeof tool?.name !== 'string' || tool.name === '')
    return { name: String((tool as { name?: unknown } | undefined)?.name ?? '(no name)'), reason: 'it has no name' };
  if (tool.execution?.taskSupport === 'required' && !runsTasks) {
    return { name: tool.name, reason: 'it runs only as an MCP task, and the server does not say it runs tools/call as one' };
  }
  if (tool.inputSchema?.type !== 'object')
    return { name: tool.name, reason: `its input schema is not an object (type ${JSON.stringify(tool.inputSchema?.type)})` };
  const bound = outOfBounds(tool);
  if (bound) return { name: tool.name, reason: bound };
  // Headers mirrored from arguments are the 2026-07-28 protocol's: there a malformed declaration makes the tool unusable.
  const header = modern ? invalidHeaderDeclaration(tool.inputSchema) : undefined;
  return header ? { name: tool.name, reason: `its x-mcp-header declarations are invalid (${header})` } : undefined;
}

/** A server's elicitation, put to the caller: a URL to open, or a form whose fields left out get their defaults. */
async function answerElicitation(elicit: NonNullable<McpConnectOptions['elicit']>, params: Record<string, unknown>): Promise<unknown> {
  if (params.mode === 'url') {
    const answer = await elicit({
      mode: 'url',
      message: String(params.message ?? ''),
      url: String(params.url ?? ''),
      elicitationId: String(params.elicitationId ?? ''),
    });
    return answer.action === 'accept' ? { action: 'accept' } : answer;
  }
  const requestedSchema = params.requestedSchema as Extract<McpElicitation, { mode: 'form' }>['requestedSchema'];
  const answer = await elicit({ mode: 'form', message: String(params.message ?? ''), requestedSchema });
  return answer.action === 'accept' ? { action: 'accept', content: withElicitationDefaults(requestedSchema, answer.content) } : answer;
}

/** A refusal for want of a session (HTTP 400 or 404, as the SDK's server answers a request without a valid session id). */
function sessionRefused(error: unknown): boolean {
  const code = httpStatus(error);
  return (code === 400 || code === 404) && /session|not initialized/i.test(error instanceof Error ? error.message : '');
}
