import { ToolDefinitionError, ToolsFileError } from './errors.ts';
import { findSyntaxErrorLine, lineInStack, wrapperLineCount } from './source-location.ts';
import type { McpServerEntry } from './mcp-servers.ts';
import { ToolRegistry } from './tool-registry.ts';
import { describeValue } from './tool-schema.ts';

/** Options of {@link evalTools}. */
export interface EvalToolsOptions {
  /** How errors name the source, e.g. the URL it came from. Default: `the tools source`. */
  readonly sourceName?: string;
}

/** Options of {@link loadTools}. */
export interface LoadToolsOptions {
  /**
   * Fetches the file. Default: `globalThis.fetch`. Pass your own for auth headers, a bundler's
   * `?raw` import, or a test double: `(url) => fetch(url, { headers })`.
   */
  readonly fetch?: (url: string, init?: RequestInit) => Promise<Response>;
  /** Aborts the request; an abort is rethrown as is, not reported as a broken file. */
  readonly signal?: AbortSignal;
  /**
   * How the file is run: `'function'` (default) compiles it with the `Function` constructor, which a
   * Content-Security-Policy without `'unsafe-eval'` forbids; `'module'` imports it from its address
   * as a JavaScript module (same privileges, no `eval`: what a page with a strict policy uses; the
   * file must then be served as JavaScript from an origin its `script-src` allows, and runs in strict
   * mode).
   */
  readonly evaluate?: 'function' | 'module';
}

/** The ways {@link loadTools} can run a file. */
const TOOLS_EVALUATION_MODES = ['function', 'module'] as const;

/** What a tools file calls `tool(...)` on, and what each call returns so that calls chain. */
interface ToolChain {
  tool: (...args: unknown[]) => ToolChain;
  mcp: (...args: unknown[]) => ToolChain;
}

/** The names a tools file is given: `tool` and `mcp`. */
type Injected = Pick<ToolChain, 'tool' | 'mcp'>;

type AsyncBody = (tool: ToolChain['tool'], mcp: ToolChain['mcp']) => Promise<unknown>;

/** What `mcp(url, options)` in a tools file may set. */
const MCP_OPTION_NAMES: readonly string[] = ['headers', 'confirm', 'label', 'callTimeoutMs', 'connectTimeoutMs'];

// Tools files may use top-level `await` (to read a config, say), so they are compiled as the body
// of an async function. Same mechanism and same caution as `new Function`.
const AsyncFunction = Object.getPrototypeOf(async () => {}).constructor as new (...parameters: string[]) => AsyncBody;

const compileBody = (source: string): AsyncBody => new AsyncFunction('tool', 'mcp', source);
const compileWithUrl = (source: string, sourceUrl: string): AsyncBody =>
  // The comment goes on its own line so a trailing `// comment` in the file cannot swallow it.
  new AsyncFunction('tool', 'mcp', `${source}\n//# sourceURL=${sourceUrl}`);

let wrapperLines: Promise<number> | undefined;
const unusedTool = (): never => {
  throw new Error('the line-counting probe does not register tools');
};
let evaluations = 0;

/**
 * Runs a tools file given as a string and makes what it registers the registry's tool set.
 *
 * The file is plain script with `tool` injected; `tool(name, description, parameters, handler,
 * options?)` has the signature of {@link ToolRegistry.tool} and returns something with a `tool`
 * method, so calls may chain. Every call is collected and checked first; only when the whole file
 * ran and registered at least one tool does its set REPLACE the registry's current set. A broken
 * file leaves the previous tools in place.
 *
 * **Caution:** this is code execution with the privileges of the page (it uses the `Function`
 * constructor). Only evaluate code the current user wrote for themselves, never a string that came
 * from another user or from a server you do not control. A page whose Content Security Policy
 * lacks `'unsafe-eval'` cannot use it at all.
 *
 * @param registry - receives the new tool set.
 * @param source - the JavaScript source.
 * @param options - `sourceName`, used in error messages.
 * @returns the registered names, in registration order.
 * @throws ToolsFileError for a syntax error (with its line), an error thrown at top level (with
 *   its line), a rejected `tool()` call (with its line), or a file that registers no tools.
 */
