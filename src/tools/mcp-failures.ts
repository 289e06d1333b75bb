import { NexusError, registerErrorClass } from '../shared/errors.ts';

/** An MCP server that could not be connected to or listed: the message names the address and what happened. */
export class McpConnectError extends NexusError {
  override readonly name = 'McpConnectError';
}
registerErrorClass(McpConnectError, 'McpConnectError');

/** Origins the page's own policy (its Content-Security-Policy) refused a request to, as the page reported them. */
const refusedByPolicy = new Set<string>();
if (typeof document !== 'undefined') {
  document.addEventListener('securitypolicyviolation', (event) => {
    if (event.effectiveDirective !== 'connect-src') return;
    try {
      refusedByPolicy.add(new URL(event.blockedURI).origin);
    } catch {
      // Not an address (a policy report names "inline" or "eval" that way): not a server.
    }
  });
}

/** Where the app server relays to the servers its operator listed (`src/server/mcp-relay.ts`). */
const RELAY_PATH = '/mcp-relay/';

/** What a cross-origin server's CORS allows this page: nothing answers, not this origin, or the origin but not MCP's request headers. */
export type CorsFinding = 'unreachable' | 'origin' | 'headers';

/** The request headers an MCP client sends over Streamable HTTP (2025-11-25 and 2026-07-28), which a server's preflight answer must allow. */
const MCP_REQUEST_HEADERS = 'Content-Type, Accept, Authorization, DPoP, Mcp-Protocol-Version, Mcp-Method, Mcp-Name, Mcp-Session-Id, Last-Event-ID';

/**
 * Finds out why the browser gave a cross-origin MCP server's answer to nobody (a bare "Failed to fetch" says
 * nothing), with two requests no preflight precedes: an opaque one, which succeeds if anything answers at all,
 * and a CORS one with only safelisted headers, readable only if the server allows this page's origin. Where
 * both succeed, the preflight of the real request (its MCP headers) is what the server refused.
 * @param endpoint - the server's address.
 * @param fetchImpl - the page's fetch.
 */
export async function corsFinding(endpoint: URL, fetchImpl: typeof fetch = globalThis.fetch): Promise<CorsFinding> {
  try {
    await fetchImpl(endpoint, { method: 'POST', mode: 'no-cors', body: '', credentials: 'omit' });
  } catch {
    return 'unreachable';
  }
  try {
    await fetchImpl(endpoint, { method: 'POST', headers: { 'Content-Type': 'text/plain' }, body: '', credentials: 'omit' });
    return 'headers';
  } catch {
    return 'origin';
  }
}

/** Whether this runs in a page (or a page's worker) of another origin than the server's: only there does CORS decide anything. */
export function crossOrigin(endpoint: URL): boolean {
  const page = globalThis.location?.origin;
  return Boolean(page) && page !== 'null' && endpoint.origin !== page;
}

/** The way round CORS that needs nothing of the server: the app server's relay. */
const viaRelay = (endpoint: URL) => `Or list it in MCP_SERVERS on the app server (MCP_SERVERS=${endpoint.href}), which relays to it and needs no CORS.`;

/**
 * What a server that let the page connect must also do for a session to go on: expose its session id. The
 * browser hides every response header a server does not expose, so the client never saw it, and the server
 * refused the next request for want of it.
 */
export function unexposedSessionAdvice(endpoint: URL): string {
  return (
    `${endpoint.origin} does not expose its session id to this page: its responses need Access-Control-Expose-Headers: Mcp-Session-Id ` +
    `(the browser hides every header a server does not expose, so the session the server started was never seen). ${viaRelay(endpoint)}`
  );
}

/**
 * What to do about a failed connection, and whether trying again by itself could help (`lasting`: it
 * cannot). In a page, a request the page's own policy forbids is named as such, with the two ways to
 * allow it; one another origin does not allow (CORS) says which header the server must send (`cors`, found by
 * {@link corsFinding}); a relayed server that is down is the relay's to reach.
 */
