import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { serializeError } from '../shared/errors.ts';
import { ToolDefinitionError, ToolsFileError } from './errors.ts';
import { evalTools, loadTools } from './load-tools.ts';
import { ToolRegistry } from './tool-registry.ts';

beforeEach(() => {
  vi.stubGlobal('fetch', () => Promise.reject(new Error('network access is disabled in tests')));
});
afterEach(() => {
  vi.unstubAllGlobals();
});

/** A registry holding the user's current tools, which a broken file must not disturb. */
const existing = () => new ToolRegistry().tool('old_tool', 'Registered before the reload', {}, () => 'old');

/** Runs `load` expecting a ToolsFileError and returns it. */
async function failure(load: Promise<unknown>): Promise<ToolsFileError> {
  const error: unknown = await load.then(
    () => undefined,
    (thrown: unknown) => thrown,
  );
  expect(error).toBeInstanceOf(ToolsFileError);
  return error as ToolsFileError;
}

const TOOLS_JS = `
// tools.js
tool('get_weather', 'Get current weather for a city', { city: 'string' },
  async ({ city }, { fetch }) => (await fetch('/api/weather?c=' + city)).json());

tool('get_time', 'Get the current local time in a city', { city: 'string' },
  async ({ city }) => ({ city, time: '14:03' }));
`;

