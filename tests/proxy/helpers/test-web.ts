import { createServer as createHttpsServer, type Server as HttpsServer } from 'node:https';
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { createServer as createTlsServer, type Server as TlsServer } from 'node:tls';
import type { ConnectTarget } from '../../../src/proxy/safe-fetch.ts';
import type { ResolvedAddress } from '../../../src/proxy/resolver.ts';
import { makeTestPki, type TestPki } from './pki.ts';

/**
 * "Public" addresses of the test internet. They are never connected to: the injected connector maps
 * each to a loopback test server, and refuses every other address.
 */
export const PUBLIC = {
  site: '93.184.216.34',
  other: '151.101.1.69',
  v6: '2606:4700:10::6816:1',
  rogue: '104.16.0.1',
  raw: '185.199.108.153',
} as const;

/** Names the test DNS knows by default. */
export const DEFAULT_DNS: Readonly<Record<string, readonly string[]>> = {
  'site.example': [PUBLIC.site],
  'www.site.example': [PUBLIC.site],
  'blog.site.example': [PUBLIC.site],
  'other.example': [PUBLIC.other],
  'v6.example': [PUBLIC.v6],
  'rogue.example': [PUBLIC.rogue],
  'raw.example': [PUBLIC.raw],
  'private.example': ['10.0.0.7'],
  'metadata.example': ['169.254.169.254'],
  'mixed.example': [PUBLIC.site, '127.0.0.1'],
};

const CERT_NAMES = [...Object.keys(DEFAULT_DNS), 'rebind.example', 'hop.example'];

/** A request handler of the test web. */
export type Handler = (req: IncomingMessage, res: ServerResponse) => void;

/** A resolver that records its calls. */
export interface CountingResolver {
  (host: string): Promise<ResolvedAddress[]>;
  calls: string[];
}

/** The test internet: TLS servers on loopback, a fake DNS, and the connector that maps the two. */
export interface TestWeb {
  pki: TestPki;
  /** Injected resolver: names from {@link TestWeb.dns}; throws ENOTFOUND for the rest. */
  resolve: CountingResolver;
  /** Injected connector: maps the public test addresses to loopback ports; throws for any other. */
  connectTo: (address: string, family: 4 | 6) => ConnectTarget;
  /** Names → addresses, or a function giving the answer for the n-th lookup (0-based). */
  dns: Map<string, readonly string[] | ((n: number) => readonly string[])>;
  /** Adds a route for `host` + `path` (pathname and search) on the main server. */
  route(host: string, path: string, handler: Handler): void;
  /** Raw bytes of every request the raw-capture server (raw.example) received. */
  rawRequests: string[];
  /** TLS connections accepted by the main server. */
  connections(): number;
  /** Ports, for direct comparisons. */
  port: number;
  close(): Promise<void>;
}

/**
 * Starts the test internet. `site.example` and friends resolve to "public" addresses that the
 * connector maps to one HTTPS server on 127.0.0.1 (routes by Host and path); `rogue.example` maps to
 * a server whose certificate comes from an untrusted CA; `raw.example` maps to a TLS server that
 * records the raw request bytes and answers a fixed page.
 */
export async function startTestWeb(): Promise<TestWeb> {
  const pki = makeTestPki(CERT_NAMES, ['127.0.0.1', PUBLIC.site, PUBLIC.other]);
  const routes = new Map<string, Handler>();
  let tlsConnections = 0;
  const main: HttpsServer = createHttpsServer({ key: pki.key, cert: pki.cert }, (req, res) => {
    const host = (req.headers.host ?? '').replace(/:\d+$/, '').toLowerCase();
    const handler = routes.get(`${host}${req.url ?? '/'}`);
    if (!handler) {
      res.writeHead(404, { 'content-type': 'text/plain' });
      res.end('not found');
      return;
    }
    handler(req, res);
  });
  main.on('secureConnection', () => tlsConnections++);
  const rogue: HttpsServer = createHttpsServer({ key: pki.rogueKey, cert: pki.rogueCert }, (_req, res) => {
    res.writeHead(200, { 'content-type': 'text/html' });
    res.end('<html><body><p>rogue</p></body></html>');
  });
  const rawRequests: string[] = [];
  const raw: TlsServer = createTlsServer({ key: pki.key, cert: pki.cert }, (socket) => {
    let data = '';
    socket.on('data', (chunk: Buffer) => {
      data += chunk.toString('latin1');
      if (data.includes('\r\n\r\n')) {
        rawRequests.push(data);
        const body = '<html><head><title>Raw</title></head><body><main><p>The raw capture page has enough words to be a page.</p></main></body></html>';
        socket.end(`HTTP/1.1 200 OK\r\ncontent-type: text/html\r\ncontent-length: ${Buffer.byteLength(body)}\r\nconnection: close\r\n\r\n${body}`);
      }
    });
    socket.on('error', () => undefined);
  });
  const listen = (server: HttpsServer | TlsServer): Promise<number> =>
    new Promise((done) => server.listen(0, '127.0.0.1', () => done((server.address() as AddressInfo).port)));
  const [port, roguePort, rawPort] = await Promise.all([listen(main), listen(rogue), listen(raw)]);

  const ports: Record<string, number> = {
    [PUBLIC.site]: port,
    [PUBLIC.other]: port,
    [PUBLIC.v6]: port,
    [PUBLIC.rogue]: roguePort,
    [PUBLIC.raw]: rawPort,
  };
  const dns = new Map<string, readonly string[] | ((n: number) => readonly string[])>(Object.entries(DEFAULT_DNS));
  const lookups = new Map<string, number>();
  const resolve = (async (host: string) => {
    resolve.calls.push(host);
    const n = lookups.get(host) ?? 0;
    lookups.set(host, n + 1);
    const entry = dns.get(host);
    if (!entry) throw Object.assign(new Error(`getaddrinfo ENOTFOUND ${host}`), { code: 'ENOTFOUND' });
    const addresses = typeof entry === 'function' ? entry(n) : entry;
    return addresses.map((address) => ({ address, family: address.includes(':') ? 6 : 4 }));
  }) as CountingResolver;
  resolve.calls = [];

  return {
    pki,
    resolve,
    connectTo(address: string): ConnectTarget {
      const mapped = ports[address];
      if (mapped === undefined) throw new Error(`test connector: ${address} is not a test address; refusing to connect`);
      return { host: '127.0.0.1', port: mapped };
    },
    dns,
    route(host, path, handler) {
      routes.set(`${host}${path}`, handler);
    },
    rawRequests,
    connections: () => tlsConnections,
    port,
    close: async () => {
      for (const server of [main, rogue, raw]) {
        (server as HttpsServer).closeAllConnections?.();
        await new Promise<void>((done) => server.close(() => done()));
      }
    },
  };
}

/** A handler answering `body` with a content type (default text/html). */
export function page(body: string, type = 'text/html; charset=utf-8', status = 200): Handler {
  return (_req, res) => {
    res.writeHead(status, { 'content-type': type });
    res.end(body);
  };
}

/** A handler answering a redirect to `location`. */
export function redirect(location: string, status = 302): Handler {
  return (_req, res) => {
    res.writeHead(status, { location });
    res.end();
  };
}

/** A page with a title and enough body text to pass as an article. */
export function article(title: string, paragraphs: readonly string[], extra = ''): string {
  return `<!doctype html><html><head><title>${title}</title></head><body><main><article><h1>${title}</h1>${paragraphs
    .map((p) => `<p>${p}</p>`)
    .join('')}${extra}</article></main></body></html>`;
}