export function connectAdvice(error: unknown, endpoint: URL, cors?: CorsFinding): { text: string; lasting: boolean } {
  const page = globalThis.location?.origin;
  // The SDK's refusal of a protected-resource document that names another server (RFC 9728 §3.3).
  const mismatch = error instanceof Error ? /Protected resource (\S+) does not match expected (\S+)/.exec(error.message) : null;
  if (mismatch) {
    return {
      text:
        `The address is right; the server's sign-in set-up is not: a token for ${mismatch[1]} would be another server's, so this client does not sign in. ` +
        "Ask the server's operator to correct its metadata.",
      lasting: true,
    };
  }
  if (error instanceof TypeError && crossOrigin(endpoint)) {
    if (refusedByPolicy.has(endpoint.origin)) {
      return {
        text:
          `This page's connect policy does not allow ${endpoint.origin}: the server that serves the page lists the origins it may reach. ` +
          `Start it with MCP_SERVERS=${endpoint.href} and it relays to that server; or with CONNECT_ORIGINS=${endpoint.origin} if that server allows ${page} in its CORS headers.`,
        lasting: true,
      };
    }
    if (cors === 'origin') {
      return {
        text: `${endpoint.origin} answers, but not to this page: its responses need Access-Control-Allow-Origin: ${page} (CORS). ${viaRelay(endpoint)}`,
        lasting: true,
      };
    }
    if (cors === 'headers') {
      return {
        text:
          `${endpoint.origin} allows this page's origin, but its answer to the browser's preflight (OPTIONS) does not allow the headers an MCP client sends: ` +
          `it needs Access-Control-Allow-Headers: ${MCP_REQUEST_HEADERS}, and Access-Control-Allow-Methods: GET, POST, DELETE. ${viaRelay(endpoint)}`,
        lasting: true,
      };
    }
    return {
      text: `The server did not answer this page: it is not running, or it does not allow this page's origin (${page}) in its CORS headers. Start it or allow that origin, or list it in MCP_SERVERS on the app server, which relays to it.`,
      lasting: false,
    };
  }
  if (endpoint.origin === page && endpoint.pathname.startsWith(RELAY_PATH)) {
    return { text: 'The app server relays to it and could not reach it: check that the server is running; the page tries again.', lasting: false };
  }
  return { text: "Check that the address is the server's MCP endpoint (often ending in /mcp) and that the server is running.", lasting: false };
}

/**
 * The HTTP status a failure carries, if any: the SDK's HTTP errors hold it as `status` (v2) or as a numeric
 * `code` (v1, and the transports' own errors); a JSON-RPC code is negative, so it is never taken for one.
 */
export function httpStatus(error: unknown): number | undefined {
  const { status, code } = (error ?? {}) as { status?: unknown; code?: unknown };
  const found = typeof status === 'number' ? status : code;
  return typeof found === 'number' && found >= 100 && found < 600 ? found : undefined;
}

/** One line for a failure: the SDK's errors carry an HTTP status or a JSON-RPC code worth keeping. */
export function describeFailure(error: unknown): string {
  if (!(error instanceof Error)) return String(error);
  const status = httpStatus(error);
  if (error.name === 'UnauthorizedError' || status === 401) {
    return 'the server asks for authorization (HTTP 401): give its token in headers (Authorization: Bearer …), or sign in with the oauth option';
  }
  if (status !== undefined && status >= 400) {
    // The relay answers its own errors as JSON with a message for people: that is the one to show. The SDK
    // keeps the body in the message (v1, and its transport's errors) or in `data.text` (v2's HTTP errors).
    const body = `${error.message}\n${String((error as { data?: { text?: unknown } }).data?.text ?? '')}`;
    const relayed = /"message"\s*:\s*("(?:[^"\\]|\\.)*")/.exec(body)?.[1];
    if (relayed && /"error"\s*:\s*"(?:unreachable|timeout|redirect|not_mcp)"/.test(body)) return (JSON.parse(relayed) as string).replace(/\.\s*$/, '');
    // The SDK puts the whole response body in the message: an HTML error page says nothing more than its status.
    return `the server answered HTTP ${status}, not as an MCP server`;
  }
  const mismatch = /Protected resource (\S+) does not match expected (\S+?)(?: \(or origin\))?\.?$/.exec(error.message);
  if (mismatch) return `its protected-resource metadata names another resource (${mismatch[1]}) than this server (${mismatch[2]})`;
  const cause = error.cause instanceof Error ? ` (${error.cause.message})` : '';
  return `${error.message.replace(/\.\s*$/, '')}${cause}`;
}
