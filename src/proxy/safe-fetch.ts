import { request, type RequestOptions } from 'node:https';
import type { IncomingMessage } from 'node:http';
import { isIP, type LookupFunction } from 'node:net';
import { AddressRefusedError, FetchFailedError } from './errors.ts';
import type { FetchLogSink } from './fetch-log.ts';
import { oneLine } from './one-line.ts';
import { MAX_REDIRECTS, isRedirectStatus, nextHop } from './redirects.ts';
import type { Resolver } from './resolver.ts';
import { vetAddress } from './vet-address.ts';

/** The fixed user agent of every page request: it names the project and nothing about the user. */
export const PROXY_USER_AGENT = 'NexusChat-PageReader/0.1 (+https://www.npmjs.com/package/browser-llm-nexus)';

/** 10 seconds per page, redirects and DNS included (rule 5). */
const PAGE_TIMEOUT_MS = 10_000;

/** Stop reading a body at 2 MB (rule 5). */
export const MAX_BODY_BYTES = 2 * 1024 * 1024;

/** The only media types whose bodies are read (rule 5). */
const TEXT_TYPES: readonly string[] = ['text/html', 'text/plain', 'text/markdown'];

/** Where to open the TCP connection for a checked address. Production: the address itself, port 443. */
export type ConnectTarget = { host: string; port: number };

/** Options of {@link safeFetch}. Everything that touches the outside world is injectable. */
export interface SafeFetchOptions {
  /** The resolver; called exactly once per hop, for a name host. */
  resolve: Resolver;
  /** Extra trusted CA certificates (tests pass their local CA). Verification is never disabled. */
  ca?: string | Buffer | Array<string | Buffer>;
  /**
   * Test seam: maps a checked public address to the loopback server standing in for it. Production
   * leaves it unset and connects to `{ host: address, port: 443 }`. The URL rules still refuse any
   * address that names another port.
   */
  connectTo?: (address: string, family: 4 | 6) => ConnectTarget;
  /** Overall limit for the page, redirects included (default 10 s). */
  timeoutMs?: number;
  /** Body cap in bytes (default 2 MB). */
  maxBytes?: number;
  /** Redirects followed at most (default 3). */
  maxRedirects?: number;
  /** Receives one record per hop (rule 8). */
  log?: FetchLogSink;
  /** Clock for log times and durations (default `Date.now`). */
  now?: () => number;
  /**
   * Starts the page's deadline and returns how to cancel it (default: a `setTimeout` of `ms`).
   * Tests fire `expire` themselves, so no test waits on the wall clock.
   */
  startDeadline?: (ms: number, expire: () => void) => () => void;
  /** Cancels the whole fetch (e.g. the crawl's overall deadline). */
  signal?: AbortSignal;
  /** The answer session, copied into log records. */
  answer?: string;
  /**
   * Asked before each redirect is followed, with the address it points to: a reason refuses it
   * (an {@link AddressRefusedError}, logged on the hop that answered with the redirect), undefined
   * lets it go on to the usual checks. The page reader keeps crawled links on the cited site this way.
   */
  redirectAllowed?: (url: URL, from: URL) => string | undefined;
}

/** A page that was fetched successfully. */
export interface FetchedPage {
  /** The address asked for (normalised). */
  url: string;
  /** The address the body came from, after redirects. */
  finalUrl: string;
  /** The IP address the body came from. */
  ip: string;
  /** HTTP status (2xx). */
  status: number;
  /** One of {@link TEXT_TYPES}. */
  mediaType: string;
  /** The `charset` parameter of the content type, if any. */
  charset: string | undefined;
  /** The body, at most `maxBytes`. */
  body: Buffer;
  /** True when reading stopped at `maxBytes`. */
  capped: boolean;
  /** Every address followed, in order, after the first. */
  redirects: string[];
}

type HopOutcome =
  | { kind: 'redirect'; status: number; location: string | undefined }
  | { kind: 'page'; status: number; mediaType: string; charset: string | undefined; body: Buffer; capped: boolean }
  | { kind: 'failed'; status: number | null; bytes: number; reason: string };

/** A `lookup` that always fails: the reader connects to IP literals only, so any lookup is a bug. */
const noLookup: LookupFunction = (hostname, _options, callback) => {
  const error = Object.assign(new Error(`refusing a second DNS lookup of ${hostname}`), { code: 'ENOTFOUND' });
  (callback as (err: Error) => void)(error);
};

