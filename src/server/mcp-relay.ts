import { readFileSync } from 'node:fs';
import type { IncomingMessage, ServerResponse } from 'node:http';
import { Readable } from 'node:stream';
import type { ReadableStream as WebReadableStream } from 'node:stream/web';
import { ProxyError } from '../proxy/errors.ts';
import { checkRequestGuard, type GuardOptions } from '../proxy/request-guard.ts';

/** Where the relay answers: `GET /mcp-relay/` lists the servers, `/mcp-relay/<name>` is one server's MCP endpoint. */
const MCP_RELAY_PREFIX = '/mcp-relay/';

/** An MCP server the operator lists for the relay. Its address and headers never reach the page. */
export interface McpRelayServer {
  /** Its name in the relay's address (`/mcp-relay/<name>`): letters, digits, `-` and `_`. */
  readonly name: string;
  /** The server's MCP endpoint, reached from the app server. */
  readonly url: string;
  /** Headers added to every request (an `Authorization` token): they stay on the server. */
  readonly headers?: Readonly<Record<string, string>>;
  /** What the tools panel calls it (default: the server's own name). */
  readonly label?: string;
  /** Whether its tools not marked read-only run without asking (default false: each asks). */
  readonly trust?: boolean;
}

/** Options of {@link createMcpRelay}. */
export interface McpRelayOptions {
  /** The servers it relays to, and no other. */
  servers: readonly McpRelayServer[];
  /** The proxy's Host/Origin/token guard (`PROXY_TOKEN`, `PROXY_ORIGINS`). */
  guard?: GuardOptions;
  /** The `fetch` used to reach the servers (tests inject one). */
  fetch?: typeof globalThis.fetch;
  /** Longest wait for a server's response to start (default 60 s). */
  timeoutMs?: number;
  /** Most bytes of one request body (default 4 MiB) and of one response (default 32 MiB). */
  maxRequestBytes?: number;
  maxResponseBytes?: number;
  /** One line per relayed request (default none). */
  log?: (line: string) => void;
}

/** The names a server may have in the relay's address. */
const NAME = /^[A-Za-z0-9_-]{1,64}$/;
/**
 * Request headers an MCP client sends that the server needs; no cookie, no page token, no Host. The 2026-07-28
 * revision's server checks `Mcp-Method` and `Mcp-Name` against the body on every request, so they go too.
 */
