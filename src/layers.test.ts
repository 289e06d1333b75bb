/**
 * The layer table of DESIGN.md §2, enforced: every relative import of every source file (tests
 * and test fixtures aside), as the TypeScript parser reads it, points to a layer its own layer may
 * import. A new arrow that points up the table fails here, naming the file and the import.
 */
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import ts from 'typescript';
import { describe, expect, it } from 'vitest';

const SRC = dirname(fileURLToPath(import.meta.url));

/** Layer → what it may import: a layer, `layer:file,file` for only those files of it, or `layer:types` for its types only. */
const MAY_IMPORT: Readonly<Record<string, readonly string[]>> = {
  shared: [],
  toolcalls: [],
  tools: ['shared', 'toolcalls'],
  // "engine (interface only)": types from the engine, never its code.
  loop: ['shared', 'toolcalls', 'tools', 'engine:types'],
  engine: ['shared'],
  worker: ['shared', 'loop', 'engine'],
  // "engine (ladder only)": the ladder's code, and the engine's types.
  check: ['shared', 'loop', 'tools', 'engine:device-ladder.ts', 'engine:types'],
  web: ['shared', 'tools'],
  // The page sees the package's entries — the root, through the internal entry that adds what only this
  // repository's app, CLI and tests use (issue 43) — and `./worker` for the app's own worker file.
  app: ['internal', 'worker:serve-model-worker.ts'],
  testing: ['shared', 'engine', 'loop', 'tools'],
  proxy: ['shared'],
  cli: ['shared', 'check', 'engine', 'nexus'],
  server: ['shared', 'proxy'],
  nexus: ['shared', 'toolcalls', 'tools', 'loop', 'engine', 'worker', 'check', 'web'],
  index: ['shared', 'toolcalls', 'tools', 'loop', 'engine', 'worker', 'check', 'web', 'nexus'],
  internal: ['shared', 'toolcalls', 'tools', 'loop', 'engine', 'worker', 'check', 'web', 'nexus', 'index'],
  // "the facade's layers, not app": types from every layer the facade is built on, and the facade.
  'ai-sdk': ['shared', 'toolcalls', 'tools', 'loop', 'engine', 'worker', 'check', 'web', 'nexus', 'index'],
};

/** npm packages the core layers may import (the browser-side core stays small); other layers are not limited here. */
const NPM_MAY_IMPORT: Readonly<Record<string, readonly string[]>> = {
  shared: [],
  toolcalls: ['jsonrepair'],
  // acorn: only to find a syntax error's line when tools.js runs as a module (no eval to bisect with).
  // The MCP SDK: behind a dynamic import, loaded only when a server is connected.
  tools: ['@cfworker/json-schema', 'minisearch', 'stemmer', 'idb-keyval', 'acorn', '@modelcontextprotocol/client'],
  loop: [],
  // node: built-ins only behind a dynamic import, on the Node path (model folders).
  // @huggingface/jinja: the Jinja engine transformers.js renders chat templates with, for the scripted engine's real templates.
  engine: ['@huggingface/transformers', '@huggingface/jinja', 'idb-keyval', 'fflate', 'node:fs', 'node:fs/promises', 'node:path'],
  worker: ['@huggingface/transformers', 'onnxruntime-web'],
  check: ['idb-keyval'],
  web: [],
};

function sources(dir: string): string[] {
  return readdirSync(dir).flatMap((name) => {
    const path = join(dir, name);
    if (statSync(path).isDirectory()) return name === '__fixtures__' ? [] : sources(path);
    return /\.ts$/.test(name) && !/\.(test|d)\.ts$/.test(name) ? [path] : [];
  });
}

/**
 * Every module a source file depends on, read by the TypeScript parser (not a regex): static imports
 * and re-exports (`import type` too, any quotes), `import()` with a literal, `require()`, and
 * `new URL('…', import.meta.url)` (how workers and assets are referenced).
 * @param fileName - for the parser's diagnostics.
 * @param text - the source.
 */