describe('evalTools', () => {
  it('registers every tool in the source and returns the names', async () => {
    const tools = new ToolRegistry();
    await expect(evalTools(tools, TOOLS_JS)).resolves.toEqual(['get_weather', 'get_time']);
    expect(tools.schemas[0]?.function.parameters.required).toEqual(['city']);
  });

  it('replaces the current tool set', async () => {
    const tools = existing();
    await evalTools(tools, TOOLS_JS);
    expect(tools.names).toEqual(['get_weather', 'get_time']);
    expect(tools.has('old_tool')).toBe(false);
  });

  it('lets tool() calls chain and handlers be async and use the context', async () => {
    const tools = new ToolRegistry();
    await evalTools(
      tools,
      `tool('a', 'First', {}, () => 1)
         .tool('b', 'Second', { n: 'number' }, async ({ n }, { fetch }) => (await fetch('/x?n=' + n)).text());`,
    );
    expect(tools.names).toEqual(['a', 'b']);
    const fetch = vi.fn<typeof globalThis.fetch>(async () => new Response('from the fake'));
    await expect(tools.runTool('b', { n: '4' }, { fetch })).resolves.toMatchObject({ ok: true, result: 'from the fake' });
    expect(fetch).toHaveBeenCalledWith('/x?n=4');
  });

  it('allows top-level await', async () => {
    const tools = new ToolRegistry();
    await evalTools(tools, "const unit = await Promise.resolve('celsius');\ntool('unit', 'The unit', {}, () => unit);");
    await expect(tools.runTool('unit', {})).resolves.toMatchObject({ result: 'celsius' });
  });

  it('reports a syntax error with its line, keeping the previous tools', async () => {
    const tools = existing();
    const source = ["tool('a', 'A', {}, () => 1);", '', "tool('b', 'B', {}, () => {", '  return (1;', '});'].join('\n');
    const error = await failure(evalTools(tools, source, { sourceName: '/tools.js' }));
    expect(error.message).toBe("Could not load tools from /tools.js: line 4: SyntaxError: Unexpected token ';'. Fix the syntax and load it again.");
    expect(error).toMatchObject({ failure: 'syntax', line: 4, source: '/tools.js' });
    expect(error.cause).toBeInstanceOf(SyntaxError);
    expect(tools.names).toEqual(['old_tool']);
  });

  it('reports an error thrown at top level with its line, keeping the previous tools', async () => {
    const tools = existing();
    const source = "tool('a', 'A', {}, () => 1);\n\nconst count = db.watches.count();\n";
    const error = await failure(evalTools(tools, source, { sourceName: '/tools.js' }));
    expect(error.message).toBe(
      'Could not load tools from /tools.js: line 3: the file threw ReferenceError: db is not defined. Fix the file and load it again.',
    );
    expect(error).toMatchObject({ failure: 'runtime', line: 3 });
    expect(tools.names).toEqual(['old_tool']);
  });

  it('reports a thrown non-Error value', async () => {
    const error = await failure(evalTools(new ToolRegistry(), "throw 'no config';", { sourceName: '/tools.js' }));
    expect(error.message).toBe('Could not load tools from /tools.js: the file threw the value no config. Fix the file and load it again.');
  });

  it('reports a rejected tool() call with its line and the registry’s reason', async () => {
    const tools = existing();
    const source = [
      "tool('get_time', 'Time', {}, () => '14:03');",
      '',
      "tool('get_weather', 'Weather', { city: 'strng' },",
      '  async ({ city }) => city);',
    ].join('\n');
    const error = await failure(evalTools(tools, source, { sourceName: '/tools.js' }));
    expect(error.message).toBe(
      "Could not load tools from /tools.js: line 3: Unknown type 'strng' for parameter 'city' of tool 'get_weather'. Use one of: string, number, integer, boolean, array, object (or an array of one, such as 'string[]').",
    );
    expect(error).toMatchObject({ failure: 'definition', line: 3 });
    expect(error.cause).toBeInstanceOf(ToolDefinitionError);
    expect(tools.names).toEqual(['old_tool']);
  });

  it.each([
    ["tool('get weather', 'W', {}, () => 1);", "line 1: Tool name 'get weather' is not valid"],
    ["tool('w', 'W', { city: 'string' }, 'fetchWeather');", "line 1: The handler of tool 'w' must be a function"],
    ["tool('w', 'W', { q: 'string' }, () => 1, { required: ['query'] });", "line 1: The required option of tool 'w' lists 'query'"],
    ["\ntool('w', 'W', {}, () => 1);\ntool('W', 'Again', {}, () => 2);", "line 3: the file defines a tool named 'w' twice. Give each tool its own name."],
  ])('reports %s', async (source, expected) => {
    const error = await failure(evalTools(new ToolRegistry(), source, { sourceName: '/tools.js' }));
    expect(error.message).toContain(`Could not load tools from /tools.js: ${expected}`);
  });

  it('still fails when the file catches the error of its own tool() call', async () => {
    const source = "try { tool('bad name', 'B', {}, () => 1); } catch {}\ntool('good', 'G', {}, () => 1);";
    const error = await failure(evalTools(new ToolRegistry(), source));
    expect(error.message).toContain("Could not load tools from the tools source: line 1: Tool name 'bad name' is not valid");
  });

  it('refuses tool() calls made after the file finished loading', async () => {
    const tools = new ToolRegistry();
    await evalTools(tools, "tool('a', 'A', {}, () => 1);\nglobalThis.__nexusLateTool = tool;", { sourceName: '/tools.js' });
    const late = (globalThis as { __nexusLateTool?: (...args: unknown[]) => unknown }).__nexusLateTool;
    delete (globalThis as { __nexusLateTool?: unknown }).__nexusLateTool;
    expect(() => late?.('b', 'B', {}, () => 2)).toThrow(
      'tool() was called after /tools.js finished loading (from a timer or callback?). Call tool() at the top level of the file.',
    );
    expect(tools.names).toEqual(['a']);
  });

  it('refuses a file that registers no tools, keeping the previous ones', async () => {
    const tools = existing();
    expect((await failure(evalTools(tools, '  \n', { sourceName: '/tools.js' }))).message).toBe(
      'Could not load tools from /tools.js: the file is empty. Register at least one with tool(name, description, parameters, handler), or name an MCP server with mcp(url).',
    );
    const error = await failure(evalTools(tools, 'const helper = () => 1;', { sourceName: '/tools.js' }));
    expect(error.message).toBe(
      'Could not load tools from /tools.js: the file ran but registered no tools. Register at least one with tool(name, description, parameters, handler), or name an MCP server with mcp(url).',
    );
    expect(error.failure).toBe('empty');
    expect(tools.names).toEqual(['old_tool']);
  });

  it('refuses a source that is not a string', async () => {
    const error = await failure(evalTools(new ToolRegistry(), 42 as unknown as string));
    expect(error.message).toBe('Could not load tools from the tools source: the source must be a string of JavaScript, got the number 42.');
  });

  it('throws an error that crosses the worker boundary by name', async () => {
    const error = await failure(evalTools(new ToolRegistry(), ''));
    expect(serializeError(error)).toMatchObject({
      name: 'ToolsFileError',
      message: expect.stringContaining('the file is empty'),
      fields: { failure: 'empty' },
    });
  });
});