/**
 * Fetches one https page under all of the reader's transport rules, following redirects by hand.
 *
 * Per hop: {@link vetAddress} (URL rules, one resolver call, every address public), then a
 * node:https GET to exactly the checked IP (`host` is the IP, `servername` is the name, so SNI and
 * the certificate check use the name and no second DNS lookup can happen; `agent: false`, so no
 * pooled socket is reused), with only `Host`, a fixed `User-Agent`, `Accept` and
 * `Accept-Encoding: identity`. A 301/302/303/307/308 is resolved with {@link nextHop} and the loop
 * starts again, at most 3 times. One deadline (10 s) covers DNS, connects, TLS and every hop. The
 * content type is checked on the headers, before any body byte is read, and reading stops at 2 MB.
 * Each hop produces one log record.
 *
 * @param url - the address to read.
 * @param options - resolver, TLS trust, limits, log sink (see {@link SafeFetchOptions}).
 * @returns the page, or throws {@link AddressRefusedError} (a rule refused an address) or
 * {@link FetchFailedError} (timeout, network or TLS error, HTTP error status, wrong content type).
 *
 * @remarks Security: rules 2–5, 7 and 8. Threats: SSRF through the first address or any redirect,
 * DNS rebinding between check and connect, redirect chains, slow or endless bodies, huge downloads,
 * binary content, and leaking the user's cookies, credentials or referrer — no header of the
 * browser's request is ever forwarded, because this function receives none.
 */
export async function safeFetch(url: string, options: SafeFetchOptions): Promise<FetchedPage> {
  const now = options.now ?? Date.now;
  const timeoutMs = options.timeoutMs ?? PAGE_TIMEOUT_MS;
  const maxBytes = options.maxBytes ?? MAX_BODY_BYTES;
  const maxRedirects = options.maxRedirects ?? MAX_REDIRECTS;
  const deadline = new AbortController();
  const startDeadline =
    options.startDeadline ??
    ((ms: number, expire: () => void) => {
      const timer = setTimeout(expire, ms);
      return () => clearTimeout(timer);
    });
  const cancelDeadline = startDeadline(timeoutMs, () => deadline.abort());
  const onOuterAbort = (): void => deadline.abort();
  options.signal?.addEventListener('abort', onOuterAbort, { once: true });
  if (options.signal?.aborted) deadline.abort();
  const timeoutReason = `timed out after ${formatSeconds(timeoutMs)} (the limit per page, redirects included)`;

  const redirects: string[] = [];
  let current = url;
  let requested: string | undefined;
  try {
    for (let hop = 0; ; hop++) {
      const started = now();
      const record = (ip: string | null, status: number | null, bytes: number, reason?: string): void =>
        options.log?.({
          time: new Date(started).toISOString(),
          url: current,
          ip,
          status,
          bytes,
          ms: Math.max(0, now() - started),
          hop,
          ...(reason !== undefined ? { reason } : {}),
          ...(options.answer !== undefined ? { answer: options.answer } : {}),
        });

      const vetted = await vetAddress(current, { resolve: options.resolve, signal: deadline.signal });
      if (!vetted.ok) {
        const reason = deadline.signal.aborted && options.signal?.aborted !== true ? timeoutReason : vetted.reason;
        record(null, null, 0, reason);
        if (deadline.signal.aborted) throw new FetchFailedError(reason);
        // A refusal after a redirect comes after a site was contacted: that read has cost the site.
        throw new AddressRefusedError(reason, hop > 0);
      }
      current = vetted.url;
      requested ??= vetted.url;

      const outcome = await requestHop(vetted, options, deadline.signal, maxBytes, timeoutReason);
      if (outcome.kind === 'failed') {
        record(vetted.address, outcome.status, outcome.bytes, outcome.reason);
        throw new FetchFailedError(outcome.reason);
      }
      if (outcome.kind === 'redirect') {
        const next = nextHop(outcome.location, current, redirects.length, maxRedirects);
        const refusal = next.ok ? options.redirectAllowed?.(new URL(next.url), new URL(current)) : next.reason;
        if (!next.ok || refusal !== undefined) {
          const reason = refusal ?? 'redirect refused';
          record(vetted.address, outcome.status, 0, reason);
          throw new AddressRefusedError(reason, true);
        }
        record(vetted.address, outcome.status, 0);
        redirects.push(next.url);
        current = next.url;
        continue;
      }
      record(vetted.address, outcome.status, outcome.body.length);
      return {
        url: requested,
        finalUrl: current,
        ip: vetted.address,
        status: outcome.status,
        mediaType: outcome.mediaType,
        charset: outcome.charset,
        body: outcome.body,
        capped: outcome.capped,
        redirects,
      };
    }
  } finally {
    cancelDeadline();
    options.signal?.removeEventListener('abort', onOuterAbort);
  }
}

