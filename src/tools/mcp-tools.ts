import { NexusError, registerErrorClass } from '../shared/errors.ts';
import type { ToolHandler, ToolRegistry } from './tool-registry.ts';

/** An MCP server that could not be connected to or listed: the message names the address and what happened. */
export class McpConnectError extends NexusError {
  override readonly name = 'McpConnectError';
}
registerErrorClass(McpConnectError, 'McpConnectError');

/** Options of {@link connectMcp}. */
export interface McpConnectOptions {
  /** Headers sent with every request (an `Authorization` token, for example). */
  headers?: Record<string, string>;
  /**
   * Run the server's tools without asking (default: each asks, as a `confirm` tool, whatever the server
   * says of it: a `readOnlyHint` is the server's claim, believed only of a trusted server).
   */
  trust?: boolean;
  /** Longest wait for the connection and the tool list (default 10 s). */
  connectTimeoutMs?: number;
  /** Longest wait for one call (default 60 s); past it the call is cancelled and fails. */
  callTimeoutMs?: number;
  /** The `fetch` the transport uses (default the global one). */
  fetch?: typeof globalThis.fetch;
  /** Told when the server's tool list changed and the registry was updated (names now registered). */
  onToolsChanged?: (tools: readonly string[]) => void;
  /**
   * Told once when the server stops answering (the connection closed, a heartbeat or a call failed
   * for want of the server, not for an error the server reported); its tools are unregistered first.
   */
  onLost?: (reason: string) => void;
  /** Pings the server this often while connected, so a restart or a crash is noticed between calls (default 0: off). */
  heartbeatMs?: number;
}

/** A connected MCP server whose tools are in a registry. */
export interface McpConnection {
  /** The address connected to. */
  readonly url: string;
  /** The name the server gave itself. */
  readonly serverName: string;
  /** The registered names of its tools (namespaced `<server>__<tool>` where a name was taken). */
  readonly tools: readonly string[];
  /** Tools left out, with why (a schema that is not an object, a list past the bound). */
  readonly skipped: readonly { name: string; reason: string }[];
  /**
   * Registered names of its tools whose description, schema or hints changed since this connection
   * first listed them: a tool approved as "Read a note" must not run unasked as "Email the text".
   */
  readonly changed: readonly string[];
  /**
   * Registers its tools in `registry` (taking them out of the one they were in): after a chat's
   * registry was replaced, or its tool set restored (a reloaded `tools.js`), which drops them.
   */
  attach(registry: ToolRegistry): void;
  /** Unregisters its tools and closes the connection. */
  close(): Promise<void>;
}

/** Most tools taken from one server (a listing past it is cut, and says so in `skipped`). */
const MAX_TOOLS = 500;
/** Longest tool description taken: a longer one is a page of text in every prompt (the tool is skipped, and named). */
const MAX_DESCRIPTION_CHARS = 2_000;
/** Deepest and largest input schema taken: one that registers must not break every answer after it. */
const MAX_SCHEMA_DEPTH = 12;
const MAX_SCHEMA_CHARS = 32_000;
/** Most parts of one result turned into text (the rest are counted). */
const MAX_RESULT_PARTS = 64;
/** Most re-listings a server's `tools/list_changed` notices cause in a minute; more are folded into one at the minute's end. */
const MAX_RELISTINGS_PER_MINUTE = 6;
/** Most pages of a paginated listing followed. */
const MAX_PAGES = 50;
/** Most characters of text kept from one part of a result before the loop's own cap applies. */
const MAX_PART_CHARS = 100_000;
/** A result "schema" in the shape the SDK's request() takes that accepts any JSON: the caller checks it. */
const ANY_RESULT = { safeParse: (data: unknown) => ({ success: true, data }) };
/** JSON-RPC code of the SDK's own request timeout: the server is there, the call was slow. */
const REQUEST_TIMEOUT = -32001;

/** Text of one part, cut at {@link MAX_PART_CHARS} with a note saying how much there was. */
function bounded(text: string): string {
  return text.length <= MAX_PART_CHARS ? text : `${text.slice(0, MAX_PART_CHARS)}\n[cut: ${text.length.toLocaleString('en-US')} characters in all]`;
}

/** The MCP tool as the server lists it. */
interface ListedTool {
  name: string;
  description?: string;
  inputSchema: { type?: unknown; properties?: Record<string, unknown>; required?: string[] };
  annotations?: { readOnlyHint?: boolean; title?: string };
}

/** A content part of a call result. */
type ResultPart = {
  type: string;
  text?: string;
  mimeType?: string;
  data?: string;
  resource?: { uri?: string; mimeType?: string; text?: string };
  uri?: string;
  name?: string;
};

/**
 * What the model reads of a call result: its text parts, the structured content as JSON beside
 * them, images, audio and resources described in words (a text model cannot see them).
 */
