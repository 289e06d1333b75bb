/**
 * A real MCP server for the tests: the official SDK's `McpServer` over Streamable HTTP on
 * 127.0.0.1, run in a child process (`node --import tsx`). Prints `LISTENING <port>`, and
 * `CANCELLED <tool>` when a client cancels a call. Tools: `add_numbers` (read-only), `slow_echo`
 * (read-only, waits until cancelled, at most 30 s), `broken` (answers `isError`), `delete_note`
 * (not read-only), `enable_extra` (registers `extra_tool`: the tool list changes), `describe_chart`
 * (an image and structured content). `PORT` picks the port (default any); `EXTRA_TOOLS=n` adds n more.
 */
import { randomUUID } from 'node:crypto';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { StreamableHTTPServerTransport } from '@modelcontextprotocol/sdk/server/streamableHttp.js';
import { z } from 'zod';

function newServer(): McpServer {
  const server = new McpServer({ name: 'notes', version: '1.0.0' });
  server.registerTool(
    'add_numbers',
    { description: 'Add two numbers.', inputSchema: { a: z.number(), b: z.number() }, annotations: { readOnlyHint: true } },
    async ({ a, b }) => ({ content: [{ type: 'text', text: String(a + b) }] }),
  );
  server.registerTool(
    'slow_echo',
    { description: 'Echo a text, slowly.', inputSchema: { text: z.string() }, annotations: { readOnlyHint: true } },
    async ({ text }, extra) =>
      new Promise((resolve) => {
        const timer = setTimeout(() => resolve({ content: [{ type: 'text', text }] }), 30_000);
        extra.signal.addEventListener('abort', () => {
          clearTimeout(timer);
          console.log('CANCELLED slow_echo');
          resolve({ content: [{ type: 'text', text: 'cancelled' }] });
        });
      }),
  );
  server.registerTool('broken', { description: 'Always fails.', inputSchema: {}, annotations: { readOnlyHint: true } }, async () => ({
    isError: true,
    content: [{ type: 'text', text: 'the notes backend is down' }],
  }));
  server.registerTool(
    'delete_note',
    { description: 'Delete a note by id.', inputSchema: { id: z.number() }, annotations: { readOnlyHint: false, destructiveHint: true } },
    async ({ id }) => ({ content: [{ type: 'text', text: `Note ${id} deleted.` }] }),
  );
  server.registerTool('describe_chart', { description: 'A chart of sales.', inputSchema: {}, annotations: { readOnlyHint: true } }, async () => ({
    content: [
      { type: 'text', text: 'Sales rose 12% in March.' },
      { type: 'image', data: Buffer.from('not really a png').toString('base64'), mimeType: 'image/png' },
    ],
    structuredContent: { month: 'March', growth: 0.12 },
  }));
  // `EXTRA_TOOLS=n`: n more read-only tools, for the bench's listing of a large server.
  for (let i = 0; i < Number(process.env.EXTRA_TOOLS ?? 0); i++) {
    server.registerTool(
      `lookup_${i}`,
      { description: `Look up record kind ${i} by its id.`, inputSchema: { id: z.string() }, annotations: { readOnlyHint: true } },
      async ({ id }) => ({ content: [{ type: 'text', text: `record ${i}/${id}` }] }),
    );
  }
  server.registerTool('enable_extra', { description: 'Adds a tool.', inputSchema: {}, annotations: { readOnlyHint: true } }, async () => {
    server.registerTool('extra_tool', { description: 'An extra tool.', inputSchema: {}, annotations: { readOnlyHint: true } }, async () => ({
      content: [{ type: 'text', text: 'extra' }],
    }));
    return { content: [{ type: 'text', text: 'enabled' }] };
  });
  return server;
}

const transports = new Map<string, StreamableHTTPServerTransport>();
const http = createServer(async (req, res) => {
  const session = req.headers['mcp-session-id'];
  let transport = typeof session === 'string' ? transports.get(session) : undefined;
  if (!transport) {
    transport = new StreamableHTTPServerTransport({
      sessionIdGenerator: () => randomUUID(),
      onsessioninitialized: (id) => {
        if (transport) transports.set(id, transport);
      },
    });
    await newServer().connect(transport);
  }
  await transport.handleRequest(req, res);
});
http.listen(Number(process.env.PORT ?? 0), '127.0.0.1', () => console.log(`LISTENING ${(http.address() as AddressInfo).port}`));
process.on('SIGTERM', () => process.exit(0));