function requestHop(
  vetted: { url: string; host: string; address: string; family: 4 | 6 },
  options: SafeFetchOptions,
  signal: AbortSignal,
  maxBytes: number,
  timeoutReason: string,
): Promise<HopOutcome> {
  return new Promise<HopOutcome>((settle) => {
    let settled = false;
    let status: number | null = null;
    let bytes = 0;
    const finish = (outcome: HopOutcome): void => {
      if (settled) return;
      settled = true;
      signal.removeEventListener('abort', onAbort);
      settle(outcome);
    };
    const fail = (reason: string): void => finish({ kind: 'failed', status, bytes, reason });
    const onAbort = (): void => {
      fail(timeoutReason);
      req.destroy();
    };

    const target: ConnectTarget = options.connectTo ? options.connectTo(vetted.address, vetted.family) : { host: vetted.address, port: 443 };
    const parsed = new URL(vetted.url);
    const literal = isIP(vetted.host) !== 0;
    const requestOptions: RequestOptions = {
      host: target.host,
      port: target.port,
      path: `${parsed.pathname}${parsed.search}`,
      method: 'GET',
      // The name for SNI and certificate verification; Node sends no SNI for an IP literal.
      ...(literal ? {} : { servername: vetted.host }),
      headers: {
        host: parsed.host,
        'user-agent': PROXY_USER_AGENT,
        accept: 'text/html, text/plain;q=0.9, text/markdown;q=0.9',
        'accept-encoding': 'identity',
      },
      agent: false,
      lookup: noLookup,
      minVersion: 'TLSv1.2',
      maxHeaderSize: 32 * 1024,
      ...(options.ca !== undefined ? { ca: options.ca } : {}),
    };

    const req = request(requestOptions, (res: IncomingMessage) => {
      status = res.statusCode ?? 0;
      if (isRedirectStatus(status)) {
        finish({ kind: 'redirect', status, location: res.headers.location });
        res.destroy();
        return;
      }
      if (status < 200 || status > 299) {
        fail(`HTTP ${status}`);
        res.destroy();
        return;
      }
      const { mediaType, charset } = parseContentType(res.headers['content-type']);
      if (!TEXT_TYPES.includes(mediaType)) {
        fail(
          mediaType === ''
            ? 'no content type (only text/html, text/plain and text/markdown are read)'
            : `content type ${oneLine(mediaType, 80)} is not read (only text/html, text/plain and text/markdown)`,
        );
        res.destroy();
        return;
      }
      const encoding = (res.headers['content-encoding'] ?? 'identity').trim().toLowerCase();
      if (encoding !== 'identity' && encoding !== '') {
        fail(`compressed body (${oneLine(encoding, 40)}) that was not asked for`);
        res.destroy();
        return;
      }
      const chunks: Buffer[] = [];
      res.on('data', (chunk: Buffer) => {
        if (settled) return;
        const room = maxBytes - bytes;
        // Only a byte past the cap makes the page larger than it: a body of exactly the cap is complete.
        if (chunk.length > room) {
          chunks.push(chunk.subarray(0, room));
          bytes += room;
          finish({ kind: 'page', status: status ?? 0, mediaType, charset, body: Buffer.concat(chunks), capped: true });
          res.destroy();
          return;
        }
        chunks.push(chunk);
        bytes += chunk.length;
      });
      res.on('end', () => finish({ kind: 'page', status: status ?? 0, mediaType, charset, body: Buffer.concat(chunks), capped: false }));
      res.on('error', (error: Error) => fail(describeNetworkError(error)));
      res.on('aborted', () => fail('the connection closed before the page was complete'));
    });
    req.on('error', (error: Error) => fail(describeNetworkError(error)));
    signal.addEventListener('abort', onAbort, { once: true });
    if (signal.aborted) onAbort();
    req.end();
  });
}

/**
 * Splits a `Content-Type` header into its lower-cased media type and charset parameter.
 * @param header - the raw header value, if any.
 */
function parseContentType(header: string | undefined): { mediaType: string; charset: string | undefined } {
  if (!header) return { mediaType: '', charset: undefined };
  const [type = '', ...params] = header.split(';');
  let charset: string | undefined;
  for (const param of params) {
    const eq = param.indexOf('=');
    if (eq < 0) continue;
    if (param.slice(0, eq).trim().toLowerCase() === 'charset')
      charset = param
        .slice(eq + 1)
        .trim()
        .replace(/^"|"$/g, '')
        .toLowerCase();
  }
  return { mediaType: type.trim().toLowerCase(), charset };
}

function describeNetworkError(error: Error): string {
  const code = (error as { code?: unknown }).code;
  if (typeof code === 'string') {
    if (code === 'ECONNREFUSED') return 'connection refused';
    if (code === 'ECONNRESET') return 'connection reset';
    if (code === 'ETIMEDOUT') return 'connection timed out';
    if (/TLS|SSL|CERT|VERIFY|SELF_SIGNED|EPROTO/.test(code)) return `TLS error (${oneLine(code, 60)})`;
    return `network error (${oneLine(code, 60)})`;
  }
  return `network error (${oneLine(error.message, 120)})`;
}

function formatSeconds(ms: number): string {
  return ms % 1000 === 0 ? `${ms / 1000} s` : `${(ms / 1000).toFixed(1)} s`;
}