const FORWARDED_REQUEST = ['content-type', 'accept', 'mcp-session-id', 'mcp-protocol-version', 'mcp-method', 'mcp-name', 'last-event-id'];
/** A tool argument the server asked to see as a header (`x-mcp-header`, 2026-07-28): `Mcp-Param-{name}`, an HTTP token. */
const PARAM_HEADER = /^mcp-param-[!#$%&'*+\-.^_`|~0-9a-z]+$/;
/** Response headers the client needs back. */
const FORWARDED_RESPONSE = ['content-type', 'mcp-session-id', 'mcp-protocol-version', 'cache-control'];
/** The only media types MCP's HTTP transport answers with; anything else is not relayed. */
const MCP_MEDIA_TYPES = ['application/json', 'text/event-stream'];
/**
 * Headers on every answer of the relay: whatever a listed server sends, it is never a document of
 * the app's origin — no script runs in it, no page frames it, no other origin embeds it.
 */
const RELAY_SAFETY_HEADERS: Readonly<Record<string, string>> = {
  'Content-Security-Policy': "sandbox; default-src 'none'; frame-ancestors 'none'",
  'X-Frame-Options': 'DENY',
  'Cross-Origin-Resource-Policy': 'same-origin',
  'X-Content-Type-Options': 'nosniff',
};

/**
 * The app server's relay to the MCP servers its operator listed, for servers whose CORS rules do
 * not let the page reach them: the page speaks MCP to `/mcp-relay/<name>` on its own origin and
 * the relay forwards to that server's address with its headers. It reaches only listed servers:
 * the name picks an entry, nothing of the request's path, query or headers can change the address,
 * and redirects are not followed. The proxy's guard applies (this machine's Host, the page's
 * Origin, `PROXY_TOKEN` when set).
 *
 * @param options - the servers, the guard, limits.
 * @returns a `before` handler for the app server: true when it answered the request.
 *
 * @remarks Security: threats are the page (or a prompt-injected model driving it) using the relay to
 * reach an address the operator did not list (SSRF), another site in the browser driving it
 * (guard), and the servers' tokens leaking to the page (they are added here and never echoed).
 */
export function createMcpRelay(options: McpRelayOptions): (req: IncomingMessage, res: ServerResponse) => Promise<boolean> {
  const servers = new Map<string, McpRelayServer>();
  for (const server of options.servers) {
    if (!NAME.test(server.name)) throw new Error(`MCP_SERVERS: "${server.name}" is not a usable name; use letters, digits, - and _.`);
    checkRelayAddress(server);
    servers.set(server.name, server);
  }
  const doFetch = options.fetch ?? globalThis.fetch;
  const maxRequest = options.maxRequestBytes ?? 4 * 1024 * 1024;
  const maxResponse = options.maxResponseBytes ?? 32 * 1024 * 1024;

  return async (req, res) => {
    const path = (req.url ?? '/').split('?')[0] ?? '/';
    if (path !== MCP_RELAY_PREFIX.slice(0, -1) && !path.startsWith(MCP_RELAY_PREFIX)) return false;
    try {
      checkRequestGuard({ headers: req.headers, remoteAddress: req.socket.remoteAddress }, options.guard ?? {});
    } catch (error) {
      const failure = error instanceof ProxyError ? error : new ProxyError(String(error), 'forbidden_origin', 403);
      sendJson(res, failure.status, { error: failure.code, message: failure.message });
      return true;
    }
    let name: string;
    try {
      name = decodeURIComponent(path.slice(MCP_RELAY_PREFIX.length));
    } catch {
      name = path.slice(MCP_RELAY_PREFIX.length);
    }
    if (name === '') {
      if (req.method !== 'GET') return sendJson(res, 405, { error: 'method_not_allowed', message: 'The list of relayed MCP servers is read with GET.' });
      return sendJson(res, 200, {
        servers: [...servers.values()].map((server) => ({
          name: server.name,
          url: `${MCP_RELAY_PREFIX}${server.name}`,
          ...(server.label ? { label: server.label } : {}),
          trust: server.trust === true,
        })),
      });
    }
    const server = servers.get(name);
    if (!server) {
      const listed = [...servers.keys()];
      return sendJson(res, 404, {
        error: 'unknown_server',
        message: `No MCP server named "${name.slice(0, 64)}" is listed here; ${listed.length ? `listed: ${listed.join(', ')}` : 'none is listed'}. The relay reaches only the servers in MCP_SERVERS.`,
      });
    }
    if (!['GET', 'POST', 'DELETE'].includes(req.method ?? '')) {
      return sendJson(res, 405, { error: 'method_not_allowed', message: 'MCP over HTTP uses GET, POST and DELETE.' });
    }
    await relay(server, req, res);
    return true;
  };

  async function relay(server: McpRelayServer, req: IncomingMessage, res: ServerResponse): Promise<void> {
    const started = Date.now();
    const body = req.method === 'POST' ? await readBody(req, maxRequest) : undefined;
    if (body === 'too large') {
      sendJson(res, 413, { error: 'too_large', message: `A request to an MCP server may carry at most ${maxRequest} bytes.` });
      return;
    }
    const headers: Record<string, string> = {};
    for (const name of FORWARDED_REQUEST) {
      const value = req.headers[name];
      if (typeof value === 'string') headers[name] = value;
    }
    for (const [name, value] of Object.entries(req.headers)) if (PARAM_HEADER.test(name) && typeof value === 'string') headers[name] = value;
    Object.assign(headers, server.headers);
    const aborter = new AbortController();
    res.on('close', () => aborter.abort());
    const timer = setTimeout(() => aborter.abort(new Error('timeout')), options.timeoutMs ?? 60_000);
    let upstream: Response;
    try {
      upstream = await doFetch(server.url, {
        method: req.method ?? 'GET',
        headers,
        ...(body ? { body: new Uint8Array(body) } : {}),
        redirect: 'manual',
        signal: aborter.signal,
      });
    } catch (error) {
      clearTimeout(timer);
      if (res.destroyed) return;
      const timedOut = aborter.signal.reason instanceof Error && aborter.signal.reason.message === 'timeout';
      options.log?.(`mcp-relay ${server.name} ${req.method} failed ${Date.now() - started}ms`);
      sendJson(res, timedOut ? 504 : 502, {
        error: timedOut ? 'timeout' : 'unreachable',
        message: timedOut
          ? `The MCP server "${server.name}" did not answer in time.`
          : `The MCP server "${server.name}" cannot be reached from the app server (${fetchFailure(error)}).`,
      });
      return;
    }
    clearTimeout(timer);
    options.log?.(`mcp-relay ${server.name} ${req.method} ${upstream.status} ${Date.now() - started}ms`);
    if (upstream.status >= 300 && upstream.status < 400) {
      await upstream.body?.cancel().catch(() => undefined);
      sendJson(res, 502, { error: 'redirect', message: `The MCP server "${server.name}" answered with a redirect, which the relay does not follow.` });
      return;
    }
    // MCP answers JSON or an event stream (or nothing, for a notification): HTML, SVG or an unnamed type
    // from a listed server is answered as the relay's own error, never passed on.
    const type = (upstream.headers.get('content-type') ?? '').split(';')[0]?.trim().toLowerCase() ?? '';
    const empty = upstream.status === 202 || upstream.status === 204 || upstream.headers.get('content-length') === '0';
    if (!empty && !MCP_MEDIA_TYPES.includes(type)) {
      await upstream.body?.cancel().catch(() => undefined);
      sendJson(res, 502, {
        error: 'not_mcp',
        message: `The MCP server "${server.name}" answered with ${type ? `"${type.slice(0, 60)}"` : 'no content type'}, not MCP (JSON or an event stream); the relay passes only those.`,
      });
      return;
    }
    const out: Record<string, string> = { ...RELAY_SAFETY_HEADERS };
    for (const name of FORWARDED_RESPONSE) {
      const value = upstream.headers.get(name);
      if (value !== null) out[name] = value;
    }
    res.writeHead(upstream.status, out);
    if (!upstream.body) {
      res.end();
      return;
    }
    let sent = 0;
    const stream = Readable.fromWeb(upstream.body as unknown as WebReadableStream<Uint8Array>);
    stream.on('data', (chunk: Buffer) => {
      sent += chunk.length;
      if (sent > maxResponse) {
        stream.destroy();
        res.destroy();
      }
    });
    stream.on('error', () => res.destroy());
    stream.pipe(res);
  }
}

/** The request body, or `'too large'` past the bound. */
async function readBody(req: IncomingMessage, max: number): Promise<Buffer | 'too large'> {
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of req as AsyncIterable<Buffer>) {
    size += chunk.length;
    if (size > max) return 'too large';
    chunks.push(chunk);
  }
  return Buffer.concat(chunks);
}