function importsOf(fileName: string, text: string): { specifier: string; typeOnly: boolean; dynamic?: true }[] {
  const source = ts.createSourceFile(fileName, text, ts.ScriptTarget.Latest, true, ts.ScriptKind.TS);
  const found: { specifier: string; typeOnly: boolean; dynamic?: true }[] = [];
  const literal = (node: ts.Node | undefined): string | undefined =>
    node && (ts.isStringLiteral(node) || ts.isNoSubstitutionTemplateLiteral(node)) ? node.text : undefined;
  const visit = (node: ts.Node): void => {
    if ((ts.isImportDeclaration(node) || ts.isExportDeclaration(node)) && node.moduleSpecifier) {
      const specifier = literal(node.moduleSpecifier);
      if (specifier !== undefined) found.push({ specifier, typeOnly: isTypeOnly(node) });
    } else if (ts.isImportEqualsDeclaration(node) && ts.isExternalModuleReference(node.moduleReference)) {
      const specifier = literal(node.moduleReference.expression);
      if (specifier !== undefined) found.push({ specifier, typeOnly: node.isTypeOnly });
    } else if (ts.isCallExpression(node)) {
      const isDynamicImport = node.expression.kind === ts.SyntaxKind.ImportKeyword;
      const isRequire = ts.isIdentifier(node.expression) && node.expression.text === 'require';
      const specifier = literal(node.arguments[0]);
      if ((isDynamicImport || isRequire) && specifier !== undefined) found.push({ specifier, typeOnly: false, dynamic: true });
    } else if (ts.isNewExpression(node) && ts.isIdentifier(node.expression) && node.expression.text === 'URL' && node.arguments?.length === 2) {
      const base = node.arguments[1];
      const specifier = literal(node.arguments[0]);
      // Code referenced by address (a worker's module); a folder or data file is not an import.
      const code = specifier !== undefined && /\.(?:[cm]?[jt]s)$/.test(specifier);
      if (code && base && ts.isPropertyAccessExpression(base) && ts.isMetaProperty(base.expression) && base.name.text === 'url')
        found.push({ specifier, typeOnly: false, dynamic: true });
    } else if (ts.isImportTypeNode(node)) {
      const argument = node.argument;
      if (ts.isLiteralTypeNode(argument)) {
        const specifier = literal(argument.literal);
        if (specifier !== undefined) found.push({ specifier, typeOnly: true });
      }
    }
    ts.forEachChild(node, visit);
  };
  visit(source);
  return found;
}

/** Whether an import or re-export brings in types only (`import type`, or every named element `type`): no code runs from it. */
function isTypeOnly(node: ts.ImportDeclaration | ts.ExportDeclaration): boolean {
  if (ts.isExportDeclaration(node)) {
    if (node.isTypeOnly) return true;
    return Boolean(node.exportClause && ts.isNamedExports(node.exportClause) && node.exportClause.elements.every((e) => e.isTypeOnly));
  }
  const clause = node.importClause;
  if (!clause) return false;
  if (clause.isTypeOnly) return true;
  if (clause.name) return false;
  const bindings = clause.namedBindings;
  return Boolean(bindings && ts.isNamedImports(bindings) && bindings.elements.length > 0 && bindings.elements.every((e) => e.isTypeOnly));
}

/** The layer a path under src/ belongs to: its top folder, or the file name for src/index.ts and src/internal.ts. */
function layerOf(pathUnderSrc: string): string {
  return pathUnderSrc.split('/')[0]!.replace(/\.ts$/, '');
}

function allowed(from: string, target: string, typeOnly: boolean): boolean {
  const to = layerOf(target);
  if (to === from) return true;
  return (MAY_IMPORT[from] ?? []).some((rule) => {
    const [layer, files] = rule.split(':');
    if (layer !== to) return false;
    if (files === 'types') return typeOnly;
    return files === undefined || files.split(',').includes(target.slice(to.length + 1));
  });
}

