import { readdirSync, readFileSync, statSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { TIMEOUTS } from './timeouts.ts';

const root = resolve(dirname(fileURLToPath(import.meta.url)), '..');

function testFiles(dir: string): string[] {
  return readdirSync(dir).flatMap((name) => {
    const path = join(dir, name);
    if (name === 'node_modules' || name.startsWith('.')) return [];
    if (statSync(path).isDirectory()) return testFiles(path);
    return /\.ts$/.test(name) ? [path] : [];
  });
}

describe('the suite’s waits (issue 55)', () => {
  it('names every wait a test sets: no literal number of milliseconds, which NEXUS_TEST_TIME_SCALE would not scale', () => {
    const literal = [...testFiles(join(root, 'src')).filter((f) => f.endsWith('.test.ts')), ...testFiles(join(root, 'tests'))].flatMap((file) =>
      [...readFileSync(file, 'utf8').matchAll(/\btimeout: \d[\d_]*/g)].map((m) => `${relative(root, file)}: ${m[0]}`),
    );
    expect(literal).toEqual([]);
    expect(TIMEOUTS.reacts).toBeGreaterThan(0);
  });
});
