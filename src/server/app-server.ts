import { constants } from 'node:fs';
import { open, readdir, realpath, stat, type FileHandle } from 'node:fs/promises';
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { extname, join, normalize, resolve, sep } from 'node:path';
import { isAllowedHost } from '../proxy/request-guard.ts';
import { pageSecurityHeaders } from './page-policy.ts';
import { serveMcpAppSandbox } from './mcp-app-sandbox.ts';
import { CLIENT_METADATA_PATH, clientMetadataDocument } from './oauth-client-metadata.ts';
import { CompressedFiles, encodingFor } from './compressed-files.ts';

/** Content types for what a Vite build of the page emits (and model files served from a folder). */
const CONTENT_TYPES: Readonly<Record<string, string>> = {
  '.html': 'text/html; charset=utf-8',
  '.js': 'text/javascript; charset=utf-8',
  '.mjs': 'text/javascript; charset=utf-8',
  '.css': 'text/css; charset=utf-8',
  '.json': 'application/json; charset=utf-8',
  '.webmanifest': 'application/manifest+json; charset=utf-8',
  '.svg': 'image/svg+xml',
  '.png': 'image/png',
  '.ico': 'image/x-icon',
  '.wasm': 'application/wasm',
  '.onnx': 'application/octet-stream',
  '.onnx_data': 'application/octet-stream',
  '.txt': 'text/plain; charset=utf-8',
  '.map': 'application/json; charset=utf-8',
};

/**
 * What a model folder's files are served as: JSON as JSON and everything else as bytes, never as a
 * document a browser would render (HTML, SVG) or run.
 */
const DATA_TYPES: Readonly<Record<string, string>> = {
  '.json': 'application/json; charset=utf-8',
};

/**
 * The headers of every file under a mount (model folders): whatever a folder holds is data. A file
 * opened directly in a tab is sandboxed (no script, its own opaque origin), and not sniffed.
 */
const DATA_HEADERS: Readonly<Record<string, string>> = {
  'Content-Security-Policy': 'sandbox',
  'X-Content-Type-Options': 'nosniff',
};

/** The page's files compressed, once per file version (see compressed-files.ts). */
const compressedFiles = new CompressedFiles();

/** How long a file may take to open before the request is answered 503 (a stuck disk or mount). */
const DEFAULT_FS_TIMEOUT_MS = 10_000;

/** Options of {@link startAppServer}. */
export interface AppServerOptions {
  /** Folder holding the built page (`dist/app/`). */
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
   * Host names (`chat.example.org`, or with a port) accepted in the `Host` header besides this
   * machine's loopback names; the same list as the proxy's `PROXY_ORIGINS`. Any other Host is a 403.
   */
  allowedHosts?: readonly string[];
  /**
   * Handles a request before static files are looked up (the companion proxy mounts `/api/` here).
   * Returns true when it answered.
   */
  before?: (req: IncomingMessage, res: ServerResponse) => boolean | Promise<boolean>;
  /**
   * Headers added to every page response (not to mounted data); default {@link pageSecurityHeaders}
   * with no extra origins: the Content-Security-Policy and anti-framing.
   */
  pageHeaders?: Readonly<Record<string, string>>;
  /** How long opening a file may take before the request gets a 503 (default 10 s). */
  fsTimeoutMs?: number;
}

/** A running app server. */
export interface AppServer {
  /** The address to open in a browser, e.g. `http://127.0.0.1:4173/`. */
  url: string;
  server: Server;
  close(): Promise<void>;
}

/**
 * The headers that make the page cross-origin isolated, which is what lets ONNX Runtime's WASM
 * backend use threads (SharedArrayBuffer): without them it computes on one core. `credentialless`
 * rather than `require-corp`, so resources from other origins that send no CORP header still load
 * (without cookies) — the model files come from the hub with CORS, which either allows.
 */
export const CROSS_ORIGIN_ISOLATION: Readonly<Record<string, string>> = {
  'Cross-Origin-Opener-Policy': 'same-origin',
  'Cross-Origin-Embedder-Policy': 'credentialless',
};

/** A served folder: the prefix it answers under, and its real path (symlinks resolved). */
interface ServedRoot {
  prefix: string;
  real: string;
}

/**
 * Serves the built page and its assets from one folder, on one local port.
 *
 * Only GET and HEAD of files inside `root` (or a mounted folder) are answered. A path that would
 * escape it, through `..` or through a symlink, any dotfile or dot-folder (`/.env`, `/.git/…`), and
 * a file that cannot be opened are all a 404, so the server reveals nothing about the disk around
 * it; a request whose `Host` is not this machine (or an allowed host) is a 403.
 *
 * @remarks Security: the page's own origin. Threats: a DNS-rebinding page (an attacker's name
 * pointed at 127.0.0.1) reading `tools.js`, which users edit and may fill with keys, or the model
 * folders — its requests carry the attacker's Host; a symlink in a served folder leading to
 * `/etc/passwd`; secrets in dotfiles; and one unreadable file taking the whole process (page and
 * proxy) down through an unhandled stream error. The file is opened once and streamed from that
 * handle, so what was checked is what is sent.
 */
