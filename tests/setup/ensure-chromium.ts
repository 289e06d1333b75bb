import { execFileSync } from 'node:child_process';
import { accessSync, constants } from 'node:fs';

/** What {@link ensureChromium} needs from the machine; injected in its test. */
export interface ChromiumHost {
  /** Whether `path` is an executable file. */
  executable(path: string): boolean;
  /** The effective user id (0 for root), or undefined where there is none. */
  uid(): number | undefined;
  /** Runs a command, inheriting nothing from the terminal; throws when it fails. */
  run(command: string, args: readonly string[]): void;
  /** Writes one line for the person watching the test run. */
  log(line: string): void;
}

const realHost: ChromiumHost = {
  executable(path) {
    try {
      accessSync(path, constants.X_OK);
      return true;
    } catch {
      return false;
    }
  },
  uid: () => process.getuid?.(),
  run(command, args) {
    execFileSync(command, args, { stdio: ['ignore', 'ignore', 'pipe'], env: { ...process.env, DEBIAN_FRONTEND: 'noninteractive' } });
  },
  log: (line) => console.log(line),
};

/**
 * Makes sure Debian's Chromium is there for the browser tests, the way the searx tests make sure
 * of searx: present at `path` → nothing to do; missing, as root with apt-get → installs Debian's
 * `chromium` (never a browser downloaded by a test tool); missing otherwise → one error line
 * saying what to run. So `npm install && npm test` is the whole set-up on a fresh machine.
 *
 * @param path - where Chromium is expected (`CHROMIUM_PATH`, default `/usr/bin/chromium`).
 * @param host - the machine (see {@link ChromiumHost}).
 * @returns the path, once Chromium is there.
 */
export function ensureChromium(path: string, host: ChromiumHost = realHost): string {
  if (host.executable(path)) return path;
  const hint = `Chromium is not installed at ${path}: run "sudo apt-get install chromium" (Debian's package), or set CHROMIUM_PATH to a Chromium or Chrome binary.`;
  const canInstall = host.uid() === 0 && path === '/usr/bin/chromium' && host.executable('/usr/bin/apt-get');
  if (!canInstall) throw new Error(hint);
  host.log("Installing Debian's chromium for the browser tests (apt-get, once)…");
  try {
    host.run('apt-get', ['update', '-qq']);
    host.run('apt-get', ['install', '-y', '-qq', '--no-install-recommends', 'chromium', 'fonts-dejavu-core']);
  } catch (error) {
    const detail = error instanceof Error ? error.message.split('\n')[0] : String(error);
    throw new Error(`${hint} (apt-get install chromium failed: ${detail})`);
  }
  if (!host.executable(path)) throw new Error(hint);
  return path;
}