export function mcpResultText(result: { content?: ResultPart[]; structuredContent?: unknown }): string {
  const all = result.content ?? [];
  const parts = all.slice(0, MAX_RESULT_PARTS).map((part) => {
    switch (part.type) {
      case 'text':
        return bounded(part.text ?? '');
      case 'image':
      case 'audio':
        return `[${part.type}: ${part.mimeType ?? 'unknown type'}, ${Math.round(((part.data?.length ?? 0) * 3) / 4 / 1024)} KB, not shown to this text model]`;
      case 'resource':
        return part.resource?.text !== undefined
          ? `[resource ${part.resource.uri ?? ''}]\n${bounded(part.resource.text)}`
          : `[resource ${part.resource?.uri ?? ''} (${part.resource?.mimeType ?? 'binary'}), not shown]`;
      case 'resource_link':
        return `[link: ${part.name ?? ''} ${part.uri ?? ''}]`;
      default:
        return `[${part.type} content, not shown]`;
    }
  });
  if (all.length > MAX_RESULT_PARTS) parts.push(`[${all.length - MAX_RESULT_PARTS} more parts not shown]`);
  if (result.structuredContent !== undefined) parts.push(bounded(JSON.stringify(result.structuredContent)));
  return parts.filter(Boolean).join('\n');
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
  if (typeof tool.description === 'string' && tool.description.length > MAX_DESCRIPTION_CHARS) {
    return `its description is longer than ${MAX_DESCRIPTION_CHARS.toLocaleString('en-US')} characters`;
  }
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
 * Connects to an MCP server over Streamable HTTP (the older HTTP+SSE transport where the server only
 * speaks that), lists its tools (every page, up to 500 tools) and registers them in `registry`:
 * their JSON Schemas validated like any tool's (a schema that is not an object is skipped and
 * named), a name another tool has taken namespaced `<server>__<tool>`, and every tool registered as
 * `confirm` (it asks the user) unless the server is trusted — its own hints decide nothing. A call sends
 * its validated arguments; its result comes back as text (structured content as JSON, images and
 * resources described), an `isError` result as the tool's error, a stopped answer as the MCP
 * cancellation notification. The server's `tools/list_changed` updates the registry, and a tool whose
 * description, schema or hints changed is named in `changed`.
 *
 * @param url - the server's MCP endpoint.
 * @param registry - where its tools go.
 * @param options - headers, trust, timeouts, fetch.
 * @throws McpConnectError naming the address when it is not an MCP server, does not answer in time or lists no usable tool.
 */
