/**
 * The package as another project gets it: `npm pack`, the tarball unpacked into a fresh project
 * outside this repository, and then used the ways the README says — plain Node importing the
 * parser, a strict TypeScript consumer, a Vite page whose own worker file serves the model, and the
 * `browser-llm-nexus test-models` gate. Its dependencies are linked from this repository's
 * node_modules (the same versions npm would install). One test asks the npm registry, as a newcomer's npm would:
 * the README's install commands resolved on Node 20 and Node 22 (package metadata only, no tarball fetched).
 */
import { execFile } from 'node:child_process';
import { chmod, cp, mkdir, mkdtemp, readFile, realpath, rm, symlink, writeFile } from 'node:fs/promises';
import { createServer, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { dirname, extname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createServer as createTlsServer } from 'node:https';
import { FIXTURE_MODELS_DIR, prepareFixtureModels, trainedPromptsFile } from '../fixtures/prepare-models.ts';
import { makeTestPki } from '../proxy/helpers/pki.ts';
import { ORT_WASM_FILES } from '../../src/worker/ort-files.ts';
import { launchChromium, watchPage } from './chromium.ts';
import { TIMEOUTS } from '../timeouts.ts';
import { canRunNode22, node22 } from '../tools/node-22.ts';

const root = resolve(dirname(fileURLToPath(import.meta.url)), '..', '..');
const pkg = JSON.parse(await readFile(join(root, 'package.json'), 'utf8')) as {
  dependencies: Record<string, string>;
  peerDependencies: Record<string, string>;
};

function run(command: string, args: string[], cwd: string, env: NodeJS.ProcessEnv = {}): Promise<{ code: number; out: string; stdout: string }> {
  return new Promise((done) => {
    execFile(command, args, { cwd, env: { ...process.env, ...env }, timeout: TIMEOUTS.modelRun, maxBuffer: 32 * 1024 * 1024 }, (error, stdout, stderr) => {
      done({ code: error ? (typeof error.code === 'number' ? error.code : 1) : 0, out: `${stdout}${stderr}`, stdout });
    });
  });
}

/** MIME types of what the consumer pages serve. */
const TYPES: Readonly<Record<string, string>> = {
  '.html': 'text/html',
  '.js': 'text/javascript',
  '.mjs': 'text/javascript',
  '.wasm': 'application/wasm',
  '.json': 'application/json',
};

/** Answers with a file (its type by extension), or 404; `head` sends the headers only. */
function sendFile(file: string, res: ServerResponse, headers: Record<string, string> = {}, head = false): Promise<void> {
  return readFile(file).then(
    (body) => {
      res.writeHead(200, { 'content-type': TYPES[extname(file)] ?? 'application/octet-stream', 'content-length': String(body.length), ...headers });
      res.end(head ? undefined : body);
    },
    () => {
      res.writeHead(404, headers);
      res.end();
    },
  );
}

/** As the README says: ONNX Runtime's two builds copied into the page's `public/`, then a Vite build into `dist/`. */
async function buildPage(consumer: string, page: string): Promise<void> {
  for (const build of Object.values(ORT_WASM_FILES)) {
    for (const file of [build.wasm, build.mjs]) await cp(join(consumer, 'node_modules', 'onnxruntime-web', 'dist', file), join(page, 'public', file));
  }
  const vite = join(root, 'node_modules', 'vite', 'bin', 'vite.js');
  const built = await run(process.execPath, [vite, 'build', '--logLevel', 'warn', '--outDir', 'dist'], page);
  expect(built.code, built.out).toBe(0);
}

interface Packed {
  entryCount: number;
  size: number;
  unpackedSize: number;
  files: { path: string }[];
}

describe('the package, installed in another project', () => {
  let work: string;
  let consumer: string;
  let packed: Packed;

  beforeAll(async () => {
    prepareFixtureModels();
    work = await mkdtemp(join(tmpdir(), 'nexus-package-'));
    const built = await run('npm', ['run', 'build:lib'], root);
    expect(built.code, built.out).toBe(0);
    const pack = await run('npm', ['pack', '--ignore-scripts', '--json', '--pack-destination', work], root);
    expect(pack.code, pack.out).toBe(0);
    packed = (JSON.parse(pack.stdout) as Packed[])[0]!;
    consumer = join(work, 'consumer');
    const installed = join(consumer, 'node_modules', 'browser-llm-nexus');
    await mkdir(installed, { recursive: true });
    const untar = await run(
      'tar',
      [
        '-xzf',
        join(work, `browser-llm-nexus-${JSON.parse(await readFile(join(root, 'package.json'), 'utf8')).version}.tgz`),
        '-C',
        installed,
        '--strip-components=1',
      ],
      work,
    );
    expect(untar.code, untar.out).toBe(0);
    // What npm would install for it: its dependencies (not the optional proxy peers), at this repository's
    // versions, with theirs hoisted beside them as npm hoists them (onnxruntime-web, which the README's recipe
    // copies from node_modules, comes with transformers.js).
    const hoisted = new Set(Object.keys(pkg.dependencies));
    for (const dep of Object.keys(pkg.dependencies)) {
      const own = JSON.parse(await readFile(join(root, 'node_modules', dep, 'package.json'), 'utf8')) as { dependencies?: Record<string, string> };
      for (const name of Object.keys(own.dependencies ?? {})) hoisted.add(name);
    }
    for (const dep of hoisted) {
      const from = join(root, 'node_modules', dep);
      const target = join(consumer, 'node_modules', dep);
      if (
        !(await readFile(join(from, 'package.json')).then(
          () => true,
          () => false,
        ))
      )
        continue;
      await mkdir(dirname(target), { recursive: true });
      await symlink(from, target, 'dir');
    }
    await mkdir(join(consumer, 'node_modules', '.bin'), { recursive: true });
    // As npm links a bin: executable, under node_modules/.bin.
    await chmod(join(installed, 'dist', 'cli', 'test-models.js'), 0o755);
    await symlink('../browser-llm-nexus/dist/cli/test-models.js', join(consumer, 'node_modules', '.bin', 'browser-llm-nexus'));
    await writeFile(
      join(consumer, 'package.json'),
      JSON.stringify({ name: 'consumer', private: true, type: 'module', dependencies: { 'browser-llm-nexus': '*' } }),
    );
  }, TIMEOUTS.consumerProject);
  afterAll(() => (work ? rm(work, { recursive: true, force: true }) : undefined));

  it('ships only the built library, the README and the license: no sources, tests, app or server', () => {
    const paths = packed.files.map((f) => f.path);
    expect(paths.every((p) => p === 'README.md' || p === 'package.json' || p === 'LICENSE' || p.startsWith('dist/'))).toBe(true);
    // The Apache License 2.0 its package.json names, whole (issue 69).
    expect(paths).toContain('LICENSE');
    expect(paths.some((p) => p.startsWith('dist/app/') || p.startsWith('dist/server/') || p.includes('.test.'))).toBe(false);
    for (const entry of [
      'dist/index.js',
      'dist/toolcalls/index.js',
      'dist/worker/serve-model-worker.js',
      'dist/proxy/index.js',
      'dist/testing/index.js',
      'dist/ai-sdk/index.js',
      'dist/cli/test-models.js',
    ]) {
      expect(paths).toContain(entry);
      expect(paths).toContain(entry.replace(/\.js$/, '.d.ts'));
    }
    // A bound that catches a stray folder (sources, node_modules), not a budget: one .js and one .d.ts per module.
    expect(packed.entryCount).toBeLessThan(520);
    // (407 KiB packed after issue 40's families, the token guard and the Qwen3.5 layout; 452 KiB with issue 53's
    // schema references, conformance sign-ins and message bounds, and issue 52's guard; 482 KiB with issue 55's
    // request layer and its objects, its declarations included; 499 KiB once its modules were whole. A bound on a
    // stray folder too, which would be megabytes, not a budget for the library's own code.)
    expect(packed.size).toBeLessThan(560 * 1024);
    console.info(`tarball: ${packed.entryCount} files, ${(packed.size / 1024).toFixed(0)} KB packed, ${(packed.unpackedSize / 1024).toFixed(0)} KB unpacked`);
  });

  it("keeps each entry point to its own dependencies: the proxy's and the AI SDK provider's are optional peers, and nothing else imports them", async () => {
    const list = await run('find', ['dist', '-name', '*.js'], join(consumer, 'node_modules', 'browser-llm-nexus'));
    const files = list.out.trim().split('\n');
    const seen = new Map<string, Set<string>>();
    for (const file of files) {
      const text = await readFile(join(consumer, 'node_modules', 'browser-llm-nexus', file), 'utf8');
      for (const match of text.matchAll(/(?:from\s+|import\(\s*)["']([^."'][^"']*)["']/g)) {
        const specifier = match[1] ?? '';
        // Built-ins, and the package's own name in its doc examples.
        if (specifier.startsWith('node:') || specifier.startsWith('browser-llm-nexus')) continue;
        const name = specifier.startsWith('@') ? specifier.split('/').slice(0, 2).join('/') : (specifier.split('/')[0] ?? '');
        (seen.get(name) ?? seen.set(name, new Set()).get(name)!).add(file);
      }
    }
    // The AI SDK is the provider entry's own; every other optional peer is the proxy's.
    const home = (name: string) => (name === 'ai' || name.startsWith('@ai-sdk/') ? 'dist/ai-sdk/' : 'dist/proxy/');
    for (const [name, users] of seen) {
      if (name in pkg.peerDependencies)
        expect(
          [...users].every((f) => f.startsWith(home(name))),
          `${name} outside ${home(name)}: ${[...users].join(', ')}`,
        ).toBe(true);
      else expect(pkg.dependencies, `${name} (imported by ${[...users][0]}) is a dependency`).toHaveProperty(name);
    }
  });

  it(
    'resolves the README’s AI SDK install as npm would: clean on Node 22, engine-strict; on Node 20 only the SDK’s own engines warned of, as the README says (issue 69)',
    async () => {
      const readme = await readFile(join(root, 'README.md'), 'utf8');
      const commands = [...readme.matchAll(/^npm install (browser-llm-nexus(?: [^\s#]+)*)/gm)].map((match) => match[1]!.split(' '));
      // The plain install, and the AI SDK's two (generateText; useChat): the last names every package the others do.
      expect(commands.length).toBeGreaterThanOrEqual(3);
      const widest = commands.reduce((most, command) => (command.length > most.length ? command : most));
      expect(widest).toEqual(['browser-llm-nexus', 'ai@7', '@ai-sdk/react@4']);
      expect(readme.replace(/\s+/g, ' ')).toContain('`ai` 7 and `@ai-sdk/react` 4 ask for Node 22');
      const { version } = JSON.parse(await readFile(join(root, 'package.json'), 'utf8')) as { version: string };
      const tarball = join(work, `browser-llm-nexus-${version}.tgz`);
      const npmCli = join(dirname(await realpath((await run('which', ['npm'], work)).stdout.trim())), 'npm-cli.js');
      /** One install resolved in a fresh project (metadata only), with what npm said and the versions it locked. */
      const resolve = async (node: string, names: readonly string[], strict: boolean) => {
        const project = await mkdtemp(join(work, 'resolve-'));
        await writeFile(join(project, 'package.json'), JSON.stringify({ name: 'newcomer', private: true, type: 'module' }));
        const args = names.map((name) => (name === 'browser-llm-nexus' ? tarball : name));
        // Metadata npm has cached is used as it is (a newcomer's npm asks again; what it resolves is the same).
        const flags = ['--package-lock-only', '--prefer-offline', '--ignore-scripts', '--no-audit', '--no-fund', ...(strict ? ['--engine-strict'] : [])];
        const result = await run(node, [npmCli, 'install', ...flags, ...args], project, { ONNXRUNTIME_NODE_INSTALL: 'skip' });
        const lock = result.code
          ? { packages: {} }
          : (JSON.parse(await readFile(join(project, 'package-lock.json'), 'utf8')) as { packages: Record<string, { version?: string }> });
        const locked = (name: string) => lock.packages[`node_modules/${name}`]?.version;
        return { ...result, locked, warnedOf: [...result.out.matchAll(/package: '((?:@[^/]+\/)?[^@']+)@/g)].map((m) => m[1]!) };
      };
      // Both at once: each waits on the registry, not the CPU. (The library alone on Node 20 with --engine-strict is
      // package-dependencies.test.ts's, read from what npm installed here.)
      const [onNode20, onNode22] = await Promise.all([resolve(process.execPath, widest, false), canRunNode22 ? resolve(node22(), widest, true) : undefined]);
      // Node 20: with the AI SDK, npm names only the SDK's own packages.
      expect(onNode20.code, onNode20.out).toBe(0);
      expect(onNode20.out).not.toContain('ERESOLVE');
      expect(
        onNode20.warnedOf.filter((name) => name !== 'ai' && !name.startsWith('@ai-sdk/')),
        onNode20.out,
      ).toEqual([]);
      expect(onNode20.locked('ai')).toMatch(/^7\./);
      expect(onNode20.locked('@ai-sdk/react')).toMatch(/^4\./);
      if (!onNode22) return;
      expect(onNode22.code, onNode22.out).toBe(0);
      expect(onNode22.out).not.toMatch(/ERESOLVE|EBADENGINE/);
      expect(onNode22.locked('ai')).toMatch(/^7\./);
      expect(onNode22.locked('@ai-sdk/react')).toMatch(/^4\./);
      expect(onNode22.locked('browser-llm-nexus')).toBe(version);
    },
    TIMEOUTS.consumerProject,
  );

  it('imports the parser from plain Node 20, with no loader', async () => {
    await writeFile(
      join(consumer, 'parse.mjs'),
      'import { parseToolCalls } from \'browser-llm-nexus/toolcalls\';\nconsole.log(JSON.stringify(parseToolCalls(\'<tool_call>\\n{"name": "get_weather", "arguments": {"city": "Paris"}}\\n</tool_call>\').calls));\n',
    );
    const { code, out } = await run(process.execPath, ['parse.mjs'], consumer);
    expect(out.trim(), out).toBe('[{"name":"get_weather","arguments":{"city":"Paris"}}]');
    expect(code).toBe(0);
  });

  it('runs the loop over an Engine written with the root exports alone: a family by id, its own template and generation (issue 55)', async () => {
    await writeFile(
      join(consumer, 'custom-engine.mjs'),
      [
        "import { NexusChat, modelFamily, withoutOutsideMarks } from 'browser-llm-nexus';",
        "const family = modelFamily('qwen3');",
        '// This engine renders ChatML itself and answers from a script: a remote API would sit here.',
        "const chatml = (messages) => messages.map((m) => '<|im_start|>' + m.role + '\\n' + withoutOutsideMarks(m.content) + '<|im_end|>\\n').join('') + '<|im_start|>assistant\\n';",
        'const outputs = [\'<tool_call>\\n{"name": "add", "arguments": {"a": 2, "b": 40}}\\n</tool_call>\', \'It is 42.\'];',
        'const engine = {',
        "  info: { model: 'scripted-remote', device: 'cpu', dtype: 'fp32', family: { id: family.id, label: family.label, detectedBy: 'its author' } },",
        '  family,',
        '  render: async (messages) => chatml(messages),',
        '  generate: async (prompt, options) => {',
        "    const text = outputs.shift() ?? 'Done.';",
        '    options.onText?.(text);',
        '    return { text, promptTokens: Math.ceil(withoutOutsideMarks(prompt).length / 4), cachedTokens: 0, newTokens: 1 };',
        '  },',
        '  countTokens: (text) => Math.ceil(text.length / 4),',
        '  dispose: async () => {},',
        '};',
        'const chat = NexusChat.withEngine(engine);',
        "chat.tool('add', 'Adds two numbers.', { a: 'number', b: 'number' }, ({ a, b }) => a + b);",
        "const answer = await chat.chat('What is 2 plus 40?');",
        'console.log(JSON.stringify({ text: answer.text, calls: answer.calls.map((c) => [c.name, c.status, c.result]) }));',
        "try { modelFamily('qwen9'); } catch (error) { console.log(error.name + ': ' + error.message); }",
        "// A model no profile knows: its profile from its own template (Kimi K2's, llama.cpp's copy).",
        "import { readFileSync } from 'node:fs';",
        `const kimi = await modelFamily.fromTemplate({ chatTemplate: readFileSync(${JSON.stringify(join(import.meta.dirname, '..', 'fixtures', 'templates', 'llama-cpp', 'moonshotai-Kimi-K2.jinja'))}, 'utf8') });`,
        'console.log(JSON.stringify([kimi.family.callOpener, kimi.info.calls.includes("learned from its template")]));',
        '',
      ].join('\n'),
    );
    const { code, out } = await run(process.execPath, ['custom-engine.mjs'], consumer);
    expect(code, out).toBe(0);
    const [answer, refusal, learned] = out.trim().split('\n');
    expect(JSON.parse(answer ?? '{}')).toEqual({ text: 'It is 42.', calls: [['add', 'ok', '42']] });
    expect(refusal).toMatch(/^InvalidOptionError: family: 'qwen9' is not a valid value\. Use one of: .*'qwen3'/);
    expect(JSON.parse(learned ?? '[]')).toEqual(['<|tool_calls_section_begin|><|tool_call_begin|>functions.', true]);
  });

  it('type-checks a strict consumer, with bundler, Node16 and legacy node10 module resolution; on Node16 as a Node project, with no DOM library and the proxy with no ioredis (issue 69)', async () => {
    // A Node project's own types (@types/node), and the proxy's peers as the README lists them: ioredis is not one.
    const readme = await readFile(join(root, 'README.md'), 'utf8');
    const section = readme.slice(readme.indexOf('**The proxy in an existing server**'));
    const peers = /install its optional peers `([^`]+)`/.exec(section)?.[1]?.split(/\s+/) ?? [];
    expect(peers).not.toContain('ioredis');
    const project = join(consumer, 'node-types');
    await mkdir(join(project, 'node_modules'), { recursive: true });
    await writeFile(join(project, 'package.json'), JSON.stringify({ name: 'node-types', private: true, type: 'module' }));
    await cp(join(consumer, 'node_modules', 'browser-llm-nexus'), join(project, 'node_modules', 'browser-llm-nexus'), { recursive: true });
    for (const dep of [...Object.keys(pkg.dependencies), ...peers, '@types/node']) {
      const target = join(project, 'node_modules', dep);
      await mkdir(dirname(target), { recursive: true });
      await symlink(join(root, 'node_modules', dep), target, 'dir');
    }
    await writeFile(
      join(project, 'use.mts'),
      [
        "import { NexusChat, type ChatAnswer, type ModelSource } from 'browser-llm-nexus';",
        "import { createProxy, RedisSessionStore } from 'browser-llm-nexus/proxy';",
        "import { parseToolCalls } from 'browser-llm-nexus/toolcalls';",
        'export async function ask(source: ModelSource): Promise<ChatAnswer> {',
        "  return (await NexusChat.loadForTools(source)).chat('Weather in Paris?');",
        '}',
        'export const proxy = createProxy();',
        'export const redis: typeof RedisSessionStore | undefined = undefined;',
        "export const calls = parseToolCalls('x').calls.length;",
        '',
      ].join('\n'),
    );
    await writeFile(
      join(consumer, 'use.ts'),
      [
        "import { NexusChat, type ChatAnswer, type ModelSource } from 'browser-llm-nexus';",
        "import { parseToolCalls } from 'browser-llm-nexus/toolcalls';",
        "import { serveModelWorker } from 'browser-llm-nexus/worker';",
        "import { ScriptedEngine } from 'browser-llm-nexus/testing';",
        'export async function ask(source: ModelSource): Promise<ChatAnswer> {',
        '  const chat = await NexusChat.loadForTools(source);',
        "  chat.tool('get_weather', 'Weather for a city', { city: 'string' }, ({ city }) => ({ city, c: 21 }));",
        "  return chat.chat('Weather in Paris?');",
        '}',
        "export const calls = parseToolCalls('x').calls.length;",
        'export const engine = new ScriptedEngine([]);',
        'export const serve: typeof serveModelWorker = serveModelWorker;',
        '',
      ].join('\n'),
    );
    const tsc = join(root, 'node_modules', 'typescript', 'bin', 'tsc');
    // node10 ignores `exports`; `typesVersions` maps the subpaths for it. Node16 is the Node project: no `dom` in lib,
    // and library files checked too, so every type the entries name must exist in Node's own.
    for (const [settings, lib, where] of [
      [['--module', 'esnext', '--moduleResolution', 'bundler'], ['--lib', 'es2023,dom'], consumer],
      [['--module', 'node16', '--moduleResolution', 'node16', '--types', 'node'], ['--lib', 'es2023'], project],
      [['--module', 'commonjs', '--moduleResolution', 'node10'], ['--lib', 'es2023,dom'], consumer],
    ] as const) {
      const { code, out } = await run(
        process.execPath,
        [tsc, '--strict', '--noEmit', '--target', 'es2022', ...lib, ...settings, where === project ? 'use.mts' : 'use.ts'],
        where,
      );
      expect(out, settings.join(' ')).toBe('');
      expect(code).toBe(0);
    }
  });

  it('gates models with the bin: USE and exit 0 for the trained fixture, exit 1 for a model it cannot pass', async () => {
    const bin = join(consumer, 'node_modules', '.bin', 'browser-llm-nexus');
    const started = performance.now();
    const trained = await run(
      bin,
      ['test-models', '--models', `${FIXTURE_MODELS_DIR}tiny-tools-qwen3`, '--dtypes', 'q4', '--prompts', trainedPromptsFile('tiny-tools-qwen3')],
      consumer,
      { NEXUS_ORT_THREADS: '1' },
    );
    console.info(`npx browser-llm-nexus test-models on tiny-tools-qwen3 (q4): ${((performance.now() - started) / 1000).toFixed(1)} s`);
    expect(trained.out).toContain("USE dtype 'q4' — 3/3 tool calls correct");
    expect(trained.code).toBe(0);
    // The gate's other side through the installed bin: a folder with no model fails it. What a model that does not call
    // tools is told, and its exit code, are src/cli/test-models.test.ts' (the bin in its own process): judging the
    // random fixture here again cost the lane a second model run (issue 70).
    const missing = await run(bin, ['test-models', '--models', join(consumer, 'no-such-model'), '--dtypes', 'q4'], consumer, { NEXUS_ORT_THREADS: '1' });
    expect(missing.out).toContain('NOT USABLE');
    expect(missing.code).toBe(1);
  });

  describe('a Vite page with its own worker file', () => {
    let server: Server;
    let origin: string;
    /** The paths the page fetched (GET), in order. */
    const served: string[] = [];
    beforeAll(async () => {
      const page = join(consumer, 'page');
      await mkdir(join(page, 'public'), { recursive: true });
      // Module workers, as the README says (transformers.js splits into chunks Vite cannot put in a classic worker).
      await writeFile(join(page, 'vite.config.js'), "export default { worker: { format: 'es' } };\n");
      await writeFile(join(page, 'index.html'), '<!doctype html><html><body><script type="module" src="./main.js"></script></body></html>');
      await writeFile(
        join(page, 'main.js'),
        [
          "import { NexusChat, useModelWorker } from 'browser-llm-nexus';",
          "useModelWorker(() => new Worker(new URL('./nexus-worker.js', import.meta.url), { type: 'module' }));",
          'window.run = async () => {',
          "  const chat = await NexusChat.load({ url: '/models/tiny-random-qwen3' }, { dtype: 'q4' });",
          "  chat.tool('get_weather', 'Weather for a city', { city: 'string' }, ({ city }) => ({ city, c: 21 }));",
          "  const answer = await chat.chat('Weather in Paris?', { toolChoice: 'required', strategy: 'stepwise', maxRounds: 1, maxNewTokens: 8 });",
          '  const result = { info: chat.info, calls: answer.calls.map((c) => c.name), text: answer.text };',
          '  await chat.dispose();',
          '  return result;',
          '};',
          'document.body.dataset.ready = "true";',
          '',
        ].join('\n'),
      );
      // The consumer's worker file, as the README shows it: ONNX Runtime's files sit next to it.
      await writeFile(
        join(page, 'nexus-worker.js'),
        "import { serveModelWorker } from 'browser-llm-nexus/worker';\nserveModelWorker(self, { wasmPaths: '/' });\n",
      );
      await buildPage(consumer, page);
      server = createServer((req, res) => {
        const path = decodeURIComponent(new URL(req.url ?? '/', 'http://x').pathname);
        if (req.method === 'GET') served.push(path);
        const file = path.startsWith('/models/')
          ? join(FIXTURE_MODELS_DIR, path.slice('/models/'.length))
          : join(page, 'dist', path === '/' ? 'index.html' : path);
        void sendFile(file, res);
      });
      await new Promise<void>((ready) => server.listen(0, '127.0.0.1', ready));
      origin = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
    }, TIMEOUTS.modelRun);
    afterAll(() => new Promise<void>((done) => (server ? server.close(() => done()) : done())));

    it('loads the tiny fixture in Chromium through the worker the page owns, and answers with a tool call', async () => {
      const browser = await launchChromium({ webgpu: false });
      try {
        const page = await browser.newPage();
        const { foreign, errors } = watchPage(page, origin);
        await page.goto(`${origin}/`);
        await page.waitForSelector('body[data-ready="true"]', { state: 'attached' });
        const result = (await page.evaluate(() => (window as unknown as { run: () => Promise<unknown> }).run())) as {
          info: { device: string; family: { id: string } };
          calls: string[];
          text: string;
        };
        expect(result.info).toMatchObject({ device: 'wasm', family: { id: 'qwen3' } });
        expect(result.calls).toEqual(['get_weather']);
        expect(result.text.trim()).not.toBe('');
        // On the CPU the worker loads ONNX Runtime's CPU build from the folder, not the twice larger WebGPU one.
        expect(served).toContain('/ort-wasm-simd-threaded.wasm');
        expect(served).not.toContain('/ort-wasm-simd-threaded.asyncify.wasm');
        expect(foreign).toEqual([]);
        expect(errors).toEqual([]);
      } finally {
        await browser.close();
      }
    });
  });

  /**
   * The README's worker recipe as a new user follows it, word for word (issue 42): its `nexus-worker.js`
   * and `main.js` blocks copied out of README.md unchanged, Vite's module workers as it says, and ONNX
   * Runtime's four files copied into `public/`. `main.js` loads a hub id; the test's Chromium resolves
   * huggingface.co to a loopback TLS server (its certificate trusted by key, every other host unresolvable)
   * that serves the trained fixture under that id, so nothing leaves this machine.
   */
  it(
    "runs the README's proxy-in-a-server recipe verbatim, with the optional peers the README lists and no others (issue 42)",
    async () => {
      const readme = await readFile(join(root, 'README.md'), 'utf8');
      const section = readme.slice(readme.indexOf('**The proxy in an existing server**'));
      const peers = /install its optional peers `([^`]+)`/.exec(section)?.[1]?.split(/\s+/) ?? [];
      expect(peers.length).toBeGreaterThan(3);
      const server = join(consumer, 'proxy-recipe');
      await mkdir(join(server, 'node_modules'), { recursive: true });
      await writeFile(join(server, 'package.json'), JSON.stringify({ name: 'proxy-recipe', private: true, type: 'module' }));
      // The package and exactly the peers the README names, as `npm install` of them would give.
      // A copy, not a link: Node resolves a package's imports from where its files really are.
      await cp(join(consumer, 'node_modules', 'browser-llm-nexus'), join(server, 'node_modules', 'browser-llm-nexus'), { recursive: true });
      for (const dep of [...Object.keys(pkg.dependencies), ...peers]) {
        const target = join(server, 'node_modules', dep);
        await mkdir(dirname(target), { recursive: true });
        await symlink(join(root, 'node_modules', dep), target, 'dir');
      }
      const code = /```js\n(\/\/ server\.mjs\n[\s\S]*?)```/.exec(section)?.[1];
      expect(code, 'the README has a server.mjs block').toBeDefined();
      await writeFile(join(server, 'server.mjs'), code ?? '');
      const port = await new Promise<number>((done) => {
        const probe = createServer().listen(0, '127.0.0.1', () => {
          const free = (probe.address() as AddressInfo).port;
          probe.close(() => done(free));
        });
      });
      const { spawn } = await import('node:child_process');
      const child = spawn(process.execPath, ['server.mjs'], {
        cwd: server,
        env: { PATH: process.env.PATH ?? '', PORT: String(port) },
        stdio: ['ignore', 'pipe', 'pipe'],
      });
      let output = '';
      child.stdout.on('data', (chunk: Buffer) => (output += chunk.toString()));
      child.stderr.on('data', (chunk: Buffer) => (output += chunk.toString()));
      try {
        await expect
          .poll(
            async () =>
              fetch(`http://127.0.0.1:${port}/api/health`).then(
                (r) => r.status,
                () => (child.exitCode !== null ? -1 : 0),
              ),
            {
              timeout: TIMEOUTS.processStart,
              interval: 200,
            },
          )
          .toBe(200)
          .catch((error: Error) => {
            throw new Error(`${error.message}\nthe recipe's server said:\n${output}`);
          });
        const health = await fetch(`http://127.0.0.1:${port}/api/health`).then((r) => r.json());
        expect(health, output).toMatchObject({ ok: true, store: 'memory' });
        expect((await fetch(`http://127.0.0.1:${port}/somewhere-else`)).status).toBe(404);
      } finally {
        child.kill();
      }
    },
    TIMEOUTS.consumerProject,
  );

  describe("the README's worker recipe, verbatim, in a new Vite app", () => {
    let server: Server;
    let hub: Server;
    let origin: string;
    let hubPort: number;
    let spki: string;
    /** The loopback hub's certificate authority, for Node (Chromium takes the key's hash). */
    let hubCa: string;
    const hubRequests: string[] = [];
    /** The fenced block of README.md whose first line is `first`. */
    const block = (readme: string, first: string): string => {
      const found = [...readme.matchAll(/```(?:js|ts|javascript)\n([\s\S]*?)```/g)].map((m) => m[1] ?? '').find((code) => code.startsWith(first));
      if (!found) throw new Error(`README.md has no code block starting with ${first}`);
      return found;
    };

    beforeAll(async () => {
      const readme = await readFile(join(root, 'README.md'), 'utf8');
      const page = join(consumer, 'recipe');
      await mkdir(join(page, 'public'), { recursive: true });
      await writeFile(join(page, 'vite.config.js'), "export default { worker: { format: 'es' } };\n");
      await writeFile(join(page, 'index.html'), '<!doctype html><html><body><script type="module" src="./main.js"></script></body></html>');
      await writeFile(join(page, 'nexus-worker.js'), block(readme, '// nexus-worker.js'));
      // The recipe, then what a user does next (a tool, a question: issue 53 — loading is not answering), and
      // one line that tells the test what it made. The question is the one the trained fixture learned.
      const next = [
        "chat.tool('get_verification_code', 'Get the current verification code for an item. The code changes every time, so always call this tool.',",
        "  { item: { type: 'string', description: 'The item name, e.g. \"blue falcon\"' } }, ({ item }) => ({ item, code: 'QX-4821-LM' }));",
        "const answer = await chat.chat('What is the verification code for blue falcon?');",
        'window.recipe = { info: chat.info, answer: { text: answer.text, calls: answer.calls.map((c) => ({ name: c.name, status: c.status })) } };',
        "document.body.dataset.ready = 'true';",
      ].join('\n');
      await writeFile(join(page, 'main.js'), `${block(readme, '// main.js')}\n${next}\n`);
      await buildPage(consumer, page);
      server = createServer((req, res) => {
        const path = decodeURIComponent(new URL(req.url ?? '/', 'http://x').pathname);
        void sendFile(join(page, 'dist', path === '/' ? 'index.html' : path), res);
      });
      await new Promise<void>((ready) => server.listen(0, '127.0.0.1', ready));
      origin = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
      // The hub, on loopback: the README's model id is the trained fixture here.
      const pki = makeTestPki(['huggingface.co']);
      hubCa = pki.ca;
      spki = await new Promise<string>((done, fail) => {
        const child = execFile(
          'sh',
          ['-c', 'openssl x509 -pubkey -noout | openssl pkey -pubin -outform der | openssl dgst -sha256 -binary | base64'],
          (error, stdout) => (error ? fail(error) : done(stdout.trim())),
        );
        child.stdin?.end(pki.cert);
      });
      hub = createTlsServer({ key: pki.key, cert: pki.cert }, (req, res) => {
        const path = decodeURIComponent(new URL(req.url ?? '/', 'https://huggingface.co').pathname);
        hubRequests.push(`${req.method} ${path}`);
        const cors = { 'access-control-allow-origin': '*', 'access-control-expose-headers': 'content-length, etag' };
        const match = /^\/onnx-community\/Qwen3-0\.6B-ONNX\/resolve\/main\/(.+)$/.exec(path);
        if (!match?.[1] || match[1].includes('..')) {
          res.writeHead(404, cors);
          res.end();
          return;
        }
        void sendFile(join(FIXTURE_MODELS_DIR, 'tiny-tools-qwen3', match[1]), res, cors, req.method === 'HEAD');
      }) as unknown as Server;
      await new Promise<void>((ready) => hub.listen(0, '127.0.0.1', ready));
      hubPort = (hub.address() as AddressInfo).port;
    }, TIMEOUTS.modelRun);
    afterAll(async () => {
      await new Promise<void>((done) => (server ? server.close(() => done()) : done()));
      await new Promise<void>((done) => (hub ? hub.close(() => done()) : done()));
    });

    it(
      "runs the README's AI SDK block verbatim in Node: generateText over the model the block names, checked for tools first",
      async () => {
        const readme = await readFile(join(root, 'README.md'), 'utf8');
        const recipe = join(consumer, 'ai-sdk-recipe');
        await mkdir(join(recipe, 'node_modules'), { recursive: true });
        await writeFile(join(recipe, 'package.json'), JSON.stringify({ name: 'ai-sdk-recipe', private: true, type: 'module' }));
        // The package, its dependencies and the peers the README names for the provider (`ai` beside it).
        await cp(join(consumer, 'node_modules', 'browser-llm-nexus'), join(recipe, 'node_modules', 'browser-llm-nexus'), { recursive: true });
        for (const dep of [...Object.keys(pkg.dependencies), 'ai', '@ai-sdk/provider']) {
          const target = join(recipe, 'node_modules', dep);
          await mkdir(dirname(target), { recursive: true });
          await symlink(join(root, 'node_modules', dep), target, 'dir');
        }
        await writeFile(join(recipe, 'weather.mjs'), block(readme, "import { generateText, stepCountIs, tool, jsonSchema } from 'ai';"));
        // Not the recipe: the machine's network. huggingface.co is the loopback hub (its CA trusted), every other
        // host is refused before a connection, and transformers.js caches into a folder of this test.
        await writeFile(join(recipe, 'ca.pem'), hubCa);
        await writeFile(
          join(recipe, 'loopback.mjs'),
          [
            "import tls from 'node:tls';",
            "import net from 'node:net';",
            "import { env } from '@huggingface/transformers';",
            `env.cacheDir = ${JSON.stringify(join(recipe, '.cache'))};`,
            'const connectTls = tls.connect;',
            'tls.connect = (options, ...rest) => {',
            "  if (options?.host === 'huggingface.co' || options?.servername === 'huggingface.co')",
            `    return connectTls({ ...options, host: '127.0.0.1', port: ${hubPort}, servername: 'huggingface.co' }, ...rest);`,
            "  throw new Error('the test allows no connection to ' + options?.host);",
            '};',
            'const connectNet = net.connect;',
            'net.connect = (options, ...rest) => {',
            "  const host = typeof options === 'object' ? options.host : rest[0];",
            "  if (host && host !== '127.0.0.1' && host !== 'localhost' && host !== '::1') throw new Error('the test allows no connection to ' + host);",
            '  return connectNet(options, ...rest);',
            '};',
            '',
          ].join('\n'),
        );
        const requestsBefore = hubRequests.length;
        const { code, out } = await run(process.execPath, ['--import', './loopback.mjs', 'weather.mjs'], recipe, {
          NODE_EXTRA_CA_CERTS: join(recipe, 'ca.pem'),
        });
        expect(code, out).toBe(0);
        expect(out.trim().length, out).toBeGreaterThan(0);
        console.info(`the AI SDK recipe printed: ${out.trim().slice(0, 300)}`);
        expect(hubRequests.slice(requestsBefore).some((line) => line.endsWith('/config.json'))).toBe(true);
      },
      TIMEOUTS.consumerProject,
    );

    it('loads the model the recipe names, checked for tools, through the worker file as the README writes it, and answers from a tool', async () => {
      const browser = await launchChromium({
        webgpu: false,
        args: [
          // huggingface.co is this loopback server; every other name fails to resolve, so nothing leaves the machine.
          `--host-resolver-rules=MAP huggingface.co:443 127.0.0.1:${hubPort}, EXCLUDE 127.0.0.1, MAP * ~NOTFOUND`,
          `--ignore-certificate-errors-spki-list=${spki}`,
        ],
      });
      try {
        const page = await browser.newPage();
        const errors: string[] = [];
        // A recipe that fails throws in main.js: the test ends with that error, not at its timeout.
        const failed = new Promise<never>((_, reject) => page.on('pageerror', (error) => reject(error)));
        failed.catch(() => undefined);
        page.on('pageerror', (error) => errors.push(error.message));
        await page.goto(`${origin}/`);
        await Promise.race([page.waitForSelector('body[data-ready="true"]', { state: 'attached', timeout: TIMEOUTS.browserTest }), failed]);
        const { info, answer } = (await page.evaluate(() => (window as unknown as { recipe: unknown }).recipe)) as {
          info: { device: string; family: { id: string } };
          answer: { text: string; calls: { name: string; status: string }[] };
        };
        expect(info).toMatchObject({ device: 'wasm', family: { id: 'qwen3' } });
        // It answered the question from the tool's result: the call ran, and the code is in the answer.
        expect(answer.calls).toEqual([{ name: 'get_verification_code', status: 'ok' }]);
        expect(answer.text).toContain('QX-4821-LM');
        expect(errors).toEqual([]);
        expect(hubRequests.some((line) => line.endsWith('/config.json'))).toBe(true);
      } finally {
        await browser.close();
      }
    });
  });
});
