import { afterEach, beforeEach, describe, expect, expectTypeOf, it, vi } from 'vitest';
import { NexusError, serializeError } from '../shared/errors.ts';
import { ToolDefinitionError } from './errors.ts';
import type { ToolContext } from './tool-context.ts';
import { ToolRegistry } from './tool-registry.ts';

const weather = async ({ city }: { city: string }) => ({ city, temperature_c: 31 });

beforeEach(() => {
  // Handlers default to globalThis.fetch; no test may reach the network through it.
  vi.stubGlobal('fetch', () => Promise.reject(new Error('network access is disabled in tests')));
});
afterEach(() => {
  vi.unstubAllGlobals();
});

describe('ToolRegistry.tool', () => {
  it('emits the OpenAI envelope, with every parameter required by default', () => {
    const tools = new ToolRegistry().tool('get_weather', 'Get current weather for a city', { city: 'string' }, weather);
    expect(tools.schemas).toEqual([
      {
        type: 'function',
        function: {
          name: 'get_weather',
          description: 'Get current weather for a city',
          parameters: { type: 'object', properties: { city: { type: 'string' } }, required: ['city'] },
        },
      },
    ]);
  });

  it('chains, keeps registration order and honours the required option', () => {
    const tools = new ToolRegistry()
      .tool('get_weather', 'Current weather', { city: 'string' }, weather)
      .tool('search', 'Search the catalog', { q: 'string', limit: { type: 'number', description: 'max results' } }, () => [], {
        required: ['q'],
      });
    expect(tools.names).toEqual(['get_weather', 'search']);
    expect(tools.size).toBe(2);
    expect(tools.schemas[1]?.function.parameters).toEqual({
      type: 'object',
      properties: { q: { type: 'string' }, limit: { type: 'number', description: 'max results' } },
      required: ['q'],
    });
  });

  it('records confirm and readOnly', () => {
    const tools = new ToolRegistry()
      .tool('delete_file', 'Delete a file', { path: 'string' }, () => true, { confirm: true })
      .tool('list_files', 'List files', {}, () => [], { readOnly: true });
    expect(tools.get('delete_file')).toMatchObject({ confirm: true, readOnly: false });
    expect(tools.get('list_files')).toMatchObject({ confirm: false, readOnly: true });
  });

  it('types handler arguments from the shorthand', () => {
    new ToolRegistry().tool(
      'search',
      'Search',
      { q: 'string', limit: 'integer', tags: 'string[]', unit: { type: 'string', enum: ['c', 'f'] } },
      (args) => {
        expectTypeOf(args).toEqualTypeOf<{ q: string; limit?: number; tags?: string[]; unit?: 'c' | 'f' }>();
      },
      { required: ['q'] },
    );
    new ToolRegistry().tool(
      'search',
      'Search',
      { type: 'object', properties: { q: { type: 'string' } }, required: ['q'] },
      (args) => {
        expectTypeOf(args).toEqualTypeOf<Record<string, unknown>>();
      },
      { required: ['q'] },
    );
    new ToolRegistry().tool('w', 'Weather', { city: 'string' }, (args, context) => {
      expectTypeOf(args).toEqualTypeOf<{ city: string }>();
      expectTypeOf(context).toEqualTypeOf<ToolContext>();
    });
  });

  it('refuses a duplicate name, also one differing only in case', () => {
    const tools = new ToolRegistry().tool('get_weather', 'Current weather', { city: 'string' }, weather);
    expect(() => tools.tool('get_weather', 'Again', { city: 'string' }, weather)).toThrow(
      "A tool named 'get_weather' is already registered. Use a different name, or call unregister('get_weather') first.",
    );
    expect(() => tools.tool('Get_Weather', 'Again', { city: 'string' }, weather)).toThrow(
      "A tool named 'Get_Weather' is already registered as 'get_weather' (names are compared ignoring case, because models change the case). Use a different name, or call unregister('get_weather') first.",
    );
  });

  it('refuses a malformed name, saying what is allowed', () => {
    expect(() => new ToolRegistry().tool('get weather', 'Weather', { city: 'string' }, weather)).toThrow(
      "Tool name 'get weather' is not valid: use 1 to 64 letters, digits, '_' or '-', starting with a letter or '_' (for example 'get_weather').",
    );
  });

  it('refuses a handler that is not a function', () => {
    const register = new ToolRegistry().tool.bind(new ToolRegistry()) as (...args: unknown[]) => unknown;
    expect(() => register('get_weather', 'Weather', { city: 'string' }, 'fetchWeather')).toThrow(
      'The handler of tool \'get_weather\' must be a function such as async (args) => result, got the string "fetchWeather". Pass it as the fourth argument of tool().',
    );
  });

  it('refuses an empty description', () => {
    expect(() => new ToolRegistry().tool('get_weather', '  ', { city: 'string' }, weather)).toThrow(
      'The description of tool \'get_weather\' must be a non-empty string, got the string "  ". Say what the tool does',
    );
  });

  it('refuses an unknown shorthand type, naming the parameter and the accepted types', () => {
    expect(() => new ToolRegistry().tool('get_weather', 'Weather', { city: 'strng' as 'string' }, weather)).toThrow(
      "Unknown type 'strng' for parameter 'city' of tool 'get_weather'. Use one of: string, number, integer, boolean, array, object",
    );
  });

  it('refuses a required entry that is not a property', () => {
    expect(() => new ToolRegistry().tool('search', 'Search', { query: 'string' }, () => [], { required: ['q' as 'query'] })).toThrow(
      "The required option of tool 'search' lists 'q', which is not one of its parameters; its parameters are: query.",
    );
  });

  it('refuses unknown or mistyped options instead of ignoring them', () => {
    const register = new ToolRegistry().tool.bind(new ToolRegistry()) as (...args: unknown[]) => unknown;
    expect(() => register('search', 'Search', { q: 'string' }, () => [], { require: ['q'] })).toThrow(
      "Unknown option 'require' for tool 'search'. Use one of: required, confirm, readOnly, alwaysOffer, group.",
    );
    expect(() => register('search', 'Search', { q: 'string' }, () => [], { confirm: 'yes' })).toThrow(
      'The confirm option of tool \'search\' must be true or false, got the string "yes".',
    );
    expect(() => register('search', 'Search', { q: 'string' }, () => [], ['q'])).toThrow(
      "The options of tool 'search' must be an object such as { required: ['city'] }, got an array.",
    );
  });

  it('leaves the registry unchanged when a registration fails', () => {
    const tools = new ToolRegistry().tool('a', 'A', {}, () => 1);
    expect(() => tools.tool('b', 'B', { x: 'nope' as 'string' }, () => 1)).toThrow(ToolDefinitionError);
    expect(tools.names).toEqual(['a']);
  });

  it('throws a named NexusError that survives the worker boundary', () => {
    try {
      new ToolRegistry().tool('bad name', 'B', {}, () => 1);
      expect.unreachable();
    } catch (error) {
      expect(error).toBeInstanceOf(ToolDefinitionError);
      expect(NexusError.isInstance(error)).toBe(true);
      expect(serializeError(error)).toMatchObject({ name: 'ToolDefinitionError', message: expect.stringContaining("'bad name'") });
      expect((error as ToolDefinitionError).toolName).toBe('bad name');
    }
  });
});