describe('loadTools', () => {
  const javascript = (body: string, init: ResponseInit = {}) =>
    new Response(body, { status: 200, headers: { 'content-type': 'text/javascript; charset=utf-8' }, ...init });

  it('fetches the file with the given fetch and registers its tools', async () => {
    const tools = existing();
    const fetch = vi.fn(async (_url: string, _init?: RequestInit) => javascript(TOOLS_JS));
    await expect(loadTools(tools, '/tools.js', { fetch })).resolves.toEqual(['get_weather', 'get_time']);
    expect(fetch).toHaveBeenCalledWith('/tools.js', {});
    expect(tools.names).toEqual(['get_weather', 'get_time']);
  });

  it('uses globalThis.fetch by default, accepts a URL and passes the signal on', async () => {
    const globalFetch = vi.fn(async () => javascript(TOOLS_JS));
    vi.stubGlobal('fetch', globalFetch);
    const { signal } = new AbortController();
    await loadTools(new ToolRegistry(), new URL('https://app.test/tools.js'), { signal });
    expect(globalFetch).toHaveBeenCalledWith('https://app.test/tools.js', { signal });
  });

  it('names the path and the status for a 404', async () => {
    const tools = existing();
    const error = await failure(loadTools(tools, '/tools.js', { fetch: async () => new Response('Not Found', { status: 404, statusText: 'Not Found' }) }));
    expect(error.message).toBe('Could not load tools from /tools.js: the server answered 404 Not Found. Check the path.');
    expect(error).toMatchObject({ failure: 'http', source: '/tools.js', line: undefined });
    expect(tools.names).toEqual(['old_tool']);
  });

  it('advises on 401/403 and 5xx, with or without a status text', async () => {
    const answer = (status: number) => async () => new Response('', { status });
    expect((await failure(loadTools(new ToolRegistry(), '/api/tools.js', { fetch: answer(403) }))).message).toBe(
      'Could not load tools from /api/tools.js: the server answered 403. Check that the page may read it (pass a fetch that adds credentials or headers).',
    );
    expect((await failure(loadTools(new ToolRegistry(), '/api/tools.js', { fetch: answer(502) }))).message).toBe(
      'Could not load tools from /api/tools.js: the server answered 502. The server failed; check its log and try again.',
    );
  });

  it('names the path and the cause for a network error', async () => {
    const refused = new TypeError('fetch failed', { cause: new Error('connect ECONNREFUSED 127.0.0.1:5173') });
    const error = await failure(
      loadTools(existing(), 'http://localhost:5173/tools.js', {
        fetch: () => Promise.reject(refused),
      }),
    );
    expect(error.message).toBe(
      'Could not load tools from http://localhost:5173/tools.js: the request failed (TypeError: fetch failed: connect ECONNREFUSED 127.0.0.1:5173). Check that the server is running and the address is right.',
    );
    expect(error).toMatchObject({ failure: 'network', cause: refused });
  });

  it('reports a connection that drops while the body is read as a network error', async () => {
    const broken = new ReadableStream({
      start(controller) {
        controller.error(new TypeError('terminated'));
      },
    });
    const error = await failure(loadTools(existing(), '/tools.js', { fetch: async () => new Response(broken, { status: 200 }) }));
    expect(error.message).toBe(
      'Could not load tools from /tools.js: the request failed (TypeError: terminated). Check that the server is running and the address is right.',
    );
  });

  it('detects an HTML page served with status 200 by its content type', async () => {
    const tools = existing();
    const spaFallback = async () =>
      new Response('<!doctype html><html><body><div id="app"></div></body></html>', {
        status: 200,
        headers: { 'content-type': 'text/html; charset=utf-8' },
      });
    const error = await failure(loadTools(tools, '/tool.js', { fetch: spaFallback }));
    expect(error.message).toBe(
      'Could not load tools from /tool.js: the server answered an HTML page (content type text/html) instead of JavaScript, probably its error or fallback page. Check the path.',
    );
    expect(error.failure).toBe('html');
    expect(tools.names).toEqual(['old_tool']);
  });

  it('detects an HTML page served with status 200 by its first bytes', async () => {
    for (const body of ['\uFEFF\n  <!DOCTYPE html>\n<html lang="en">', '<html><head><title>Error</title></head>']) {
      const error = await failure(
        loadTools(new ToolRegistry(), '/tools.js', {
          fetch: async () => new Response(body, { status: 200, headers: { 'content-type': 'text/plain' } }),
        }),
      );
      expect(error.message).toBe(
        'Could not load tools from /tools.js: the server answered an HTML page (a body that starts like HTML) instead of JavaScript, probably its error or fallback page. Check the path.',
      );
    }
  });

  it('reports errors inside the file against its path', async () => {
    const error = await failure(loadTools(new ToolRegistry(), '/tools.js', { fetch: async () => javascript("tool('a', 'A', {}, () => 1);\nfoo(;") }));
    expect(error.message).toBe("Could not load tools from /tools.js: line 2: SyntaxError: Unexpected token ';'. Fix the syntax and load it again.");
  });

  it('rethrows an abort as is, not as a broken file', async () => {
    const controller = new AbortController();
    const reason = new DOMException('The user left the page.', 'AbortError');
    controller.abort(reason);
    await expect(
      loadTools(new ToolRegistry(), '/tools.js', {
        signal: controller.signal,
        fetch: (_url, init) => Promise.reject(init?.signal?.reason),
      }),
    ).rejects.toBe(reason);
  });
});

