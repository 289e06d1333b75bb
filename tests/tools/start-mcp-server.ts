import { type ChildProcess, spawn } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { compiledEntry } from '../compiled-entry.ts';

const SERVER = fileURLToPath(new URL('./mcp-test-server.ts', import.meta.url));

/** The test MCP server in its child process. */
export interface TestMcpServer {
  /** Its MCP endpoint on 127.0.0.1. */
  readonly url: string;
  readonly port: number;
  /** What it printed so far (`CANCELLED <tool>` lines). */
  output(): string;
  /** Stops it (SIGKILL: a crash, as far as clients can tell). */
  kill(): Promise<void>;
  /** Starts it again on the same port, as a restarted server would be. */
  restart(): Promise<void>;
}

/**
 * Starts `mcp-test-server.ts` (the official SDK's server, Streamable HTTP, 127.0.0.1 only) in a
 * child process and waits for its `LISTENING` line.
 * @param env - `EXTRA_TOOLS`, `PAGE_SIZE`, `BAD_SCHEMA`, `CORS_ORIGIN`, `PORT`.
 */
export async function startMcpServer(env: Record<string, string> = {}): Promise<TestMcpServer> {
  let output = '';
  let child: ChildProcess | undefined;
  const server = await compiledEntry(SERVER);
  const start = (port: number) =>
    new Promise<number>((resolve, reject) => {
      child = spawn(process.execPath, [server], {
        stdio: ['ignore', 'pipe', 'pipe'],
        env: { PATH: process.env.PATH ?? '', ...env, PORT: String(port) },
      });
      let seen = '';
      child.stdout?.on('data', (chunk: Buffer) => {
        output += chunk.toString();
        seen += chunk.toString();
        const match = /LISTENING (\d+)/.exec(seen);
        if (match) resolve(Number(match[1]));
      });
      child.once('exit', (code) => reject(new Error(`the MCP test server exited with ${code} before listening`)));
    });
  const port = await start(Number(env.PORT ?? 0));
  const kill = async () => {
    const running = child;
    if (!running || running.exitCode !== null || running.signalCode !== null) return;
    const exited = new Promise((resolve) => running.once('exit', resolve));
    running.kill('SIGKILL');
    await exited;
  };
  return {
    url: `http://127.0.0.1:${port}/mcp`,
    port,
    output: () => output,
    kill,
    restart: async () => {
      await kill();
      await start(port);
    },
  };
}