describe('lookup and set operations', () => {
  const build = () =>
    new ToolRegistry().tool('get_weather', 'Weather', { city: 'string' }, weather).tool('calculator', 'Maths', { expression: 'string' }, () => 0);

  it('get, has and names use the exact registered spelling', () => {
    const tools = build();
    expect(tools.has('get_weather')).toBe(true);
    expect(tools.has('GET_WEATHER')).toBe(false);
    expect(tools.get('calculator')?.description).toBe('Maths');
    expect(tools.get('nope')).toBeUndefined();
  });

  it('resolveName matches exactly or ignoring case, never a near miss', () => {
    const tools = build();
    expect(tools.resolveName('get_weather')).toBe('get_weather');
    expect(tools.resolveName('Get_Weather')).toBe('get_weather');
    expect(tools.resolveName('CALCULATOR')).toBe('calculator');
    expect(tools.resolveName('get_wether')).toBeUndefined();
    expect(tools.resolveName('weather')).toBeUndefined();
    expect(tools.resolveName('calculator ')).toBeUndefined();
  });

  it('unregister and clear remove tools', () => {
    const tools = build();
    expect(tools.unregister('get_weather')).toBe(true);
    expect(tools.unregister('get_weather')).toBe(false);
    expect(tools.names).toEqual(['calculator']);
    tools.clear();
    expect(tools.size).toBe(0);
    expect(tools.schemas).toEqual([]);
  });

  it('snapshot and restore bring back the user’s tools around a throwaway tool', () => {
    const tools = build();
    const saved = tools.snapshot();
    tools.clear();
    tools.tool('nexus_self_check', 'Returns a token', {}, () => 'k7-unguessable');
    expect(tools.names).toEqual(['nexus_self_check']);
    tools.restore(saved);
    expect(tools.names).toEqual(['get_weather', 'calculator']);
    expect(tools.schemas.map((schema) => schema.function.name)).toEqual(['get_weather', 'calculator']);
    // A snapshot is a value: later changes do not reach it.
    tools.unregister('calculator');
    expect(saved.tools.map((tool) => tool.name)).toEqual(['get_weather', 'calculator']);
  });

  it('hands out envelopes that cannot be mutated', () => {
    const schema = build().schemas[0];
    expect(Object.isFrozen(schema)).toBe(true);
    expect(Object.isFrozen(schema?.function.parameters.properties)).toBe(true);
  });
});

