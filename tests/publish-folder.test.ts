import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { publishFolder } from './publish-folder.ts';

describe('publishFolder', () => {
  const root = mkdtempSync(join(tmpdir(), 'nexus-publish-folder-'));
  afterAll(() => rmSync(root, { recursive: true, force: true }));

  /** A staging folder holding one file that says who built it. */
  function staged(by: string): string {
    const folder = join(root, `staging-${by}`);
    mkdirSync(folder);
    writeFileSync(join(folder, 'built-by'), by);
    return folder;
  }

  it('moves the folder into place; a second build of it finds the first there, keeps it, and removes its own copy', () => {
    const target = join(root, 'app');
    const first = staged('first');
    publishFolder(first, target);
    expect(existsSync(first)).toBe(false);
    const second = staged('second');
    publishFolder(second, target);
    expect(readFileSync(join(target, 'built-by'), 'utf8')).toBe('first');
    expect(existsSync(second)).toBe(false);
  });

  it('throws where the folder cannot be moved and nothing is in place', () => {
    const staging = staged('lost');
    expect(() => publishFolder(staging, join(root, 'no-such-parent', 'app'))).toThrow(/ENOENT/);
    expect(existsSync(staging)).toBe(true);
  });
});