export async function evalTools(registry: ToolRegistry, source: string, options: EvalToolsOptions = {}): Promise<string[]> {
  const sourceName = options.sourceName ?? 'the tools source';
  if (typeof source !== 'string') {
    throw new ToolsFileError(sourceName, 'syntax', `the source must be a string of JavaScript, got ${describeValue(source)}.`);
  }

  // A fresh sourceURL per evaluation, so stack frames of this run cannot be confused with frames of
  // handlers from an earlier load of the same file.
  evaluations += 1;
  const sourceUrl = `nexus-tools-${evaluations}-${sourceName.replace(/[^\w.-]+/g, '_').slice(-60)}`;
  wrapperLines ??= wrapperLineCount((probe, url) => {
    const run = compileWithUrl(probe, url);
    return () => run(unusedTool, unusedTool);
  });
  const offset = await wrapperLines;
  const fileLine = (stack: unknown): number | undefined => {
    const line = lineInStack(stack, sourceUrl);
    return line === undefined ? undefined : line - offset;
  };

  let body: AsyncBody;
  try {
    body = compileWithUrl(source, sourceUrl);
  } catch (error) {
    throw compileFailure(sourceName, source, error);
  }

  return collectTools(registry, sourceName, source, (injected) => body(injected.tool, injected.mcp), fileLine);
}

/**
 * Runs a tools file through `run`, which hands it the `tool` function, and collects what it
 * registers; only a whole file that registered at least one tool replaces the registry's set.
 */
async function collectTools(
  registry: ToolRegistry,
  sourceName: string,
  source: string,
  run: (injected: Injected) => Promise<unknown>,
  fileLine: (stack: unknown) => number | undefined,
): Promise<string[]> {
  const staging = new ToolRegistry();
  const servers: McpServerEntry[] = [];
  let running = true;
  let rejected: ToolsFileError | undefined;
  const chain: ToolChain = {
    mcp(...args: unknown[]): ToolChain {
      const callSite = new Error('mcp() call site').stack;
      try {
        if (!running) throw new ToolDefinitionError(`mcp() was called after ${sourceName} finished loading. Call mcp() at the top level of the file.`);
        const entry = mcpEntry(args[0], args[1]);
        if (servers.some((server) => server.url === entry.url)) throw new ToolDefinitionError(`the file declares the MCP server ${entry.url} twice.`);
        servers.push(entry);
      } catch (error) {
        rejected ??= new ToolsFileError(sourceName, 'definition', (error as Error).message, { line: fileLine(callSite), cause: error });
        throw error;
      }
      return chain;
    },
    tool(...args: unknown[]): ToolChain {
      const callSite = new Error('tool() call site').stack;
      if (!running) {
        throw new ToolDefinitionError(
          `tool() was called after ${sourceName} finished loading (from a timer or callback?). Call tool() at the top level of the file.`,
        );
      }
      try {
        const name = typeof args[0] === 'string' ? args[0] : undefined;
        const earlier = name === undefined ? undefined : staging.resolveName(name);
        if (earlier !== undefined) {
          // The registry's own advice (unregister first) makes no sense inside a file.
          throw new ToolDefinitionError(`the file defines a tool named '${earlier}' twice. Give each tool its own name.`, name);
        }
        // `Reflect.apply` rather than a typed call: the file is untyped script, and every argument
        // is checked at run time by the registry.
        Reflect.apply(staging.tool, staging, args);
      } catch (error) {
        const message = error instanceof Error ? error.message : String(error);
        // Kept even if the file catches the throw: a tool that failed to register must not vanish silently.
        rejected ??= new ToolsFileError(sourceName, 'definition', message, { line: fileLine(callSite), cause: error });
        throw error;
      }
      return chain;
    },
  };

  try {
    await run(chain);
  } catch (error) {
    if (rejected !== undefined) throw rejected;
    if (error instanceof ToolsFileError) throw error;
    const what = error instanceof Error ? `${error.name}: ${withoutPeriod(error.message)}` : `the value ${String(error)}`;
    const line = fileLine(error instanceof Error ? error.stack : undefined);
    throw new ToolsFileError(sourceName, 'runtime', `the file threw ${what}. Fix the file and load it again.`, { line, cause: error });
  } finally {
    running = false;
  }
  if (rejected !== undefined) throw rejected;

  if (staging.size === 0 && servers.length === 0) {
    // Replacing the user's tools with nothing is almost always a wrong path or a wrong file, and
    // the model would then silently stop calling anything.
    const what = source.trim() === '' ? 'the file is empty' : 'the file ran but registered no tools';
    throw new ToolsFileError(
      sourceName,
      'empty',
      `${what}. Register at least one with tool(name, description, parameters, handler), or name an MCP server with mcp(url).`,
    );
  }

  registry.restore(staging.snapshot());
  registry.mcpServers = Object.freeze(servers);
  return staging.names;
}

/**
 * The server `mcp(url, options)` declares: an address (absolute, or relative to the page) and
 * `headers`, `confirm` (`false` runs its tools that are not marked read-only without asking),
 * `label`, `callTimeoutMs`, `connectTimeoutMs`.
 */
