/**
 * A stdio MCP server (as npm publishes them: `npx @modelcontextprotocol/server-…`) reached over Streamable HTTP on
 * loopback, as a page reaches one through a gateway: the SDK's own stdio client transport runs the server, the
 * SDK's own Streamable HTTP server transport answers the client, and every message passes between them unchanged.
 */
import { randomUUID } from 'node:crypto';
import { createServer, type IncomingMessage } from 'node:http';
import type { AddressInfo } from 'node:net';
import { getDefaultEnvironment, StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { StreamableHTTPServerTransport } from '@modelcontextprotocol/sdk/server/streamableHttp.js';

/** A bridged server: its MCP endpoint and how to stop it (and the process). */
export interface BridgedServer {
  url: string;
  /** Every message the client sent the server, in order. */
  received: unknown[];
  close(): Promise<void>;
}

function body(req: IncomingMessage): Promise<unknown> {
  return new Promise((resolve, reject) => {
    let text = '';
    req.on('data', (chunk) => {
      text += chunk;
    });
    req.on('end', () => resolve(text ? JSON.parse(text) : undefined));
    req.on('error', reject);
  });
}

/**
 * Starts `command args` as a stdio MCP server and serves it at `http://127.0.0.1:<port>/mcp`, one session.
 * @param options.cwd - the server's working folder.
 * @param options.env - variables for the server, beside the SDK's default few (PATH, HOME…).
 */
export async function bridgeStdio(command: string, args: string[], options: { cwd?: string; env?: Record<string, string> } = {}): Promise<BridgedServer> {
  const child = new StdioClientTransport({
    command,
    args,
    stderr: 'ignore',
    env: { ...getDefaultEnvironment(), ...options.env },
    ...(options.cwd ? { cwd: options.cwd } : {}),
  });
  const http = new StreamableHTTPServerTransport({ sessionIdGenerator: () => randomUUID() });
  // A message the other side cannot take (the process gone, the session closed) is dropped: the client's own
  // timeout, or the process's exit, is what a real gateway's client meets then too.
  const received: unknown[] = [];
  http.onmessage = (message) => {
    received.push(message);
    void child.send(message).catch(() => undefined);
  };
  child.onmessage = (message) => void http.send(message).catch(() => undefined);
  await child.start();
  await http.start();
  const server = createServer(async (req, res) => {
    try {
      await http.handleRequest(req, res, req.method === 'POST' ? await body(req) : undefined);
    } catch (error) {
      if (!res.headersSent) res.writeHead(500).end(String(error));
    }
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/mcp`,
    received,
    close: async () => {
      await http.close().catch(() => undefined);
      await child.close().catch(() => undefined);
      server.closeAllConnections();
      await new Promise((resolve) => server.close(resolve));
    },
  };
}
