import { createHash, timingSafeEqual } from 'node:crypto';
import { isIP } from 'node:net';
import { ProxyError } from './errors.ts';

/** What {@link checkRequestGuard} needs from a request. */
export interface GuardedRequest {
  headers: Record<string, string | string[] | undefined>;
  /** The peer's address (the socket's); when it is not this machine, the token is required. */
  remoteAddress?: string | undefined;
}

/** The guard's configuration. */
export interface GuardOptions {
  /** Shared token; when set, every request must carry `Authorization: Bearer <token>` (or `X-Proxy-Token`). */
  token?: string;
  /** Origins (`https://chat.example.org`) allowed besides the loopback page itself. */
  origins?: readonly string[];
}

/**
 * True for the names and addresses of the local machine: `localhost`, `*.localhost`, 127.0.0.0/8,
 * `::1`.
 * @param host - a host name or IP, brackets allowed.
 */
export function isLoopbackHost(host: string): boolean {
  const h = host.toLowerCase().replace(/^\[|\]$/g, '');
  if (h === 'localhost' || h.endsWith('.localhost')) return true;
  if (isIP(h) === 4) return h.startsWith('127.');
  if (isIP(h) === 6) return h === '::1' || h === '0:0:0:0:0:0:0:1' || h.startsWith('::ffff:127.');
  return false;
}

/**
 * True when a `Host` header names this machine (`localhost`, `*.localhost`, 127.0.0.0/8, `::1`, any
 * port) or one of the allowed hosts (`chat.example.org`, with or without a port; origins are
 * accepted too). A missing Host is refused.
 * @param hostHeader - the request's `Host` header.
 * @param allowed - extra hosts or origins (`PROXY_ORIGINS`).
 *
 * @remarks Security: DNS-rebinding defence of the page server and the proxy. Threat: an attacker's
 * name pointed at 127.0.0.1 — the browser then sends the attacker's name as Host.
 */
export function isAllowedHost(hostHeader: string | string[] | undefined, allowed: readonly string[]): boolean {
  const raw = (Array.isArray(hostHeader) ? hostHeader[0] : hostHeader)?.trim().toLowerCase() ?? '';
  if (!raw) return false;
  const hostName = raw.startsWith('[') ? raw.slice(0, raw.indexOf(']') + 1) : raw.replace(/:\d+$/, '');
  if (isLoopbackHost(hostName)) return true;
  for (const entry of allowed) {
    const value = entry.trim().toLowerCase();
    const host = /^https?:\/\//.test(value) ? safeHost(value) : value;
    if (host && (host === raw || host === hostName)) return true;
  }
  return false;
}

function safeHost(origin: string): string | undefined {
  try {
    return new URL(origin).host;
  } catch {
    return undefined;
  }
}

/**
 * Decides whether an API request may proceed: without a token, the peer must be this machine; the
 * `Host` header must name this machine or an allowed origin's host (a DNS-rebinding defence); an `Origin` header, when present, must be the page's own
 * loopback origin or an allowed one; with a token configured, the request must carry it.
 *
 * @param request - the request headers.
 * @param options - token and allowed origins.
 * @throws ProxyError `forbidden_origin` (403) or `unauthorized` (401).
 *
 * @remarks Security: access to the proxy itself. Threats: another web site in the user's browser
 * driving the proxy (cross-site requests, and DNS rebinding of an attacker's name to 127.0.0.1 —
 * its requests carry the attacker's Host and Origin), and strangers using a deployed proxy to
 * search and fetch (the shared token). The token is compared in constant time.
 */
export function checkRequestGuard(request: GuardedRequest, options: GuardOptions): void {
  // A client on another machine can claim any Host and Origin; only a shared token tells a deployment's
  // users from strangers, so without one, only this machine is served.
  if (!options.token && request.remoteAddress !== undefined && !isLoopbackHost(request.remoteAddress)) {
    throw new ProxyError('requests from other machines are not accepted without a shared token; set PROXY_TOKEN on the server', 'forbidden_origin', 403);
  }
  const allowedOrigins = new Set((options.origins ?? []).map(normaliseOrigin).filter((o): o is string => o !== undefined));
  const allowedHosts = new Set([...allowedOrigins].map((o) => new URL(o).host.toLowerCase()));
  const hostHeader = header(request, 'host')?.toLowerCase() ?? '';
  const hostName = hostHeader.replace(/:\d+$/, '');
  if (!hostHeader || (!isLoopbackHost(hostName) && !allowedHosts.has(hostHeader) && !allowedHosts.has(hostName))) {
    throw new ProxyError(`requests for host "${hostHeader.slice(0, 100)}" are not accepted; add its origin to PROXY_ORIGINS`, 'forbidden_origin', 403);
  }
  // An API answer is data for the page's scripts, never a document: opened in a tab or a frame, a
  // relayed answer would run as the app (issue 41).
  const dest = header(request, 'sec-fetch-dest');
  if (header(request, 'sec-fetch-mode') === 'navigate' || (dest !== undefined && DOCUMENT_DESTINATIONS.has(dest))) {
    throw new ProxyError('this address answers the page’s scripts only; it cannot be opened as a page or in a frame', 'navigation_refused', 403);
  }
  const origin = header(request, 'origin');
  if (origin !== undefined) {
    const normalised = normaliseOrigin(origin);
    const sameLocalOrigin = normalised !== undefined && isLoopbackHost(new URL(normalised).hostname) && new URL(normalised).host === hostHeader;
    if (!normalised || (!sameLocalOrigin && !allowedOrigins.has(normalised))) {
      throw new ProxyError(`requests from origin "${origin.slice(0, 100)}" are not accepted`, 'forbidden_origin', 403);
    }
  } else if (['cross-site', 'same-site'].includes(header(request, 'sec-fetch-site') ?? '')) {
    // Another port of this machine is the same site but not the same origin: it is refused too.
    throw new ProxyError('requests from other origins are not accepted', 'forbidden_origin', 403);
  }
  if (options.token) {
    const auth = header(request, 'authorization');
    const given = auth?.toLowerCase().startsWith('bearer ') ? auth.slice(7).trim() : header(request, 'x-proxy-token');
    if (!given || !sameSecret(given, options.token)) {
      throw new ProxyError('a valid proxy token is required (Authorization: Bearer <PROXY_TOKEN>)', 'unauthorized', 401);
    }
  }
}

/** `Sec-Fetch-Dest` values of a document or a frame: a load that would show the answer as a page. */
const DOCUMENT_DESTINATIONS: ReadonlySet<string> = new Set(['document', 'iframe', 'frame', 'embed', 'object', 'fencedframe']);

function header(request: GuardedRequest, name: string): string | undefined {
  const value = request.headers[name];
  return Array.isArray(value) ? value[0] : value;
}

function normaliseOrigin(origin: string): string | undefined {
  try {
    const url = new URL(origin.trim());
    if (url.protocol !== 'http:' && url.protocol !== 'https:') return undefined;
    return url.origin.toLowerCase();
  } catch {
    return undefined;
  }
}

function sameSecret(given: string, expected: string): boolean {
  const a = createHash('sha256').update(given).digest();
  const b = createHash('sha256').update(expected).digest();
  return timingSafeEqual(a, b);
}