/**
 * Refuses, at start, an address the relay could not use or would have to repeat: not http(s), or with
 * a user name or password in it (Node's fetch refuses those, and its error quotes the address, password
 * and all). The message names the server and shows the address without its secrets.
 */
function checkRelayAddress(server: McpRelayServer): void {
  let url: URL;
  try {
    url = new URL(server.url);
  } catch {
    throw new Error(`MCP_SERVERS: the address of "${server.name}" is not a URL; give an http(s) address such as http://127.0.0.1:3001/mcp.`);
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') {
    throw new Error(`MCP_SERVERS: the address of "${server.name}" is a ${url.protocol}// address; the relay speaks MCP over http:// or https:// only.`);
  }
  if (url.username || url.password) {
    throw new Error(
      `MCP_SERVERS: the address of "${server.name}" (${url.protocol}//${url.host}${url.pathname}) holds a user name or password; put credentials in its "headers" (e.g. {"Authorization": "Basic …"} or "Bearer …"), where the relay adds them and never shows them.`,
    );
  }
}

/** Codes of a failed connection, in words; the address is never part of them. */
const FETCH_FAILURES: Readonly<Record<string, string>> = {
  ECONNREFUSED: 'connection refused',
  ECONNRESET: 'connection reset',
  ENOTFOUND: 'no such host',
  EAI_AGAIN: 'the host name could not be looked up',
  ETIMEDOUT: 'the connection timed out',
  EHOSTUNREACH: 'host unreachable',
  ENETUNREACH: 'network unreachable',
  UND_ERR_CONNECT_TIMEOUT: 'the connection timed out',
  UND_ERR_SOCKET: 'the connection closed',
  CERT_HAS_EXPIRED: 'its TLS certificate has expired',
  DEPTH_ZERO_SELF_SIGNED_CERT: 'its TLS certificate is self-signed',
  SELF_SIGNED_CERT_IN_CHAIN: 'its TLS certificate is not trusted',
  UNABLE_TO_VERIFY_LEAF_SIGNATURE: 'its TLS certificate is not trusted',
  ERR_TLS_CERT_ALTNAME_INVALID: 'its TLS certificate is for another name',
};