export async function connectMcp(url: string, registry: ToolRegistry, options: McpConnectOptions = {}): Promise<McpConnection> {
  const [{ Client }, { StreamableHTTPClientTransport }, { SSEClientTransport }, { ToolListChangedNotificationSchema, McpError }] = await Promise.all([
    import('@modelcontextprotocol/sdk/client/index.js'),
    import('@modelcontextprotocol/sdk/client/streamableHttp.js'),
    import('@modelcontextprotocol/sdk/client/sse.js'),
    import('@modelcontextprotocol/sdk/types.js'),
  ]);
  let endpoint: URL;
  try {
    endpoint = new URL(url, globalThis.location?.href);
  } catch {
    throw new McpConnectError(`"${url}" is not an address. Give the MCP server's endpoint, such as http://127.0.0.1:3001/mcp.`);
  }
  const connectTimeout = options.connectTimeoutMs ?? 10_000;
  const requestInit = options.headers ? { headers: options.headers } : undefined;
  const transportOptions = { ...(requestInit ? { requestInit } : {}), ...(options.fetch ? { fetch: options.fetch } : {}) };
  let client = new Client({ name: 'browser-llm-nexus', version: '1' });
  try {
    await within(connectTimeout, 'connecting', client.connect(new StreamableHTTPClientTransport(endpoint, transportOptions)));
  } catch (first) {
    await client.close().catch(() => undefined);
    // A server of the older protocol answers the Streamable HTTP POST with an error: try HTTP+SSE.
    // A server that hangs is not asked twice: the wait is bounded once.
    const hung = /took longer than/.test((first as Error).message);
    client = new Client({ name: 'browser-llm-nexus', version: '1' });
    try {
      if (hung) throw first;
      await within(connectTimeout, 'connecting', client.connect(new SSEClientTransport(endpoint, transportOptions)));
    } catch {
      await client.close().catch(() => undefined);
      throw new McpConnectError(`Could not connect to the MCP server at ${url}: ${describeFailure(first)}. ${connectAdvice(first, endpoint)}`);
    }
  }
  const serverName = safeName(client.getServerVersion()?.name ?? endpoint.hostname);
  const callTimeout = options.callTimeoutMs ?? 60_000;
  let target = registry;
  let listed: ListedTool[] = [];
  /** What this connection registered, by name, with the handler that tells its own entry from another's. */
  let owned = new Map<string, ToolHandler>();
  let skipped: { name: string; reason: string }[] = [];
  /** Each tool's definition as first listed, by the server's name for it. */
  const firstListed = new Map<string, string>();
  /** The server's names of tools whose definition changed since; and their registered names now. */
  const changedTools = new Set<string>();
  const changedNames = new Set<string>();
  let closed = false;
  let heartbeat: ReturnType<typeof setInterval> | undefined;

  const unregisterOwned = () => {
    for (const [name, handler] of owned) if (target.get(name)?.handler === handler) target.unregister(name);
    owned = new Map();
  };

  const lost = (reason: string) => {
    if (closed) return;
    closed = true;
    clearInterval(heartbeat);
    unregisterOwned();
    void client.close().catch(() => undefined);
    options.onLost?.(reason);
  };

  /** Whether the last listing stopped with more pages to go (past the tool or page bound). */
  let cutShort = false;
  const listAll = async (): Promise<ListedTool[]> => {
    const tools: ListedTool[] = [];
    cutShort = false;
    let cursor: string | undefined;
    // The whole listing, every page of it, within the documented connect wait: not that wait per page.
    const deadline = Date.now() + connectTimeout;
    for (let page = 0; page < MAX_PAGES; page++) {
      // Listed without the SDK's own result schema, which refuses the whole list for one odd tool:
      // each tool is checked here, and one that cannot be used is skipped and named.
      const listing = (await within(
        Math.max(deadline - Date.now(), 1),
        'listing the tools',
        client.request({ method: 'tools/list', ...(cursor ? { params: { cursor } } : {}) }, ANY_RESULT as never),
      )) as { tools?: unknown; nextCursor?: unknown };
      if (!Array.isArray(listing.tools)) throw new Error('its tools/list answer has no list of tools');
      tools.push(...(listing.tools as ListedTool[]));
      cursor = typeof listing.nextCursor === 'string' && listing.nextCursor !== '' ? listing.nextCursor : undefined;
      if (!cursor) break;
      if (tools.length >= MAX_TOOLS || page === MAX_PAGES - 1) {
        cutShort = true;
        break;
      }
    }
    return tools;
  };

  const callTool = async (tool: ListedTool, args: Record<string, unknown>, signal: AbortSignal | undefined): Promise<string> => {
    let result: { content?: ResultPart[]; structuredContent?: unknown; isError?: boolean };
    try {
      result = (await client.callTool({ name: tool.name, arguments: args }, undefined, {
        ...(signal ? { signal } : {}),
        timeout: callTimeout,
      })) as typeof result;
    } catch (error) {
      if (signal?.aborted) throw error;
      if (error instanceof McpError) {
        if (error.code === REQUEST_TIMEOUT) throw new Error(`${tool.name} did not answer within ${callTimeout / 1000} s; the call was cancelled.`);
        throw error;
      }
      // Not an answer from the server but the want of one: its tools go until it is back.
      lost(describeFailure(error));
      throw new Error(`The MCP server ${serverName} cannot be reached (${describeFailure(error)}); its tools are unavailable until it is back.`);
    }
    const text = mcpResultText(result);
    if (result.isError) throw new Error(text || `${tool.name} failed on the server.`);
    return text;
  };

  const register = () => {
    unregisterOwned();
    changedNames.clear();
    skipped = listed.slice(MAX_TOOLS).map((t) => ({ name: t.name, reason: `more than ${MAX_TOOLS} tools listed` }));
    if (cutShort) skipped.push({ name: '(the rest of the list)', reason: `more than ${MAX_TOOLS} tools listed` });
    for (const tool of listed.slice(0, MAX_TOOLS)) {
      if (typeof tool?.name !== 'string' || tool.name === '') {
        skipped.push({ name: String((tool as { name?: unknown } | undefined)?.name ?? '(no name)'), reason: 'it has no name' });
        continue;
      }
      if (tool.inputSchema?.type !== 'object') {
        skipped.push({ name: tool.name, reason: `its input schema is not an object (type ${JSON.stringify(tool.inputSchema?.type)})` });
        continue;
      }
      const bound = outOfBounds(tool);
      if (bound) {
        skipped.push({ name: tool.name, reason: bound });
        continue;
      }
      const own = safeName(tool.name);
      const name = target.resolveName(own) === undefined ? own : safeName(`${serverName}__${tool.name}`);
      // A server's hints are its own claims: MCP's specification says those of an untrusted server must
      // not decide anything, so only the user's trust skips the approval, and only then is read-only believed.
      const readOnly = options.trust === true && tool.annotations?.readOnlyHint === true;
      const definition = JSON.stringify({ description: tool.description ?? null, inputSchema: tool.inputSchema, annotations: tool.annotations ?? null });
      const first = firstListed.get(tool.name);
      if (first === undefined) firstListed.set(tool.name, definition);
      else if (first !== definition) changedTools.add(tool.name);
      const handler: ToolHandler = (args, context) => callTool(tool, args, context.signal);
      try {
        target.tool(
          name,
          tool.description ?? tool.annotations?.title ?? tool.name,
          {
            type: 'object',
            properties: tool.inputSchema.properties ?? {},
            ...(tool.inputSchema.required ? { required: tool.inputSchema.required } : {}),
          } as never,
          handler,
          { readOnly, ...(options.trust ? {} : { confirm: true }) },
        );
        owned.set(name, handler);
        if (changedTools.has(tool.name)) changedNames.add(name);
      } catch (error) {
        skipped.push({ name: tool.name, reason: (error as Error).message });
      }
    }
  };

  try {
    listed = await listAll();
    register();
  } catch (error) {
    await client.close().catch(() => undefined);
    throw new McpConnectError(`The MCP server at ${url} connected but its tools could not be listed: ${describeFailure(error)}.`);
  }
  const relist = async () => {
    try {
      listed = await listAll();
    } catch (error) {
      lost(describeFailure(error));
      return;
    }
    if (closed) return;
    register();
    if (relistings.folded) noteFolding();
    options.onToolsChanged?.([...owned.keys()]);
  };
  /** Says, in the server's state line, that its change notices are being folded. */
  const noteFolding = () => {
    if (skipped.some((s) => s.name === '(re-listing)')) return;
    skipped.push({
      name: '(re-listing)',
      reason: `it asked to re-list its tools more than ${MAX_RELISTINGS_PER_MINUTE} times a minute; its list is read again at most that often`,
    });
  };
  // A server may send `list_changed` as often as it likes: at most a few re-listings a minute, the rest folded into one.
  const relistings = { times: [] as number[], pending: undefined as ReturnType<typeof setTimeout> | undefined, folded: false };
  client.setNotificationHandler(ToolListChangedNotificationSchema, async () => {
    const now = Date.now();
    relistings.times = relistings.times.filter((t) => now - t < 60_000);
    if (relistings.times.length < MAX_RELISTINGS_PER_MINUTE) {
      relistings.times.push(now);
      await relist();
      return;
    }
    relistings.folded = true;
    noteFolding();
    relistings.pending ??= setTimeout(
      () => {
        relistings.pending = undefined;
        relistings.times.push(Date.now());
        void relist();
      },
      60_000 - (now - (relistings.times[0] ?? now)),
    );
  });
  client.onclose = () => lost('the connection closed');
  if (options.heartbeatMs) {
    heartbeat = setInterval(() => {
      within(connectTimeout, 'a ping', client.ping()).catch((error) => lost(describeFailure(error)));
    }, options.heartbeatMs);
  }

  return {
    url,
    serverName,
    get tools() {
      return [...owned.keys()];
    },
    get skipped() {
      return [...skipped];
    },
    get changed() {
      return [...changedNames];
    },
    attach(next: ToolRegistry) {
      if (closed) return;
      unregisterOwned();
      target = next;
      register();
    },
    close: async () => {
      if (closed) return;
      closed = true;
      clearInterval(heartbeat);
      clearTimeout(relistings.pending);
      unregisterOwned();
      await client.close();
    },
  };
}