describe('the layer table', () => {
  const files = sources(SRC);

  it('knows every layer under src/', () => {
    for (const file of files) expect(MAY_IMPORT, `a layer row for ${relative(SRC, file)}`).toHaveProperty(layerOf(relative(SRC, file)));
  });

  it('is kept by every import: arrows only point down', () => {
    const violations: string[] = [];
    for (const file of files) {
      const from = layerOf(relative(SRC, file));
      for (const { specifier, typeOnly } of importsOf(file, readFileSync(file, 'utf8')).filter((s) => s.specifier.startsWith('.'))) {
        const target = relative(SRC, resolve(dirname(file), specifier));
        if (target.startsWith('..')) violations.push(`${relative(SRC, file)} imports ${specifier}, outside src/`);
        else if (!allowed(from, target, typeOnly)) violations.push(`${relative(SRC, file)} (${from}) imports ${target}${typeOnly ? ' (types)' : ' (code)'}`);
      }
    }
    expect(violations).toEqual([]);
  });

  it("keeps the page's rooms apart: only main.ts and the elements import an element; state, conversation and mcp render nothing (issue 55)", () => {
    const rooms = ['elements', 'state', 'conversation', 'mcp'];
    const appFiles = files.filter((file) => relative(SRC, file).startsWith('app/'));
    // A newcomer finds each part in its room: nothing of the page is left loose beside them but its entry files and shared words.
    const loose = appFiles.map((file) => relative(join(SRC, 'app'), file)).filter((path) => !rooms.includes(path.split('/')[0] ?? '') && path.includes('/'));
    expect(loose).toEqual([]);
    const violations: string[] = [];
    for (const file of appFiles) {
      const room = relative(join(SRC, 'app'), file).split('/')[0];
      if (room === 'elements' || room === 'main.ts') continue;
      for (const { specifier } of importsOf(file, readFileSync(file, 'utf8')).filter((s) => s.specifier.startsWith('.'))) {
        const target = relative(join(SRC, 'app'), resolve(dirname(file), specifier));
        if (target.startsWith('elements/')) violations.push(`${relative(SRC, file)} imports ${target}`);
      }
    }
    expect(violations).toEqual([]);
  });

  it('has no import circles, types included: a file reaches itself through no chain of static imports (issue 43)', () => {
    const graph = new Map<string, string[]>();
    for (const file of files) {
      const targets = importsOf(file, readFileSync(file, 'utf8'))
        .filter((s) => s.specifier.startsWith('.') && !s.dynamic)
        .map((s) => relative(SRC, resolve(dirname(file), s.specifier)));
      graph.set(relative(SRC, file), targets);
    }
    const circles: string[] = [];
    const state = new Map<string, 'open' | 'done'>();
    const walk = (node: string, path: string[]): void => {
      state.set(node, 'open');
      for (const next of graph.get(node) ?? []) {
        if (!graph.has(next)) continue;
        if (state.get(next) === 'open') circles.push([...path.slice(path.indexOf(next)), next].join(' → '));
        else if (!state.has(next)) walk(next, [...path, next]);
      }
      state.set(node, 'done');
    };
    for (const node of graph.keys()) if (!state.has(node)) walk(node, [node]);
    expect(circles).toEqual([]);
  });

  it('has a root entry that names what a library user needs: at most 60 runtime values, each by name (issue 43)', () => {
    const file = join(SRC, 'index.ts');
    const source = ts.createSourceFile(file, readFileSync(file, 'utf8'), ts.ScriptTarget.Latest, true);
    const runtime: string[] = [];
    const wholesale: string[] = [];
    for (const statement of source.statements) {
      if (!ts.isExportDeclaration(statement)) continue;
      const clause = statement.exportClause;
      if (!clause || !ts.isNamedExports(clause)) {
        wholesale.push(statement.getText());
        continue;
      }
      if (statement.isTypeOnly) continue;
      for (const element of clause.elements) if (!element.isTypeOnly) runtime.push(element.name.text);
    }
    expect(wholesale).toEqual([]);
    expect(new Set(runtime).size).toBe(runtime.length);
    expect(runtime.length, runtime.join(' ')).toBeLessThanOrEqual(60);
    // The app, CLI and tests reach the rest through the internal entry, which holds the whole root.
    expect(readFileSync(join(SRC, 'internal.ts'), 'utf8')).toContain("export * from './index.ts';");
  });

  it('keeps the core layers to their few npm packages', () => {
    const violations: string[] = [];
    for (const file of files) {
      const from = layerOf(relative(SRC, file));
      const packages = NPM_MAY_IMPORT[from];
      if (!packages) continue;
      for (const { specifier } of importsOf(file, readFileSync(file, 'utf8')).filter((s) => !s.specifier.startsWith('.'))) {
        const name = specifier.startsWith('@') ? specifier.split('/').slice(0, 2).join('/') : (specifier.split('/')[0] ?? '');
        if (!packages.includes(name)) violations.push(`${relative(SRC, file)} (${from}) imports ${specifier}`);
      }
    }
    expect(violations).toEqual([]);
  });

  it('reads imports as the compiler does: any quotes, re-exports, type-only, dynamic, require and worker URLs', () => {
    const text = [
      'import { a } from "../loop/prompts.ts";',
      "import type { B } from '../engine/engine.ts';",
      "export { c } from './c.ts';",
      'export * from `./d.ts`;',
      "const e = await import('./e.ts');",
      "const f = require('./f.cjs');",
      "new Worker(new URL('./g.ts', import.meta.url));",
      "type H = import('./h.ts').H;",
      "import { type I, type J } from './i.ts';",
      "import { type K, l } from './k.ts';",
      "export type { M } from './m.ts';",
      "// import { z } from './commented-out.ts';",
      'const text = "import { y } from \'./in-a-string.ts\'";',
    ].join('\n');
    expect(importsOf('x.ts', text)).toEqual([
      { specifier: '../loop/prompts.ts', typeOnly: false },
      { specifier: '../engine/engine.ts', typeOnly: true },
      { specifier: './c.ts', typeOnly: false },
      { specifier: './d.ts', typeOnly: false },
      { specifier: './e.ts', typeOnly: false, dynamic: true },
      { specifier: './f.cjs', typeOnly: false, dynamic: true },
      { specifier: './g.ts', typeOnly: false, dynamic: true },
      { specifier: './h.ts', typeOnly: true },
      { specifier: './i.ts', typeOnly: true },
      { specifier: './k.ts', typeOnly: false },
      { specifier: './m.ts', typeOnly: true },
    ]);
  });

  it('would catch an arrow pointing up (the rule is not vacuous)', () => {
    expect(allowed('engine', 'loop/prompts.ts', false)).toBe(false);
    // The loop sees the engine's interface only: its types, never its code.
    expect(allowed('loop', 'engine/transformers-engine.ts', false)).toBe(false);
    expect(allowed('loop', 'engine/embedding-model.ts', false)).toBe(false);
    expect(allowed('loop', 'engine/engine.ts', true)).toBe(true);
    expect(allowed('check', 'nexus/index.ts', false)).toBe(false);
    expect(allowed('app', 'engine/model-source.ts', false)).toBe(false);
  });
});
