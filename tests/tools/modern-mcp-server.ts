/**
 * An MCP server of the 2026-07-28 revision for tests: the SDK's v2 server behind `createMcpHandler` (stateless,
 * `server/discover`, the `Mcp-Method` / `Mcp-Name` / `Mcp-Param-*` headers checked against the body), on a Node
 * HTTP server on loopback. It serves the 2025 `initialize` handshake too (the handler's default), as a server
 * in the wild does during the transition; `legacy: 'reject'` makes one that speaks 2026-07-28 only.
 */
import { createServer, type IncomingMessage, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { Readable } from 'node:stream';
import { createMcpHandler, fromJsonSchema, McpServer } from '@modelcontextprotocol/server';

/** A running modern server: its MCP endpoint, what it saw, and how to stop it. */
export interface ModernMcpServer {
  url: string;
  /** The headers of every request it answered (lower-case names), in order. */
  requests: { method: string; headers: Record<string, string> }[];
  close(): Promise<void>;
}

/** The tools it offers: `echo` (text back) and `add` (two numbers), with JSON Schema 2020-12 input schemas, and `score`, malformed. */
function buildServer(): McpServer {
  const server = new McpServer({ name: 'modern-notes', version: '1.0.0' }, { capabilities: { tools: {} } });
  server.registerTool(
    'echo',
    {
      description: 'Say the text back',
      inputSchema: fromJsonSchema<{ text: string; region?: string }>({
        $schema: 'https://json-schema.org/draft/2020-12/schema',
        type: 'object',
        properties: { text: { type: 'string' }, region: { type: 'string', 'x-mcp-header': 'Region' } },
        required: ['text'],
      } as never),
    },
    async (args) => ({ content: [{ type: 'text', text: `echo: ${args.text}` }] }),
  );
  server.registerTool(
    'add',
    {
      description: 'Add two numbers',
      inputSchema: fromJsonSchema<{ a: number; b: number }>({
        type: 'object',
        properties: { a: { type: 'number' }, b: { type: 'number' } },
        required: ['a', 'b'],
      } as never),
    },
    async ({ a, b }) => ({ content: [{ type: 'text', text: String(a + b) }] }),
  );
  // A tool the 2026-07-28 revision makes unusable: a header may not carry a number (a client must leave it out).
  server.registerTool(
    'score',
    {
      description: 'Record a score',
      inputSchema: fromJsonSchema<{ score: number }>({
        type: 'object',
        properties: { score: { type: 'number', 'x-mcp-header': 'Score' } },
        required: ['score'],
      } as never),
    },
    async () => ({ content: [{ type: 'text', text: 'recorded' }] }),
  );
  return server;
}

/** A Node request as the web `Request` the handler takes (its body streamed, not buffered). */
function webRequest(req: IncomingMessage, origin: string): Request {
  const headers = new Headers();
  for (const [name, value] of Object.entries(req.headers)) if (typeof value === 'string') headers.set(name, value);
  const hasBody = req.method !== 'GET' && req.method !== 'HEAD';
  return new Request(new URL(req.url ?? '/', origin), {
    method: req.method ?? 'GET',
    headers,
    ...(hasBody ? { body: Readable.toWeb(req) as ReadableStream, duplex: 'half' } : {}),
  } as RequestInit);
}

/**
 * Starts a modern server on loopback.
 * @param options.legacy - `'reject'` for a server that answers only 2026-07-28 requests.
 */
export async function startModernMcpServer(options: { legacy?: 'reject' } = {}): Promise<ModernMcpServer> {
  const handler = createMcpHandler(buildServer, options.legacy ? { legacy: options.legacy } : {});
  const requests: ModernMcpServer['requests'] = [];
  let origin = '';
  const server: Server = createServer(async (req, res) => {
    requests.push({ method: req.method ?? '', headers: Object.fromEntries(Object.entries(req.headers).map(([k, v]) => [k, String(v)])) });
    try {
      const answer = await handler.fetch(webRequest(req, origin));
      res.writeHead(answer.status, Object.fromEntries(answer.headers));
      if (answer.body) for await (const chunk of answer.body as unknown as AsyncIterable<Uint8Array>) res.write(chunk);
      res.end();
    } catch (error) {
      if (!res.headersSent) res.writeHead(500, { 'content-type': 'text/plain' });
      res.end(String(error));
    }
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  origin = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  return {
    url: `${origin}/mcp`,
    requests,
    close: async () => {
      await handler.close?.();
      server.closeAllConnections();
      await new Promise((resolve) => server.close(resolve));
    },
  };
}
