import { NexusError, registerErrorClass } from '../shared/errors.ts';
import type { ToolRegistry } from './tool-registry.ts';

/** An MCP server that could not be connected to or listed: the message names the address and what happened. */
export class McpConnectError extends NexusError {
  override readonly name = 'McpConnectError';
}
registerErrorClass(McpConnectError, 'McpConnectError');

/** Options of {@link connectMcp}. */
export interface McpConnectOptions {
  /** Headers sent with every request (an `Authorization` token, for example). */
  headers?: Record<string, string>;
  /** Run the server's tools that are not marked read-only without asking (default: each asks, as a `confirm` tool). */
  trust?: boolean;
  /** Longest wait for the connection and the tool list (default 10 s). */
  connectTimeoutMs?: number;
  /** Longest wait for one call (default 60 s); past it the call is cancelled and fails. */
  callTimeoutMs?: number;
  /** The `fetch` the transport uses (default the global one). */
  fetch?: typeof globalThis.fetch;
  /** Told when the server's tool list changed and the registry was updated (names now registered). */
  onToolsChanged?: (tools: readonly string[]) => void;
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
  /** Unregisters its tools and closes the connection. */
  close(): Promise<void>;
}

/** Most tools taken from one server (a listing past it is cut, and says so in `skipped`). */
const MAX_TOOLS = 500;
/** Most pages of a paginated listing followed. */
const MAX_PAGES = 50;
/** Most characters of text kept from one part of a result before the loop's own cap applies. */
const MAX_PART_CHARS = 100_000;

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
  const parts = (result.content ?? []).map((part) => {
    switch (part.type) {
      case 'text':
        return (part.text ?? '').slice(0, MAX_PART_CHARS);
      case 'image':
      case 'audio':
        return `[${part.type}: ${part.mimeType ?? 'unknown type'}, ${Math.round(((part.data?.length ?? 0) * 3) / 4 / 1024)} KB, not shown to this text model]`;
      case 'resource':
        return part.resource?.text !== undefined
          ? `[resource ${part.resource.uri ?? ''}]\n${part.resource.text.slice(0, MAX_PART_CHARS)}`
          : `[resource ${part.resource?.uri ?? ''} (${part.resource?.mimeType ?? 'binary'}), not shown]`;
      case 'resource_link':
        return `[link: ${part.name ?? ''} ${part.uri ?? ''}]`;
      default:
        return `[${part.type} content, not shown]`;
    }
  });
  if (result.structuredContent !== undefined) parts.push(JSON.stringify(result.structuredContent));
  return parts.filter(Boolean).join('\n');
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
 * named), a name another tool has taken namespaced `<server>__<tool>`, and a tool not marked
 * read-only registered as `confirm` (it asks the user) unless the server is trusted. A call sends
 * its validated arguments; its result comes back as text (structured content as JSON, images and
 * resources described), an `isError` result as the tool's error, a stopped answer as the MCP
 * cancellation notification. The server's `tools/list_changed` updates the registry.
 *
 * @param url - the server's MCP endpoint.
 * @param registry - where its tools go.
 * @param options - headers, trust, timeouts, fetch.
 * @throws McpConnectError naming the address when it is not an MCP server, does not answer in time or lists no usable tool.
 */
