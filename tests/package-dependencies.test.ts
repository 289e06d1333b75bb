/**
 * What a project that installs the library gets (issue 53): the dependencies are what the library's
 * own modules import (the page's Markdown, code colours, formulas and PDF reader are the app's), and
 * every package npm installs for them runs on the Node the package names, so `npm install
 * --engine-strict` is clean there. Read from this repository's node_modules, as npm resolves them.
 */
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { satisfies, minVersion } from 'semver';
import { describe, expect, it } from 'vitest';

const root = resolve(dirname(fileURLToPath(import.meta.url)), '..');

interface Manifest {
  name: string;
  version: string;
  engines?: { node?: string };
  dependencies?: Record<string, string>;
  optionalDependencies?: Record<string, string>;
  peerDependencies?: Record<string, string>;
  peerDependenciesMeta?: Record<string, { optional?: boolean }>;
}

const manifest = (folder: string): Manifest => JSON.parse(readFileSync(join(folder, 'package.json'), 'utf8')) as Manifest;
const own = manifest(root);

/** Where npm put `name` for a package in `from`: the nearest node_modules up the tree. */
function resolvePackage(name: string, from: string): string | undefined {
  for (let dir = from; dir.startsWith(root); dir = dirname(dir)) {
    const candidate = join(dir, 'node_modules', name);
    if (existsSync(join(candidate, 'package.json'))) return candidate;
    if (dir === root) break;
  }
  return undefined;
}

/** Every package installed for the library's dependencies (required peers included), with where it sits. */
function installedClosure(): Map<string, Manifest> {
  const seen = new Map<string, Manifest>();
  const queue = Object.keys(own.dependencies ?? {}).map((name) => ({ name, from: root, optional: false }));
  while (queue.length) {
    const { name, from, optional } = queue.shift()!;
    const folder = resolvePackage(name, from);
    if (!folder) {
      // An optional dependency for another platform is not installed here, and npm skips it there too.
      if (!optional) throw new Error(`${name} (needed by ${relative(root, from) || 'the package'}) is not installed`);
      continue;
    }
    if (seen.has(folder)) continue;
    const found = manifest(folder);
    seen.set(folder, found);
    for (const dep of Object.keys(found.dependencies ?? {})) queue.push({ name: dep, from: folder, optional: false });
    for (const dep of Object.keys(found.optionalDependencies ?? {})) queue.push({ name: dep, from: folder, optional: true });
    for (const dep of Object.keys(found.peerDependencies ?? {})) {
      if (!found.peerDependenciesMeta?.[dep]?.optional) queue.push({ name: dep, from: folder, optional: true });
    }
  }
  return seen;
}

/** Bare package names the library's modules import (everything under src/ but the app, the server and tests). */
function libraryImports(): Set<string> {
  const names = new Set<string>();
  const walk = (dir: string): void => {
    for (const entry of readdirSync(dir, { withFileTypes: true })) {
      const path = join(dir, entry.name);
      if (entry.isDirectory()) {
        if (!['app', 'server', '__fixtures__'].includes(entry.name)) walk(path);
        continue;
      }
      if (!entry.name.endsWith('.ts') || entry.name.endsWith('.test.ts')) continue;
      const text = readFileSync(path, 'utf8');
      for (const match of text.matchAll(/(?:^|\n)\s*(?:import|export)[^'"]*?from\s+['"]([^.'"][^'"]*)['"]|import\(\s*['"]([^.'"][^'"]*)['"]\s*\)/g)) {
        const specifier = match[1] ?? match[2] ?? '';
        if (specifier.startsWith('node:')) continue;
        names.add(specifier.startsWith('@') ? specifier.split('/').slice(0, 2).join('/') : (specifier.split('/')[0] ?? ''));
      }
    }
  };
  walk(join(root, 'src'));
  return names;
}

describe("the library's install (issue 53)", () => {
  it("depends on what the library imports, and nothing only the app uses: the page's PDF reader, formulas and code colours are dev dependencies", () => {
    const imported = libraryImports();
    const unused = Object.keys(own.dependencies ?? {}).filter((name) => !imported.has(name));
    expect(unused, `dependencies no library module imports: ${unused.join(', ')}`).toEqual([]);
    for (const appOnly of ['pdfjs-dist', 'katex', 'highlight.js']) expect(own.dependencies).not.toHaveProperty(appOnly);
  });

  it('installs nothing that refuses the Node it names: every package npm brings for it accepts the lowest Node of its engines', () => {
    const lowest = minVersion(own.engines?.node ?? '')?.version;
    expect(lowest, 'package.json names a Node version in engines').toBeTruthy();
    const refused = [...installedClosure().values()]
      .filter((dep) => dep.engines?.node && !satisfies(lowest!, dep.engines.node))
      .map((dep) => `${dep.name}@${dep.version} wants node ${dep.engines?.node}`);
    expect(refused).toEqual([]);
  });

  it('skips install scripts by the form npm keeps: allowScripts in package.json, not an .npmrc key npm no longer knows', () => {
    const allow = (own as Manifest & { allowScripts?: Record<string, boolean> }).allowScripts;
    // onnxruntime-node's postinstall downloads a CUDA build from outside the npm registry.
    expect(allow).toMatchObject({ 'onnxruntime-node': false });
    const npmrc = join(root, '.npmrc');
    if (existsSync(npmrc)) expect(readFileSync(npmrc, 'utf8')).not.toMatch(/onnxruntime-node-install/);
  });
});