function mcpEntry(url: unknown, options: unknown = {}): McpServerEntry {
  if (typeof url !== 'string' || url.trim() === '') {
    throw new ToolDefinitionError(`mcp() needs the server's address as a string, such as mcp('http://127.0.0.1:3001/mcp'); got ${describeValue(url)}.`);
  }
  try {
    new URL(url, globalThis.location?.href ?? 'http://localhost/');
  } catch {
    throw new ToolDefinitionError(`mcp('${url}'): not an address. Give the server's MCP endpoint, such as 'http://127.0.0.1:3001/mcp'.`);
  }
  if (typeof options !== 'object' || options === null || Array.isArray(options)) {
    throw new ToolDefinitionError(`mcp('${url}', options): options must be an object with ${MCP_OPTION_NAMES.join(', ')}; got ${describeValue(options)}.`);
  }
  const given = options as Record<string, unknown>;
  const unknown = Object.keys(given).filter((key) => !MCP_OPTION_NAMES.includes(key));
  if (unknown.length > 0) {
    throw new ToolDefinitionError(
      `mcp('${url}'): unknown option ${unknown.map((k) => `'${k}'`).join(', ')}; valid options are ${MCP_OPTION_NAMES.join(', ')}.`,
    );
  }
  const { headers, confirm, label, callTimeoutMs, connectTimeoutMs } = given;
  if (headers !== undefined && (typeof headers !== 'object' || headers === null || Object.values(headers).some((v) => typeof v !== 'string'))) {
    throw new ToolDefinitionError(`mcp('${url}'): headers must be an object of strings, such as { Authorization: 'Bearer …' }.`);
  }
  if (confirm !== undefined && typeof confirm !== 'boolean') throw new ToolDefinitionError(`mcp('${url}'): confirm must be true or false.`);
  if (label !== undefined && typeof label !== 'string') throw new ToolDefinitionError(`mcp('${url}'): label must be a string.`);
  for (const [key, value] of Object.entries({ callTimeoutMs, connectTimeoutMs })) {
    if (value !== undefined && !(typeof value === 'number' && value > 0))
      throw new ToolDefinitionError(`mcp('${url}'): ${key} must be a positive number of milliseconds.`);
  }
  return {
    url,
    ...(headers ? { headers: { ...(headers as Record<string, string>) } } : {}),
    ...(confirm === false ? { trust: true } : {}),
    ...(label ? { label } : {}),
    ...(callTimeoutMs ? { callTimeoutMs: callTimeoutMs as number } : {}),
    ...(connectTimeoutMs ? { connectTimeoutMs: connectTimeoutMs as number } : {}),
  };
}

/**
 * Fetches a tools file and runs it with {@link evalTools}.
 *
 * Failures name the path instead of surfacing as "tool is not defined" from inside an eval: a
 * non-2xx status, a network error, and a server that answers its HTML error or fallback page with
 * status 200 (as single-page-app servers do for unknown paths) are each reported as such.
 *
 * @param registry - receives the new tool set.
 * @param url - where the file is served, e.g. `./tools.js`.
 * @param options - `fetch` to use instead of `globalThis.fetch`, and an abort `signal`.
 * @returns the registered names.
 * @throws ToolsFileError naming the path and the cause; see {@link evalTools} for the rest.
 */
export async function loadTools(registry: ToolRegistry, url: string | URL, options: LoadToolsOptions = {}): Promise<string[]> {
  const path = String(url);
  if (options.evaluate !== undefined && !(TOOLS_EVALUATION_MODES as readonly unknown[]).includes(options.evaluate)) {
    throw new TypeError(
      `loadTools: unknown evaluate option ${JSON.stringify(options.evaluate)}; use one of ${TOOLS_EVALUATION_MODES.map((m) => `'${m}'`).join(', ')}.`,
    );
  }
  const fetchFile = options.fetch ?? ((input: string, init?: RequestInit) => globalThis.fetch(input, init));
  const init: RequestInit = options.signal === undefined ? {} : { signal: options.signal };

  let response: Response;
  let text: string;
  try {
    response = await fetchFile(path, init);
    if (!response.ok) throw httpFailure(path, response);
    const type = response.headers.get('content-type') ?? '';
    if (/^\s*(?:text\/html|application\/xhtml\+xml)\b/i.test(type)) throw htmlFailure(path, `content type ${type.split(';')[0]}`);
    text = await response.text();
  } catch (error) {
    if (error instanceof ToolsFileError) throw error;
    if (options.signal?.aborted === true) throw options.signal.reason;
    throw new ToolsFileError(path, 'network', `the request failed (${describeCause(error)}). Check that the server is running and the address is right.`, {
      cause: error,
    });
  }
  // Some servers send their error page without a content type, or as text/plain.
  if (/^\uFEFF?\s*<(?:!doctype\b|html\b|head\b|body\b)/i.test(text)) throw htmlFailure(path, 'a body that starts like HTML');
  if (options.evaluate === 'module') return importTools(registry, text, path);
  return evalTools(registry, text, { sourceName: path });
}

let moduleLoads = 0;
/** Module loads run one at a time: each puts its own `tool` on the global object while it runs. */
let moduleTurn: Promise<unknown> = Promise.resolve();

