/**
 * A small team deployment on loopback for the tests and the load bench: proxy instances in child
 * processes (tests/proxy/cluster/proxy-instance.ts), a round-robin balancer in front of them that
 * passes a request to the next instance when one does not answer (as HAProxy's `option redispatch`
 * does), and the test web they read.
 */
import { type ChildProcess, spawn } from 'node:child_process';
import { writeFileSync } from 'node:fs';
import { request as httpRequest, createServer, type IncomingMessage, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { compiledEntry, PAGE_CONVERTER_WORKER } from '../../compiled-entry.ts';
import { article, page, type TestWeb } from '../helpers/test-web.ts';

const INSTANCE = fileURLToPath(new URL('./proxy-instance.ts', import.meta.url));

/** A running proxy instance. */
export interface ProxyInstance {
  port: number;
  /** Kills it at once (SIGKILL), as a crashed machine would. */
  kill(): Promise<void>;
  /** What it wrote to stderr so far. */
  stderr(): string;
}

/** Adds the pages the instances' fixed search results point at. */
export function routeClusterPages(web: TestWeb): void {
  for (const [host, path, title] of [
    ['site.example', '/doc', 'The document'],
    ['other.example', '/post', 'The post'],
    ['site.example', '/guide', 'The guide'],
  ] as const) {
    web.route(host, path, page(article(title, [`${title} has text that is long enough to read as a page. `.repeat(5)])));
  }
  for (let i = 0; i < CLUSTER_PARTS; i++) {
    web.route('site.example', `/part/${i}`, page(article(`Part ${i}`, [`Part ${i} has text that is long enough to read as a page. `.repeat(5)])));
  }
}

/** How many `https://site.example/part/<n>` pages {@link routeClusterPages} serves. */
export const CLUSTER_PARTS = 16;

/** Starts an instance reading `web`, with extra environment (`REDIS_URL`, budgets, `RATE_MAX`). */
export async function startInstance(web: TestWeb, env: Record<string, string> = {}): Promise<ProxyInstance> {
  const caFile = join(tmpdir(), `nexus-cluster-ca-${process.pid}.pem`);
  writeFileSync(caFile, web.pki.ca);
  const child: ChildProcess = spawn(process.execPath, [await compiledEntry(INSTANCE, { beside: PAGE_CONVERTER_WORKER })], {
    env: { PATH: process.env.PATH ?? '', TEST_WEB_PORT: String(web.port), TEST_WEB_CA: caFile, ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let err = '';
  child.stderr?.on('data', (chunk: Buffer) => {
    err += chunk.toString();
  });
  const port = await new Promise<number>((resolve, reject) => {
    let out = '';
    child.stdout?.on('data', (chunk: Buffer) => {
      out += chunk.toString();
      const match = /LISTENING (\d+)/.exec(out);
      if (match) resolve(Number(match[1]));
    });
    child.once('exit', (code) => reject(new Error(`proxy instance exited with ${code} before listening: ${err.trim()}`)));
  });
  return {
    port,
    stderr: () => err,
    kill: () =>
      new Promise<void>((resolve) => {
        if (child.exitCode !== null || child.signalCode !== null) return resolve();
        child.once('exit', () => resolve());
        child.kill('SIGKILL');
      }),
  };
}

/** A round-robin balancer on 127.0.0.1. */
export interface Balancer {
  url: string;
  /** The instance port that answered each request, in order. */
  served: number[];
  close(): Promise<void>;
}

/** Forwards one request to one upstream; rejects when the upstream does not take the connection. */
function forward(req: IncomingMessage, body: Buffer, port: number): Promise<{ status: number; headers: IncomingMessage['headers']; body: Buffer }> {
  return new Promise((resolve, reject) => {
    const upstream = httpRequest(
      {
        host: '127.0.0.1',
        port,
        method: req.method,
        path: req.url,
        headers: { ...req.headers, 'x-forwarded-for': req.socket.remoteAddress ?? '' },
      },
      (res) => {
        const chunks: Buffer[] = [];
        res.on('data', (chunk: Buffer) => chunks.push(chunk));
        res.on('end', () => resolve({ status: res.statusCode ?? 502, headers: res.headers, body: Buffer.concat(chunks) }));
        res.on('error', reject);
      },
    );
    upstream.on('error', reject);
    upstream.end(body);
  });
}

/**
 * Starts a balancer sending each request to the next of `ports` in turn; an instance that refuses the
 * connection is skipped for that request (each request tries every instance at most once).
 */
export async function startBalancer(ports: readonly number[]): Promise<Balancer> {
  let next = 0;
  const served: number[] = [];
  const server: Server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.on('end', async () => {
      const body = Buffer.concat(chunks);
      for (let attempt = 0; attempt < ports.length; attempt++) {
        const port = ports[next++ % ports.length] ?? 0;
        try {
          const answer = await forward(req, body, port);
          served.push(port);
          res.writeHead(answer.status, answer.headers);
          res.end(answer.body);
          return;
        } catch {
          // Connection refused or reset: the next instance gets it.
        }
      }
      res.writeHead(502, { 'content-type': 'application/json' });
      res.end(JSON.stringify({ ok: false, code: 'bad_gateway', reason: 'no instance answered' }));
    });
  });
  // Node closes a keep-alive connection idle for 5 s by default. A test's calls fan out and then go on over the
  // sockets the first finished with: on a busy machine the slowest of fifteen reads can take that long, and fetch
  // then sent the next call down a socket the balancer was closing (ECONNRESET). Idle sockets stay until close().
  server.keepAliveTimeout = 0;
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', () => resolve()));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    served,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

/** A JSON call through the balancer, as the page would make it. */
export async function call(base: string, path: string, body?: unknown): Promise<{ status: number; json: Record<string, unknown> }> {
  const response = await fetch(`${base}${path}`, {
    method: body === undefined ? 'GET' : 'POST',
    headers: body === undefined ? {} : { 'content-type': 'application/json' },
    ...(body === undefined ? {} : { body: JSON.stringify(body) }),
    signal: AbortSignal.timeout(30_000),
  });
  return { status: response.status, json: (await response.json()) as Record<string, unknown> };
}
