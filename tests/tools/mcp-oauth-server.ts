/**
 * `OAUTH=1` of the test MCP server: an OAuth 2.1 authorization server on its own loopback port, made of
 * the official SDK's router (`mcpAuthRouter`: metadata, dynamic registration, PKCE, tokens) and its demo
 * provider, which approves every authorization at once (there is no user to log in: the page's sign-in
 * window is what is tested). The MCP endpoint then wants its tokens, as MCP specifies: a 401 naming the
 * protected-resource metadata, which names this authorization server.
 */
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { createRequire } from 'node:module';
import { mcpAuthRouter } from '@modelcontextprotocol/sdk/server/auth/router.js';
import { DemoInMemoryAuthProvider } from '@modelcontextprotocol/sdk/examples/server/demoInMemoryOAuthProvider.js';

// Express comes with the SDK; its types do not (the router is all this file uses of it).
const express = createRequire(import.meta.url)('express') as () => ((req: IncomingMessage, res: ServerResponse) => void) & { use(handler: unknown): void };

/** The authorization server, and a check of a request's bearer token. */
export interface TestAuthServer {
  url: string;
  /** Whether the request carries a token this server issued and that has not expired. */
  verify(req: IncomingMessage): Promise<boolean>;
}

/** Starts the authorization server on 127.0.0.1 (any port). */
export async function startAuthServer(): Promise<TestAuthServer> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  const provider = new DemoInMemoryAuthProvider();
  const app = express();
  app.use(mcpAuthRouter({ provider, issuerUrl: new URL(url), scopesSupported: ['mcp:tools'] }));
  server.on('request', app);
  return {
    url,
    async verify(req) {
      const header = req.headers.authorization ?? '';
      if (!header.startsWith('Bearer ')) return false;
      return provider.verifyAccessToken(header.slice(7)).then(
        () => true,
        () => false,
      );
    },
  };
}

/**
 * Answers the MCP server's side of the sign-in: its protected-resource metadata, and a 401 naming it for
 * a request without a valid token. Returns true when the request was answered here.
 */
export async function guardWithOAuth(auth: TestAuthServer, req: IncomingMessage, res: ServerResponse, port: number): Promise<boolean> {
  const path = new URL(req.url ?? '/', 'http://x').pathname;
  const resource = `http://127.0.0.1:${port}/mcp`;
  if (path.startsWith('/.well-known/oauth-protected-resource')) {
    res.writeHead(200, { 'content-type': 'application/json' });
    // The authorization server named exactly as its metadata's issuer (the SDK's router writes the URL's href, with
    // its slash): a client checks the two are identical (RFC 8414, 3.3), as the 2026-07-28 suite asks.
    res.end(JSON.stringify({ resource, authorization_servers: [new URL(auth.url).href], scopes_supported: ['mcp:tools'] }));
    return true;
  }
  if (req.method === 'OPTIONS' || (await auth.verify(req))) return false;
  res.writeHead(401, {
    'content-type': 'application/json',
    'www-authenticate': `Bearer resource_metadata="http://127.0.0.1:${port}/.well-known/oauth-protected-resource/mcp", scope="mcp:tools"`,
  });
  res.end('{"error":"invalid_token"}');
  return true;
}