/**
 * Runs a tools file as a JavaScript module imported from its own address (with a query that makes
 * each load a fresh module), `tool` being a global while it runs: no `Function` constructor, so a
 * page whose Content-Security-Policy forbids `eval` can load it.
 */
function importTools(registry: ToolRegistry, source: string, path: string): Promise<string[]> {
  const address = new URL(path, globalThis.location?.href);
  moduleLoads += 1;
  address.searchParams.set('nexus-tools', String(moduleLoads));
  const moduleUrl = address.href;
  const turn = moduleTurn.then(() =>
    collectTools(
      registry,
      path,
      source,
      (injected) => importWithTool(moduleUrl, injected, source, path),
      // Stack frames name the module by its address; some loaders write only its path and query.
      (stack) => lineInStack(stack, moduleUrl) ?? lineInStack(stack, `${address.pathname}${address.search}`),
    ),
  );
  moduleTurn = turn.catch(() => undefined);
  return turn;
}

async function importWithTool(moduleUrl: string, injected: Injected, source: string, path: string): Promise<unknown> {
  const holder = globalThis as Record<string, unknown>;
  const previous = { tool: Object.getOwnPropertyDescriptor(holder, 'tool'), mcp: Object.getOwnPropertyDescriptor(holder, 'mcp') };
  holder.tool = injected.tool;
  holder.mcp = injected.mcp;
  try {
    return await import(/* @vite-ignore */ moduleUrl);
  } catch (error) {
    // A module that does not parse rejects without a line (a browser's SyntaxError, or a bundler's
    // own error): a parser finds it. A file that parses failed while it ran (JSON.parse, say).
    const syntax = await syntaxError(source);
    if (syntax)
      throw new ToolsFileError(path, 'syntax', `SyntaxError: ${withoutPeriod(syntax.message)}. Fix the syntax and load it again.`, {
        line: syntax.line,
        cause: error,
      });
    throw error;
  } finally {
    for (const name of ['tool', 'mcp'] as const) {
      const descriptor = previous[name];
      if (descriptor) Object.defineProperty(holder, name, descriptor);
      else delete holder[name];
    }
  }
}

/** The first syntax error of a module source (its message without acorn's position, and its line), or undefined when it parses. */
async function syntaxError(source: string): Promise<{ message: string; line: number | undefined } | undefined> {
  const { parse } = await import('acorn');
  try {
    parse(source, { ecmaVersion: 'latest', sourceType: 'module' });
    return undefined;
  } catch (error) {
    const loc = (error as { loc?: { line?: number } }).loc;
    return { message: String((error as Error).message).replace(/\s*\(\d+:\d+\)$/, ''), line: typeof loc?.line === 'number' ? loc.line : undefined };
  }
}

function httpFailure(path: string, response: Response): ToolsFileError {
  const status = `${response.status}${response.statusText === '' ? '' : ` ${response.statusText}`}`;
  const advice =
    response.status === 401 || response.status === 403
      ? 'Check that the page may read it (pass a fetch that adds credentials or headers).'
      : response.status >= 500
        ? 'The server failed; check its log and try again.'
        : 'Check the path.';
  return new ToolsFileError(path, 'http', `the server answered ${status}. ${advice}`);
}

function htmlFailure(path: string, evidence: string): ToolsFileError {
  return new ToolsFileError(
    path,
    'html',
    `the server answered an HTML page (${evidence}) instead of JavaScript, probably its error or fallback page. Check the path.`,
  );
}

function compileFailure(sourceName: string, source: string, error: unknown): ToolsFileError {
  if (error instanceof SyntaxError) {
    const line = findSyntaxErrorLine(source, compileBody);
    return new ToolsFileError(sourceName, 'syntax', `SyntaxError: ${withoutPeriod(error.message)}. Fix the syntax and load it again.`, { line, cause: error });
  }
  // Typically an EvalError from a Content Security Policy without 'unsafe-eval'.
  return new ToolsFileError(
    sourceName,
    'runtime',
    `this page may not evaluate code (${describeCause(error)}). Load the file with loadTools(url, { evaluate: 'module' }), allow 'unsafe-eval' in its Content Security Policy, or register tools with tool() in code.`,
    { cause: error },
  );
}

/** Messages get a period of their own; avoids `…defined.. Fix…`. */
function withoutPeriod(message: string): string {
  return message.replace(/\.\s*$/, '');
}

/** `TypeError: fetch failed: connect ECONNREFUSED 127.0.0.1:80`, following one level of `cause`. */
function describeCause(error: unknown): string {
  if (!(error instanceof Error)) return String(error);
  const inner = error.cause instanceof Error ? `: ${error.cause.message}` : '';
  return `${error.name}: ${error.message}${inner}`;
}