export async function connectMcp(url: string, registry: ToolRegistry, options: McpConnectOptions = {}): Promise<McpConnection> {
  const [{ Client }, { StreamableHTTPClientTransport }, { SSEClientTransport }, { ToolListChangedNotificationSchema }] = await Promise.all([
    import('@modelcontextprotocol/sdk/client/index.js'),
    import('@modelcontextprotocol/sdk/client/streamableHttp.js'),
    import('@modelcontextprotocol/sdk/client/sse.js'),
    import('@modelcontextprotocol/sdk/types.js'),
  ]);
  const endpoint = new URL(url);
  const connectTimeout = options.connectTimeoutMs ?? 10_000;
  const requestInit = options.headers ? { headers: options.headers } : undefined;
  const transportOptions = { ...(requestInit ? { requestInit } : {}), ...(options.fetch ? { fetch: options.fetch } : {}) };
  let client = new Client({ name: 'browser-llm-nexus', version: '1' });
  try {
    await within(connectTimeout, 'connecting', client.connect(new StreamableHTTPClientTransport(endpoint, transportOptions)));
  } catch (first) {
    // A server of the older protocol answers the Streamable HTTP POST with an error: try HTTP+SSE.
    client = new Client({ name: 'browser-llm-nexus', version: '1' });
    try {
      await within(connectTimeout, 'connecting', client.connect(new SSEClientTransport(endpoint, transportOptions)));
    } catch {
      throw new McpConnectError(
        `Could not connect to the MCP server at ${url}: ${(first as Error).message}. Check that the address is the server's MCP endpoint (often ending in /mcp) and that the server is running.`,
      );
    }
  }
  const serverName = safeName(client.getServerVersion()?.name ?? endpoint.hostname);
  const callTimeout = options.callTimeoutMs ?? 60_000;
  let registered: string[] = [];
  let skipped: { name: string; reason: string }[] = [];

  const listAll = async (): Promise<ListedTool[]> => {
    const tools: ListedTool[] = [];
    let cursor: string | undefined;
    for (let page = 0; page < MAX_PAGES; page++) {
      const listed = await within(connectTimeout, 'listing the tools', client.listTools(cursor ? { cursor } : undefined));
      tools.push(...(listed.tools as ListedTool[]));
      cursor = listed.nextCursor;
      if (!cursor || tools.length >= MAX_TOOLS) break;
    }
    return tools;
  };

  const register = (tools: ListedTool[]) => {
    for (const name of registered) registry.unregister(name);
    registered = [];
    skipped = tools.slice(MAX_TOOLS).map((t) => ({ name: t.name, reason: `more than ${MAX_TOOLS} tools listed` }));
    for (const tool of tools.slice(0, MAX_TOOLS)) {
      if (tool.inputSchema?.type !== 'object') {
        skipped.push({ name: tool.name, reason: `its input schema is not an object (type ${JSON.stringify(tool.inputSchema?.type)})` });
        continue;
      }
      const own = safeName(tool.name);
      const name = registry.resolveName(own) === undefined ? own : safeName(`${serverName}__${tool.name}`);
      const readOnly = tool.annotations?.readOnlyHint === true;
      try {
        registry.tool(
          name,
          tool.description ?? tool.annotations?.title ?? tool.name,
          {
            type: 'object',
            properties: tool.inputSchema.properties ?? {},
            ...(tool.inputSchema.required ? { required: tool.inputSchema.required } : {}),
          } as never,
          async (args: Record<string, unknown>, context) => {
            const result = (await client.callTool({ name: tool.name, arguments: args }, undefined, {
              ...(context.signal ? { signal: context.signal } : {}),
              timeout: callTimeout,
            })) as { content?: ResultPart[]; structuredContent?: unknown; isError?: boolean };
            const text = mcpResultText(result);
            if (result.isError) throw new Error(text || `${tool.name} failed on the server.`);
            return text;
          },
          { readOnly, ...(readOnly || options.trust ? {} : { confirm: true }) },
        );
        registered.push(name);
      } catch (error) {
        skipped.push({ name: tool.name, reason: (error as Error).message });
      }
    }
  };

  try {
    register(await listAll());
  } catch (error) {
    await client.close().catch(() => undefined);
    throw new McpConnectError(`The MCP server at ${url} connected but its tools could not be listed: ${(error as Error).message}.`);
  }
  client.setNotificationHandler(ToolListChangedNotificationSchema, async () => {
    register(await listAll());
    options.onToolsChanged?.([...registered]);
  });

  return {
    url,
    serverName,
    get tools() {
      return [...registered];
    },
    get skipped() {
      return [...skipped];
    },
    close: async () => {
      for (const name of registered) registry.unregister(name);
      registered = [];
      await client.close();
    },
  };
}