export async function startAppServer(options: AppServerOptions): Promise<AppServer> {
  const roots: ServedRoot[] = [];
  for (const [prefix, folder] of Object.entries(options.mounts ?? {})) roots.push({ prefix, real: await realRoot(folder) });
  roots.push({ prefix: '/', real: await realRoot(options.root) });
  const settings: AppServerOptions = { ...options, pageHeaders: options.pageHeaders ?? pageSecurityHeaders() };
  const server = createServer((req, res) => {
    void handle(roots, settings, req, res).catch(() => {
      if (!res.headersSent) res.writeHead(500, { 'Content-Type': 'text/plain; charset=utf-8' });
      res.end('Internal error');
    });
  });
  // Slow clients may not hold a connection open for ever (the defaults are minutes).
  server.requestTimeout = 60_000;
  server.headersTimeout = 30_000;
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

/**
 * The page's client metadata document, for the origin it was asked on (an allowed host): over https only
 * (behind a TLS terminator that says so with `X-Forwarded-Proto`), where an authorization server fetches it.
 */
function sendClientMetadata(req: IncomingMessage, res: ServerResponse): void {
  const https = req.headers['x-forwarded-proto'] === 'https' || (req.socket as { encrypted?: boolean }).encrypted === true;
  if (!https || !req.headers.host) {
    res.writeHead(404, { 'Content-Type': 'text/plain; charset=utf-8' });
    res.end('The client metadata document is served over https only.');
    return;
  }
  const body = JSON.stringify(clientMetadataDocument(`https://${req.headers.host}`));
  res.writeHead(200, { 'Content-Type': 'application/json; charset=utf-8', 'Cache-Control': 'public, max-age=3600', 'X-Content-Type-Options': 'nosniff' });
  res.end(req.method === 'HEAD' ? undefined : body);
}

async function realRoot(folder: string): Promise<string> {
  try {
    return await realpath(resolve(folder));
  } catch {
    // A folder that does not exist (yet) serves nothing; its resolved path never matches a real file.
    return resolve(folder);
  }
}

async function handle(roots: readonly ServedRoot[], options: AppServerOptions, req: IncomingMessage, res: ServerResponse): Promise<void> {
  if (options.before && (await options.before(req, res))) return;
  if (!isAllowedHost(req.headers.host, options.allowedHosts ?? [])) {
    res.writeHead(403, { 'Content-Type': 'text/plain; charset=utf-8' });
    res.end('This server answers only requests for this machine (localhost); add the host to PROXY_ORIGINS to allow another.');
    return;
  }
  if (req.method !== 'GET' && req.method !== 'HEAD') {
    res.writeHead(405, { Allow: 'GET, HEAD', 'Content-Type': 'text/plain; charset=utf-8' });
    res.end('Method not allowed');
    return;
  }
  // The MCP app sandbox carries a policy of its own, never the page's (mcp-app-sandbox.ts).
  if (serveMcpAppSandbox(req, res)) return;
  if ((req.url ?? '').split('?')[0] === CLIENT_METADATA_PATH) {
    sendClientMetadata(req, res);
    return;
  }
  const opened = await withTimeout(openFile(roots, req.url ?? '/'), options.fsTimeoutMs ?? DEFAULT_FS_TIMEOUT_MS);
  if (opened === 'timeout') {
    res.writeHead(503, { 'Content-Type': 'text/plain; charset=utf-8', 'Retry-After': '5' });
    res.end('The file could not be read in time.');
    return;
  }
  const file = opened;
  if (!file && (await listMount(roots, req, res))) return;
  if (!file) {
    res.writeHead(404, { 'Content-Type': 'text/plain; charset=utf-8' });
    res.end('Not found');
    return;
  }
  const isData = file.root.prefix !== '/';
  const type = isData ? (DATA_TYPES[extname(file.path)] ?? 'application/octet-stream') : (CONTENT_TYPES[extname(file.path)] ?? 'application/octet-stream');
  // The page's own files compressed (issue 54: 401 KiB on the wire for a first paint of 114 KiB gzip); a model
  // folder's files as they are (a download's progress counts their bytes against their size).
  const encoding = isData ? undefined : encodingFor(req.headers['accept-encoding'], type, file.size);
  let compressed: Buffer | undefined;
  if (encoding) {
    try {
      // The change time and inode too: a rewrite of the same size that puts the old modification time back
      // changes both, so a stale body is never served (issue 67).
      const stat = await file.handle.stat();
      const version = `${file.size}\u0000${stat.mtimeMs}\u0000${stat.ctimeMs}\u0000${stat.ino}`;
      compressed = await compressedFiles.body({ path: file.path, version }, encoding, () => file.handle.readFile());
    } finally {
      await file.handle.close().catch(() => undefined);
    }
  }
  res.writeHead(200, {
    'Content-Type': type,
    'Content-Length': compressed?.length ?? file.size,
    ...(encoding ? { 'Content-Encoding': encoding } : {}),
    // What is sent depends on what the request accepts: caches keep one copy per encoding.
    ...(isData ? {} : { Vary: 'Accept-Encoding' }),
    'X-Content-Type-Options': 'nosniff',
    ...CROSS_ORIGIN_ISOLATION,
    ...(isData ? DATA_HEADERS : options.pageHeaders),
    // Hashed build assets never change; the page and tools.js must be re-read on every visit.
    'Cache-Control': file.path.includes(`${sep}assets${sep}`) ? 'public, max-age=31536000, immutable' : 'no-cache',
  });
  if (compressed) {
    res.end(req.method === 'HEAD' ? undefined : compressed);
    return;
  }
  if (req.method === 'HEAD') {
    await file.handle.close();
    res.end();
    return;
  }
  const stream = file.handle.createReadStream({ autoClose: false });
  // A read that fails half-way ends this response, never the process; the handle is closed
  // however the stream ends (finished, failed, or the client went away).
  stream.on('error', () => res.destroy());
  stream.on('close', () => void file.handle.close().catch(() => undefined));
  res.on('close', () => stream.destroy());
  stream.pipe(res);
}

/**
 * A mount's own address asked for JSON (`GET /models/`, `Accept: application/json`) lists its model
 * folders — those with a config.json — so a page that asked for a folder that is not there can say
 * which are. Only mounts are listed, never the app's root.
 */
async function listMount(roots: readonly ServedRoot[], req: IncomingMessage, res: ServerResponse): Promise<boolean> {
  const pathname = new URL(req.url ?? '/', 'http://localhost').pathname;
  const root = roots.find((r) => r.prefix !== '/' && r.prefix === pathname);
  if (!root || !(req.headers.accept ?? '').includes('application/json')) return false;
  let folders: string[] = [];
  try {
    const entries = await readdir(root.real, { withFileTypes: true });
    const candidates = entries.filter((e) => e.isDirectory() && !e.name.startsWith('.')).map((e) => e.name);
    const withConfig = await Promise.all(
      candidates.map(async (name) => ((await stat(join(root.real, name, 'config.json')).catch(() => undefined))?.isFile() ? name : undefined)),
    );
    folders = withConfig.filter((name): name is string => name !== undefined).sort();
  } catch {
    folders = [];
  }
  const body = JSON.stringify({ folders });
  res.writeHead(200, {
    'Content-Type': 'application/json; charset=utf-8',
    'Content-Length': Buffer.byteLength(body),
    'Cache-Control': 'no-cache',
    'X-Content-Type-Options': 'nosniff',
  });
  res.end(req.method === 'HEAD' ? undefined : body);
  return true;
}

/** An open file ready to stream: its real path, size and handle (closed when the stream ends). */
interface OpenFile {
  /** The served folder it is in. */
  root: ServedRoot;
  path: string;
  size: number;
  handle: FileHandle;
}

async function openFile(roots: readonly ServedRoot[], url: string): Promise<OpenFile | undefined> {
  let pathname: string;
  try {
    pathname = decodeURIComponent(new URL(url, 'http://localhost').pathname);
  } catch {
    return undefined;
  }
  if (pathname.includes('\0') || pathname.includes('\\')) return undefined;
  // No dotfiles or dot-folders, and (since `..` starts with a dot) no traversal either.
  if (pathname.split('/').some((segment) => segment.startsWith('.'))) return undefined;
  const root = roots.find((r) => pathname.startsWith(r.prefix));
  if (!root) return undefined;
  const rest = `/${pathname.slice(root.prefix.length)}`;
  const candidate = normalize(join(root.real, rest.endsWith('/') ? `${rest}index.html` : rest));
  let real: string;
  try {
    // The path as the disk resolves it, symlinks included: it must still be inside the served root.
    real = await realpath(candidate);
  } catch {
    return undefined;
  }
  if (real !== root.real && !real.startsWith(root.real + sep)) return undefined;
  let handle: FileHandle | undefined;
  try {
    // Only regular files: opening a FIFO (or a device) would wait for a writer and hold one of the
    // few threads every file read of the process shares. stat() does not open it; O_NONBLOCK keeps
    // an open that races a swap of the path from waiting all the same.
    if (!(await stat(real)).isFile()) return undefined;
    handle = await open(real, constants.O_RDONLY | constants.O_NONBLOCK);
    const info = await handle.stat();
    if (!info.isFile()) {
      await handle.close();
      return undefined;
    }
    return { root, path: real, size: info.size, handle };
  } catch {
    await handle?.close().catch(() => undefined);
    return undefined;
  }
}

/** The promise's value, or `'timeout'` when it takes longer than `ms`; a late file handle is closed. */
async function withTimeout(opening: Promise<OpenFile | undefined>, ms: number): Promise<OpenFile | undefined | 'timeout'> {
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<'timeout'>((done) => {
    timer = setTimeout(() => done('timeout'), ms);
  });
  try {
    const outcome = await Promise.race([opening, timeout]);
    if (outcome === 'timeout') void opening.then((late) => late?.handle.close()).catch(() => undefined);
    return outcome;
  } finally {
    clearTimeout(timer);
  }
}
