import { createReadStream } from 'node:fs';
import { stat } from 'node:fs/promises';
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { extname, join, normalize, resolve, sep } from 'node:path';

/** Content types for what a Vite build of the page emits (and model files served from a folder). */
const CONTENT_TYPES: Readonly<Record<string, string>> = {
  '.html': 'text/html; charset=utf-8',
  '.js': 'text/javascript; charset=utf-8',
  '.mjs': 'text/javascript; charset=utf-8',
  '.css': 'text/css; charset=utf-8',
  '.json': 'application/json; charset=utf-8',
  '.svg': 'image/svg+xml',
  '.png': 'image/png',
  '.ico': 'image/x-icon',
  '.wasm': 'application/wasm',
  '.onnx': 'application/octet-stream',
  '.onnx_data': 'application/octet-stream',
  '.txt': 'text/plain; charset=utf-8',
  '.map': 'application/json; charset=utf-8',
};

/** Options of {@link startAppServer}. */
export interface AppServerOptions {
  /** Folder holding the built page (`dist/`). */
  root: string;
  /** Interface to bind. Loopback by default: the app is for the person at this machine. */
  host?: string;
  /** Port to bind; 0 picks a free one. */
  port?: number;
  /**
   * Extra folders served under a path prefix, e.g. `{ '/models/': '/data/models' }` so the page can
   * load a model folder from its own origin. Same rules as the root: files inside the folder only.
   */
  mounts?: Readonly<Record<string, string>>;
  /**
   * Handles a request before static files are looked up (the companion proxy mounts `/api/` here).
   * Returns true when it answered.
   */
  before?: (req: IncomingMessage, res: ServerResponse) => boolean | Promise<boolean>;
}

/** A running app server. */
export interface AppServer {
  /** The address to open in a browser, e.g. `http://127.0.0.1:4173/`. */
  url: string;
  server: Server;
  close(): Promise<void>;
}

/**
 * Serves the built page and its assets from one folder, on one local port.
 *
 * Only GET and HEAD of files inside `root` are answered; any path that would escape it is a 404,
 * not a 403, so the server reveals nothing about the disk around it.
 */
export async function startAppServer(options: AppServerOptions): Promise<AppServer> {
  const root = resolve(options.root);
  const server = createServer((req, res) => {
    void handle(root, options, req, res).catch((error: unknown) => {
      if (!res.headersSent) res.writeHead(500, { 'Content-Type': 'text/plain; charset=utf-8' });
      res.end(`Internal error: ${error instanceof Error ? error.message : String(error)}`);
    });
  });
  await new Promise<void>((done, fail) => {
    server.once('error', fail);
    server.listen(options.port ?? 0, options.host ?? '127.0.0.1', () => done());
  });
  const { address, port } = server.address() as AddressInfo;
  const host = address.includes(':') ? `[${address}]` : address;
  return {
    url: `http://${host}:${port}/`,
    server,
    close: () =>
      new Promise<void>((done) => {
        server.closeAllConnections();
        server.close(() => done());
      }),
  };
}

async function handle(root: string, options: AppServerOptions, req: IncomingMessage, res: ServerResponse): Promise<void> {
  if (options.before && (await options.before(req, res))) return;
  if (req.method !== 'GET' && req.method !== 'HEAD') {
    res.writeHead(405, { Allow: 'GET, HEAD', 'Content-Type': 'text/plain; charset=utf-8' });
    res.end('Method not allowed');
    return;
  }
  const file = await findFile(root, req.url ?? '/', options.mounts);
  if (!file) {
    res.writeHead(404, { 'Content-Type': 'text/plain; charset=utf-8' });
    res.end('Not found');
    return;
  }
  res.writeHead(200, {
    'Content-Type': CONTENT_TYPES[extname(file.path)] ?? 'application/octet-stream',
    'Content-Length': file.size,
    'X-Content-Type-Options': 'nosniff',
    // Hashed build assets never change; the page and tools.js must be re-read on every visit.
    'Cache-Control': file.path.includes(`${sep}assets${sep}`) ? 'public, max-age=31536000, immutable' : 'no-cache',
  });
  if (req.method === 'HEAD') {
    res.end();
    return;
  }
  createReadStream(file.path).pipe(res);
}

async function findFile(siteRoot: string, url: string, mounts: AppServerOptions['mounts'] = {}): Promise<{ path: string; size: number } | undefined> {
  let pathname: string;
  try {
    pathname = decodeURIComponent(new URL(url, 'http://localhost').pathname);
  } catch {
    return undefined;
  }
  if (pathname.includes('\0')) return undefined;
  let root = siteRoot;
  const mount = Object.keys(mounts).find((prefix) => pathname.startsWith(prefix));
  if (mount) {
    root = resolve(mounts[mount] ?? siteRoot);
    pathname = `/${pathname.slice(mount.length)}`;
  }
  const candidate = normalize(join(root, pathname.endsWith('/') ? `${pathname}index.html` : pathname));
  if (candidate !== root && !candidate.startsWith(root + sep)) return undefined;
  try {
    const info = await stat(candidate);
    if (info.isFile()) return { path: candidate, size: info.size };
  } catch {
    // Not there: a 404 below.
  }
  return undefined;
}
