/**
 * A real Redis for the tests: Debian's `redis-server`, started on a free 127.0.0.1 port with no
 * persistence, one per test file, installed with apt-get when missing (as root), the way the browser
 * tests get Chromium and the search tests get searx. It can be stopped and started again on the same
 * port, for the tests of a Redis lost mid-answer.
 */
import { type ChildProcess, execFileSync, spawn } from 'node:child_process';
import { accessSync, constants, mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createConnection, createServer } from 'node:net';

const REDIS_SERVER = process.env.REDIS_SERVER_PATH ?? '/usr/bin/redis-server';

/** A running test Redis. */
export interface TestRedis {
  /** `redis://127.0.0.1:<port>`. */
  url: string;
  port: number;
  /** Stops it (SIGKILL: as a crash looks to its clients). */
  stop(): Promise<void>;
  /** Starts it again on the same port (empty, unless started with `persist`). */
  start(): Promise<void>;
}

function executable(path: string): boolean {
  try {
    accessSync(path, constants.X_OK);
    return true;
  } catch {
    return false;
  }
}

/** Makes sure `redis-server` is there; installs Debian's package as root, else says what to run. */
export function ensureRedisServer(): string {
  if (executable(REDIS_SERVER)) return REDIS_SERVER;
  const hint = `redis-server is not installed at ${REDIS_SERVER}: run "sudo apt-get install redis-server" (Debian's package), or set REDIS_SERVER_PATH.`;
  if (process.getuid?.() !== 0 || !executable('/usr/bin/apt-get')) throw new Error(hint);
  console.log("Installing Debian's redis-server for the proxy's Redis tests (apt-get, once)…");
  const env = { ...process.env, DEBIAN_FRONTEND: 'noninteractive' };
  try {
    execFileSync('apt-get', ['update', '-qq'], { stdio: ['ignore', 'ignore', 'pipe'], env });
    execFileSync('apt-get', ['install', '-y', '-qq', '--no-install-recommends', 'redis-server'], { stdio: ['ignore', 'ignore', 'pipe'], env });
  } catch (error) {
    throw new Error(`${hint} (apt-get install redis-server failed: ${(error as Error).message.split('\n')[0]})`);
  }
  // Debian starts the packaged service on 6379; the tests never use it, so it may stay or go.
  if (!executable(REDIS_SERVER)) throw new Error(hint);
  return REDIS_SERVER;
}

/** A free TCP port on 127.0.0.1. */
export function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const address = server.address();
      server.close(() => (typeof address === 'object' && address ? resolve(address.port) : reject(new Error('no port'))));
    });
  });
}

/** Resolves once something accepts connections on the port (bounded: 100 tries). */
async function waitForPort(port: number): Promise<void> {
  for (let attempt = 0; attempt < 100; attempt++) {
    const open = await new Promise<boolean>((resolve) => {
      const socket = createConnection({ host: '127.0.0.1', port }, () => {
        socket.destroy();
        resolve(true);
      });
      socket.once('error', () => resolve(false));
    });
    if (open) return;
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
  throw new Error(`redis-server did not start listening on 127.0.0.1:${port}`);
}

/**
 * Starts a fresh Redis on a free loopback port.
 * @param options - `persist`: keep every write in an append-only file (fsync on each), so a Redis
 *   killed and started again still holds the answers, as a production Redis with AOF would.
 */
export async function startTestRedis({ persist = false } = {}): Promise<TestRedis> {
  const binary = ensureRedisServer();
  const port = await freePort();
  const persistence = persist
    ? ['--dir', mkdtempSync(join(tmpdir(), 'nexus-redis-')), '--appendonly', 'yes', '--appendfsync', 'always']
    : ['--appendonly', 'no'];
  let child: ChildProcess | undefined;
  const start = async () => {
    child = spawn(binary, ['--port', String(port), '--bind', '127.0.0.1', '--save', '', ...persistence, '--protected-mode', 'yes', '--loglevel', 'warning'], {
      stdio: 'ignore',
    });
    await waitForPort(port);
  };
  const stop = async () => {
    const running = child;
    child = undefined;
    if (!running || running.exitCode !== null) return;
    await new Promise<void>((resolve) => {
      running.once('exit', () => resolve());
      running.kill('SIGKILL');
    });
  };
  await start();
  return { url: `redis://127.0.0.1:${port}`, port, stop, start };
}
