import { execFile } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';

const SCRIPT = fileURLToPath(new URL('./start-searx.sh', import.meta.url));

/** The searx the tests use, and whether this process started it. */
export interface SearxInstance {
  url: string;
  startedHere: boolean;
  stop(): Promise<void>;
}

function assertLoopback(url: string, from: string): string {
  let parsed: URL;
  try {
    parsed = new URL(url);
  } catch {
    throw new Error(`${from} is not a valid address: ${url}`);
  }
  const host = parsed.hostname.replace(/^\[|\]$/g, '');
  if (!(host === 'localhost' || host.startsWith('127.') || host === '::1')) {
    throw new Error(`${from} must point at a loopback searx (127.0.0.0/8 or ::1); got ${parsed.host}`);
  }
  return url.replace(/\/+$/, '');
}

async function answers(url: string): Promise<boolean> {
  try {
    const response = await fetch(`${url}/search?q=probe&format=json&engines=fixture`, { signal: AbortSignal.timeout(3000) });
    return response.ok && 'results' in ((await response.json()) as object);
  } catch {
    return false;
  }
}

function run(args: string[], timeoutMs: number): Promise<string> {
  return new Promise((done, fail) => {
    execFile('bash', [SCRIPT, ...args], { timeout: timeoutMs }, (error, stdout, stderr) => {
      if (error) fail(new Error(`tests/proxy/searx/start-searx.sh failed: ${stderr.trim() || error.message}`));
      else done(stdout);
    });
  });
}

/**
 * Finds the searx for the tests: `SEARXNG_TEST_URL` when set (CI starts it with start-searx.sh),
 * else the one start-searx.sh left running, else starts one with that script (installing Debian's
 * searx package if needed). Never skips: if searx cannot be had, this throws with the reason.
 */
export async function useSearx(): Promise<SearxInstance> {
  const fromEnv = process.env.SEARXNG_TEST_URL;
  if (fromEnv) {
    const url = assertLoopback(fromEnv, 'SEARXNG_TEST_URL');
    if (!(await answers(url))) throw new Error(`SEARXNG_TEST_URL=${url} does not answer searx JSON; start it with tests/proxy/searx/start-searx.sh`);
    return { url, startedHere: false, stop: async () => undefined };
  }
  const stateFile = `${process.env.SEARX_STATE_DIR ?? '/tmp/nexus-searx'}/url`;
  if (existsSync(stateFile)) {
    const url = assertLoopback(readFileSync(stateFile, 'utf8').trim(), stateFile);
    if (await answers(url)) return { url, startedHere: false, stop: async () => undefined };
  }
  const output = await run([], 280_000);
  const line = output.split('\n').find((l) => l.startsWith('SEARXNG_TEST_URL='));
  if (!line) throw new Error(`start-searx.sh printed no URL:\n${output}`);
  const url = assertLoopback(line.slice('SEARXNG_TEST_URL='.length).trim(), 'start-searx.sh');
  return { url, startedHere: true, stop: async () => void (await run(['--stop'], 10_000)) };
}