/**
 * What to do about a failed connection. In a page, a request another origin does not allow (CORS)
 * or the page's own policy forbids fails as a bare network error: say so, and name the relay.
 */
function connectAdvice(error: unknown, endpoint: URL): string {
  const page = globalThis.location?.origin;
  if (error instanceof TypeError && page && page !== 'null' && endpoint.origin !== page) {
    return `The browser refused the request or could not reach the server: a server reached from this page must be running, allow the page's origin (${page}) in its CORS headers, and be allowed by the page's connect policy (CONNECT_ORIGINS). Otherwise list it in MCP_SERVERS on the app server, which relays to it.`;
  }
  return "Check that the address is the server's MCP endpoint (often ending in /mcp) and that the server is running.";
}

/** One line for a failure: the SDK's errors carry an HTTP status or a JSON-RPC code worth keeping. */
function describeFailure(error: unknown): string {
  if (!(error instanceof Error)) return String(error);
  const status = (error as { code?: unknown }).code;
  if (/HTTP/.test(error.message) && typeof status === 'number' && status >= 400 && status < 600) {
    // The SDK puts the whole response body in the message: an HTML error page says nothing more than its status.
    return `the server answered HTTP ${status}, not as an MCP server`;
  }
  const cause = error.cause instanceof Error ? ` (${error.cause.message})` : '';
  return `${error.message.replace(/\.\s*$/, '')}${cause}`;
}