describe('ToolRegistry.runTool', () => {
  const fakeFetch = vi.fn<typeof fetch>(async () => new Response('{}'));

  it('validates, coerces and runs the handler with the context', async () => {
    const handler = vi.fn((args: { city: string; days: number }, context: ToolContext) => {
      expect(context.fetch).toBe(fakeFetch);
      return { ...args, ok: true };
    });
    const tools = new ToolRegistry().tool('forecast', 'Forecast', { city: 'string', days: 'integer' }, handler);
    const result = await tools.runTool('forecast', { city: 'Chennai', days: '3', note: 'extra' }, { fetch: fakeFetch });
    expect(result).toEqual({
      ok: true,
      name: 'forecast',
      arguments: { city: 'Chennai', days: 3 },
      result: { city: 'Chennai', days: 3, ok: true },
    });
    expect(handler).toHaveBeenCalledWith({ city: 'Chennai', days: 3 }, expect.objectContaining({ fetch: fakeFetch }));
  });

  it('awaits async handlers and resolves a name written in another case', async () => {
    const tools = new ToolRegistry().tool('get_weather', 'Weather', { city: 'string' }, weather);
    await expect(tools.runTool('Get_Weather', '{"city": "Pune"}')).resolves.toMatchObject({
      ok: true,
      name: 'get_weather',
      result: { city: 'Pune', temperature_c: 31 },
    });
  });

  it('defaults context.fetch to globalThis.fetch, looked up at call time', async () => {
    const globalFetch = vi.fn(async () => new Response('"hello"'));
    vi.stubGlobal('fetch', globalFetch);
    const tools = new ToolRegistry().tool('ping', 'Ping', {}, async (_args, { fetch }) => (await fetch('https://example.test/')).json());
    await expect(tools.runTool('ping', {})).resolves.toMatchObject({ ok: true, result: 'hello' });
    expect(globalFetch).toHaveBeenCalledWith('https://example.test/', undefined);
  });

  it('reports an unknown tool with the available names, never running another tool', async () => {
    const handler = vi.fn();
    const tools = new ToolRegistry().tool('delete_account', 'Delete the account', {}, handler);
    await expect(tools.runTool('delete_acount', {})).resolves.toEqual({
      ok: false,
      name: 'delete_acount',
      failure: 'unknown',
      error: "Tool 'delete_acount' is not available. Available: delete_account.",
    });
    await expect(new ToolRegistry().runTool('x', {})).resolves.toMatchObject({ error: "Tool 'x' is not available. No tools are available." });
    expect(handler).not.toHaveBeenCalled();
  });

  it('returns invalid arguments as a line for the model, without running the handler', async () => {
    const handler = vi.fn();
    const tools = new ToolRegistry().tool('get_weather', 'Weather', { city: 'string' }, handler);
    await expect(tools.runTool('get_weather', {})).resolves.toEqual({
      ok: false,
      name: 'get_weather',
      failure: 'invalid',
      error: 'Invalid arguments for get_weather: missing required argument \'city\' (string). Call get_weather again with {"city": "..."}.',
    });
    expect(handler).not.toHaveBeenCalled();
  });

  it('turns a throwing handler into an error result, keeping what was thrown', async () => {
    const thrown = new Error("City 'Atlantis' was not found.");
    const tools = new ToolRegistry()
      .tool('get_weather', 'Weather', { city: 'string' }, async () => {
        throw thrown;
      })
      .tool('odd', 'Throws a string', {}, () => {
        throw 'just a string';
      });
    await expect(tools.runTool('get_weather', { city: 'Atlantis' })).resolves.toEqual({
      ok: false,
      name: 'get_weather',
      failure: 'error',
      error: "get_weather failed: City 'Atlantis' was not found.",
      cause: thrown,
    });
    await expect(tools.runTool('odd', {})).resolves.toMatchObject({ error: 'odd failed: just a string' });
  });

  describe('confirm tools', () => {
    const build = (handler = vi.fn(() => 'deleted')) => ({
      handler,
      tools: new ToolRegistry().tool('delete_file', 'Delete a file', { path: 'string' }, handler, { confirm: true }),
    });

    it('run only after the user approves, seeing the coerced arguments', async () => {
      const { tools, handler } = build();
      const approve = vi.fn(async () => true);
      await expect(tools.runTool('delete_file', { path: 42 }, { approve })).resolves.toMatchObject({ ok: true, result: 'deleted' });
      expect(approve).toHaveBeenCalledWith({ name: 'delete_file', arguments: { path: '42' } });
      expect(handler).toHaveBeenCalledOnce();
    });

    it('are declined when the user says no, or the dialog fails', async () => {
      const { tools, handler } = build();
      const declined = {
        ok: false,
        name: 'delete_file',
        failure: 'refused',
        error: 'The user declined to run delete_file. Do not call it again; answer without it.',
      };
      await expect(tools.runTool('delete_file', { path: '/tmp/x' }, { approve: () => false })).resolves.toEqual(declined);
      await expect(tools.runTool('delete_file', { path: '/tmp/x' }, { approve: () => Promise.reject(new Error('dialog closed')) })).resolves.toEqual(declined);
      expect(handler).not.toHaveBeenCalled();
    });

    it('are refused when nobody can be asked', async () => {
      const { tools, handler } = build();
      await expect(tools.runTool('delete_file', { path: '/tmp/x' })).resolves.toEqual({
        ok: false,
        name: 'delete_file',
        failure: 'refused',
        error: "delete_file needs the user's approval and none could be asked, so it was not run. Answer without it.",
      });
      expect(handler).not.toHaveBeenCalled();
    });
  });

  it('does not start a handler once the signal is aborted, and reports an abort while it runs', async () => {
    const handler = vi.fn();
    const tools = new ToolRegistry().tool('slow', 'Slow', {}, handler).tool('watcher', 'Waits for the signal', {}, (_args, { signal }) => {
      return new Promise((_resolve, reject) => signal?.addEventListener('abort', () => reject(new Error('aborted'))));
    });
    const stopped = new AbortController();
    stopped.abort(new Error('user pressed stop'));
    await expect(tools.runTool('slow', {}, { signal: stopped.signal })).resolves.toMatchObject({
      ok: false,
      failure: 'aborted',
      error: 'The call to slow was stopped by the user.',
    });
    expect(handler).not.toHaveBeenCalled();

    const later = new AbortController();
    const running = tools.runTool('watcher', {}, { signal: later.signal });
    later.abort();
    await expect(running).resolves.toMatchObject({ ok: false, failure: 'aborted' });
  });
});