describe("loadTools with evaluate: 'module' (a page whose CSP forbids eval)", () => {
  /** Serves `source` from a temporary `.mjs` file: the fetch answers it, the import reads the file. */
  async function moduleFile(source: string): Promise<{ url: string; fetch: (url: string) => Promise<Response> }> {
    const { mkdtemp, writeFile } = await import('node:fs/promises');
    const { tmpdir } = await import('node:os');
    const { join } = await import('node:path');
    const { pathToFileURL } = await import('node:url');
    const dir = await mkdtemp(join(tmpdir(), 'nexus-tools-module-'));
    const file = join(dir, 'tools.mjs');
    await writeFile(file, source);
    return { url: pathToFileURL(file).href, fetch: async () => new Response(source, { headers: { 'content-type': 'text/javascript' } }) };
  }

  it('imports the file as a module, with top-level await, and leaves no global behind', async () => {
    const { url, fetch } = await moduleFile(`const unit = await Promise.resolve('C');\n${TOOLS_JS}\ntool('get_unit', 'The unit', {}, () => unit);`);
    const tools = new ToolRegistry();
    await expect(loadTools(tools, url, { fetch, evaluate: 'module' })).resolves.toEqual(['get_weather', 'get_time', 'get_unit']);
    expect('tool' in globalThis).toBe(false);
    // A second load of the same address is a fresh module run.
    await expect(loadTools(new ToolRegistry(), url, { fetch, evaluate: 'module' })).resolves.toHaveLength(3);
  });

  it('reports a syntax error with its line, and a throw at the top level with its line; the previous tools stay', async () => {
    const broken = await moduleFile("tool('a', 'A', {}, () => 1);\n\ntool('b', 'B', {, () => 2);\n");
    const tools = existing();
    const syntax = await failure(loadTools(tools, broken.url, { fetch: broken.fetch, evaluate: 'module' }));
    expect(syntax).toMatchObject({ failure: 'syntax', line: 3 });
    const throwing = await moduleFile("tool('a', 'A', {}, () => 1);\nJSON.parse('{');\n");
    const runtime = await failure(loadTools(tools, throwing.url, { fetch: throwing.fetch, evaluate: 'module' }));
    expect(runtime).toMatchObject({ failure: 'runtime', line: 2 });
    expect(tools.names).toEqual(['old_tool']);
  });

  it('refuses an unknown evaluate option, naming the valid ones', async () => {
    await expect(loadTools(new ToolRegistry(), 'https://x.example/tools.js', { evaluate: 'eval' as never })).rejects.toThrow("use one of 'function', 'module'");
  });
});
