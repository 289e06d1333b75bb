/**
 * A web-standard handler (`(request: Request) => Promise<Response>`, as the MCP SDK's `createMcpHandler` gives one)
 * served by a Node HTTP server on loopback: the test MCP servers of the 2026-07-28 revision run behind it.
 */
import { createServer, type IncomingMessage } from 'node:http';
import type { AddressInfo } from 'node:net';
import { Readable } from 'node:stream';

/** Options of {@link serveWebHandler}. */
export interface ServeWebHandlerOptions {
  /** Headers added to every answer (CORS for a page, say); with them, a preflight (`OPTIONS`) is answered 204. */
  headers?: Record<string, string>;
  /** Told of each request, with its body, before the handler answers it. */
  onRequest?: (req: IncomingMessage, body: Buffer | undefined) => void;
}

/** A running server: its origin, and how to stop it. */
export interface ServedHandler {
  origin: string;
  close(): Promise<void>;
}

/** Serves `handle` on a free loopback port; a handler that throws is answered 500 with its message. */
export async function serveWebHandler(handle: (request: Request) => Promise<Response>, options: ServeWebHandlerOptions = {}): Promise<ServedHandler> {
  const added = options.headers ?? {};
  let origin = '';
  const server = createServer(async (req, res) => {
    if (req.method === 'OPTIONS' && options.headers) {
      res.writeHead(204, added);
      res.end();
      return;
    }
    const chunks: Buffer[] = [];
    for await (const chunk of req) chunks.push(chunk as Buffer);
    const body = chunks.length ? Buffer.concat(chunks) : undefined;
    options.onRequest?.(req, body);
    const headers = new Headers();
    for (const [name, value] of Object.entries(req.headers)) if (typeof value === 'string') headers.set(name, value);
    try {
      const answer = await handle(
        new Request(new URL(req.url ?? '/', origin), {
          method: req.method ?? 'GET',
          headers,
          ...(body ? { body: Readable.from(body) as never, duplex: 'half' } : {}),
        } as RequestInit),
      );
      res.writeHead(answer.status, { ...Object.fromEntries(answer.headers), ...added });
      if (answer.body) for await (const chunk of answer.body as unknown as AsyncIterable<Uint8Array>) res.write(chunk);
      res.end();
    } catch (error) {
      if (!res.headersSent) res.writeHead(500, { 'content-type': 'text/plain', ...added });
      res.end(String(error));
    }
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  origin = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  return {
    origin,
    close: async () => {
      server.closeAllConnections();
      await new Promise((resolve) => server.close(resolve));
    },
  };
}
