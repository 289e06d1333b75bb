/**
 * An MCP server of the 2026-07-28 revision for tests: the SDK's v2 server behind `createMcpHandler` (stateless,
 * `server/discover`, the `Mcp-Method` / `Mcp-Name` / `Mcp-Param-*` headers checked against the body), on a Node
 * HTTP server on loopback. It serves the 2025 `initialize` handshake too (the handler's default), as a server
 * in the wild does during the transition; `legacy: 'reject'` makes one that speaks 2026-07-28 only.
 */
import { createMcpHandler, fromJsonSchema, McpServer } from '@modelcontextprotocol/server';
import { serveWebHandler } from './serve-web-handler.ts';

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

/**
 * Starts a modern server on loopback.
 * @param options.legacy - `'reject'` for a server that answers only 2026-07-28 requests.
 */
export async function startModernMcpServer(options: { legacy?: 'reject' } = {}): Promise<ModernMcpServer> {
  const handler = createMcpHandler(buildServer, options.legacy ? { legacy: options.legacy } : {});
  const requests: ModernMcpServer['requests'] = [];
  const served = await serveWebHandler((request) => handler.fetch(request), {
    onRequest: (req) => requests.push({ method: req.method ?? '', headers: Object.fromEntries(Object.entries(req.headers).map(([k, v]) => [k, String(v)])) }),
  });
  return {
    url: `${served.origin}/mcp`,
    requests,
    close: async () => {
      await handler.close?.();
      await served.close();
    },
  };
}
