import { ToolDefinitionError, ToolsFileError } from './errors.ts';
import { findSyntaxErrorLine, lineInStack, wrapperLineCount } from './source-location.ts';
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
}

/** What a tools file calls `tool(...)` on, and what each call returns so that calls chain. */
interface ToolChain {
  tool: (...args: unknown[]) => ToolChain;
}

type AsyncBody = (tool: ToolChain['tool']) => Promise<unknown>;

// Tools files may use top-level `await` (to read a config, say), so they are compiled as the body
// of an async function. Same mechanism and same caution as `new Function`.
const AsyncFunction = Object.getPrototypeOf(async () => {}).constructor as new (...parameters: string[]) => AsyncBody;

const compileBody = (source: string): AsyncBody => new AsyncFunction('tool', source);
const compileWithUrl = (source: string, sourceUrl: string): AsyncBody =>
  // The comment goes on its own line so a trailing `// comment` in the file cannot swallow it.
  new AsyncFunction('tool', `${source}\n//# sourceURL=${sourceUrl}`);

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
    return () => run(unusedTool);
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

  const staging = new ToolRegistry();
  let running = true;
  let rejected: ToolsFileError | undefined;
  const chain: ToolChain = {
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
    await body(chain.tool);
  } catch (error) {
    if (rejected !== undefined) throw rejected;
    const what = error instanceof Error ? `${error.name}: ${withoutPeriod(error.message)}` : `the value ${String(error)}`;
    const line = fileLine(error instanceof Error ? error.stack : undefined);
    throw new ToolsFileError(sourceName, 'runtime', `the file threw ${what}. Fix the file and load it again.`, { line, cause: error });
  } finally {
    running = false;
  }
  if (rejected !== undefined) throw rejected;

  if (staging.size === 0) {
    // Replacing the user's tools with nothing is almost always a wrong path or a wrong file, and
    // the model would then silently stop calling anything.
    const what = source.trim() === '' ? 'the file is empty' : 'the file ran but registered no tools';
    throw new ToolsFileError(sourceName, 'empty', `${what}. Register at least one with tool(name, description, parameters, handler).`);
  }

  registry.restore(staging.snapshot());
  return staging.names;
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
    throw new ToolsFileError(
      path,
      'network',
      `the request failed (${describeCause(error)}). Check that the server is running and the address is right.`,
      { cause: error },
    );
  }
  // Some servers send their error page without a content type, or as text/plain.
  if (/^\uFEFF?\s*<(?:!doctype\b|html\b|head\b|body\b)/i.test(text)) throw htmlFailure(path, 'a body that starts like HTML');
  return evalTools(registry, text, { sourceName: path });
}

function httpFailure(path: string, response: Response): ToolsFileError {
  const status = `${response.status}${response.statusText === '' ? '' : ` ${response.statusText}`}`;
  const advice =
    response.status === 401 || response.status === 403
      ? 'Check that the page may read it (pass a fetch that adds credentials or headers).'
      : response.status >= 500
        ? "The server failed; check its log and try again."
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
    `this page may not evaluate code (${describeCause(error)}). Allow 'unsafe-eval' in its Content Security Policy, or register tools with tool() in code.`,
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