/**
 * Why a relayed request failed, said without anything of the error's text: fetch's messages may quote
 * the server's address, which may hold what the operator keeps from the page.
 */
function fetchFailure(error: unknown): string {
  const cause = (error as { cause?: { code?: unknown } })?.cause;
  const code = typeof cause?.code === 'string' ? cause.code : (error as { code?: unknown })?.code;
  return (typeof code === 'string' && FETCH_FAILURES[code]) || 'the connection failed';
}

function sendJson(res: ServerResponse, status: number, body: unknown): true {
  res.writeHead(status, { ...RELAY_SAFETY_HEADERS, 'Content-Type': 'application/json; charset=utf-8', 'Cache-Control': 'no-store' });
  res.end(JSON.stringify(body));
  return true;
}

/**
 * The relay's servers from the environment: `MCP_SERVERS` as JSON (`{"notes": {"url": …, "headers":
 * {…}, "label": …, "trust": false}}`, or an array of such objects with a `name`), or as
 * `name=url` pairs separated by commas; else the file `MCP_SERVERS_FILE` (default `mcp-servers.json`
 * in the folder `npm start` runs in, beside `tools.js`) when it exists.
 *
 * @param env - the environment (default `process.env`).
 * @param folder - where `mcp-servers.json` is looked for (default the working folder).
 * @throws Error naming what is wrong with the list and the forms it takes.
 */
export function mcpRelayServersFromEnv(env: Readonly<Record<string, string | undefined>> = process.env, folder = process.cwd()): McpRelayServer[] {
  const given = env.MCP_SERVERS?.trim();
  if (given) return parseServers(given, 'MCP_SERVERS');
  const file = env.MCP_SERVERS_FILE ?? `${folder}/mcp-servers.json`;
  let text: string;
  try {
    text = readFileSync(file, 'utf8');
  } catch (error) {
    if (env.MCP_SERVERS_FILE) throw new Error(`MCP_SERVERS_FILE: ${file} cannot be read (${(error as Error).message}).`);
    return [];
  }
  return parseServers(text, file);
}

const FORMS =
  'Give JSON such as {"notes": {"url": "http://127.0.0.1:3001/mcp", "headers": {"Authorization": "Bearer …"}}}, or name=url pairs separated by commas.';

function parseServers(text: string, where: string): McpRelayServer[] {
  if (!/^[[{]/.test(text.trim())) {
    return text
      .split(/[\s,]+/)
      .filter(Boolean)
      .map((pair) => {
        const at = pair.indexOf('=');
        if (at <= 0) throw new Error(`${where}: "${pair}" is not name=url. ${FORMS}`);
        return { name: pair.slice(0, at), url: pair.slice(at + 1) };
      });
  }
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch (error) {
    throw new Error(`${where}: not valid JSON (${(error as Error).message}). ${FORMS}`);
  }
  const entries = Array.isArray(parsed)
    ? parsed.map((entry) => [String((entry as { name?: unknown })?.name ?? ''), entry] as const)
    : Object.entries(parsed as Record<string, unknown>);
  return entries.map(([name, entry]) => {
    const { url, headers, label, trust } = (entry ?? {}) as Record<string, unknown>;
    if (typeof url !== 'string') throw new Error(`${where}: the server "${name}" has no "url". ${FORMS}`);
    if (headers !== undefined && (typeof headers !== 'object' || headers === null || Object.values(headers).some((v) => typeof v !== 'string'))) {
      throw new Error(`${where}: the headers of "${name}" must be an object of strings.`);
    }
    return {
      name,
      url,
      ...(headers ? { headers: headers as Record<string, string> } : {}),
      ...(typeof label === 'string' ? { label } : {}),
      ...(trust === true ? { trust: true } : {}),
    };
  });
}
