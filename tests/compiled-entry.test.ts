import { execFile } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { basename, dirname, join } from 'node:path';
import { afterAll, describe, expect, it, vi } from 'vitest';
import { compiledEntry } from './compiled-entry.ts';
import { TIMEOUTS } from './timeouts.ts';

/** Runs a file with plain `node` (no loader) and resolves with what it printed. */
function runNode(file: string): Promise<string> {
  return new Promise((resolve, reject) => {
    execFile(process.execPath, [file], { timeout: TIMEOUTS.processStart }, (error, stdout, stderr) =>
      error ? reject(new Error(stderr || error.message)) : resolve(stdout),
    );
  });
}

describe('compiledEntry', () => {
  const sources = mkdtempSync(join(tmpdir(), 'nexus-compiled-entry-'));
  afterAll(() => rmSync(sources, { recursive: true, force: true }));

  /** An entry that imports TypeScript of its own and a package, and loads a file that must sit beside it. */
  function writeEntry(word: string): string {
    writeFileSync(join(sources, 'word.ts'), `export const word: string = '${word}';\n`);
    writeFileSync(join(sources, 'helper.ts'), 'export default function helper(): string { return "beside"; }\n');
    writeFileSync(
      join(sources, 'entry.ts'),
      [
        "import { z } from 'zod';",
        "import { word } from './word.ts';",
        "const { default: helper } = await import(new URL('./helper.js', import.meta.url).href);",
        "console.log(z.string().parse(word) + ' ' + helper());",
        '',
      ].join('\n'),
    );
    return join(sources, 'entry.ts');
  }

  let firstFolder = '';

  it('runs with plain node, its own TypeScript compiled in, its packages imported, and the files given beside it', {
    timeout: TIMEOUTS.processStart,
  }, async () => {
    const file = await compiledEntry(writeEntry('first'), { beside: { helper: join(sources, 'helper.ts') } });
    expect(basename(file)).toBe('entry.js');
    // `.js` outside the project's package scope would be CommonJS without this.
    expect(JSON.parse(readFileSync(join(dirname(file), 'package.json'), 'utf8'))).toEqual({ type: 'module' });
    expect(await runNode(file)).toBe('first beside\n');
    firstFolder = dirname(file);
  });

  it('compiles changed sources into a folder of their own, and the same sources into the same one', { timeout: TIMEOUTS.processStart }, async () => {
    const entry = writeEntry('second');
    const beside = { helper: join(sources, 'helper.ts') };
    // As a new process would: this one keeps what it compiled for the run.
    const fresh = async () => {
      vi.resetModules();
      return (await import('./compiled-entry.ts')).compiledEntry;
    };
    const changed = await (await fresh())(entry, { beside });
    expect(await runNode(changed)).toBe('second beside\n');
    expect(dirname(changed)).not.toBe(firstFolder);
    expect(await (await fresh())(entry, { beside })).toBe(changed);
  });
});
