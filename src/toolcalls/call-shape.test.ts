import { describe, expect, it } from 'vitest';
import { isPlaceholderName, readCallParts, readCallValue, type CallReadOptions } from './call-shape.ts';
import { ToolNames } from './tool-names.ts';

const markup: CallReadOptions = { mode: 'markup', shapes: ['named', 'openai'], names: undefined, source: 'src' };
const bare: CallReadOptions = { ...markup, mode: 'bare' };

describe('readCallValue', () => {
  it('reads the named shape with arguments or parameters', () => {
    expect(readCallValue({ name: 'get_weather', arguments: { city: 'Paris' } }, bare).calls).toEqual([{ name: 'get_weather', arguments: { city: 'Paris' } }]);
    expect(readCallValue({ name: 'get_weather', parameters: { city: 'Paris' } }, bare).calls).toEqual([{ name: 'get_weather', arguments: { city: 'Paris' } }]);
  });

  it('reads the OpenAI envelope and the tool_calls wrapper', () => {
    const envelope = { type: 'function', function: { name: 'get_time', arguments: '{"city": "Chennai"}' } };
    expect(readCallValue(envelope, bare).calls).toEqual([{ name: 'get_time', arguments: { city: 'Chennai' } }]);
    const wrapper = {
      role: 'assistant',
      content: null,
      tool_calls: [
        { id: 'call_1', ...envelope },
        { name: 'get_weather', arguments: {} },
      ],
    };
    expect(readCallValue(wrapper, bare).calls.map((c) => c.name)).toEqual(['get_time', 'get_weather']);
  });

  it('only reads the shapes it is asked for', () => {
    const envelope = { function: { name: 'get_time', arguments: {} } };
    expect(readCallValue(envelope, { ...bare, shapes: ['named'] }).shaped).toBe(false);
    expect(readCallValue({ name: 'get_time', arguments: {} }, { ...bare, shapes: ['openai'] }).shaped).toBe(false);
  });

  it('decodes arguments sent as a JSON string, even twice encoded, and an empty string as no arguments', () => {
    expect(readCallValue({ name: 'x', arguments: '{"a": 1}' }, bare).calls[0]?.arguments).toEqual({ a: 1 });
    expect(readCallValue({ name: 'x', arguments: JSON.stringify(JSON.stringify({ a: 1 })) }, bare).calls[0]?.arguments).toEqual({ a: 1 });
    expect(readCallValue({ name: 'x', arguments: '' }, bare).calls[0]?.arguments).toEqual({});
  });

  describe('bare JSON: data stays data', () => {
    it('is not a call without arguments/parameters', () => {
      expect(readCallValue({ name: 'Alice', age: 3 }, bare).shaped).toBe(false);
      expect(readCallValue({ name: 'get_weather' }, bare).shaped).toBe(false);
      expect(readCallValue({ name: 'get_weather', arguments: null }, bare).shaped).toBe(false);
    });

    it('is not a call with a key no call shape has', () => {
      expect(readCallValue({ name: 'get_weather', arguments: {}, description: 'x' }, bare).shaped).toBe(false);
      expect(readCallValue({ function: { name: 'x', arguments: {}, description: 'd' } }, bare).shaped).toBe(false);
      expect(readCallValue({ type: 'tool', name: 'x', arguments: {} }, bare).shaped).toBe(false);
    });

    it('is not a call with a name that is not an identifier or is template filler', () => {
      expect(readCallValue({ name: 'Alice Smith', arguments: {} }, bare).shaped).toBe(false);
      expect(readCallValue({ name: 'function_name', arguments: { arg1: 'value1' } }, bare).shaped).toBe(false);
      expect(readCallValue({ name: 42, arguments: {} }, bare).shaped).toBe(false);
    });

    it('is not a call when arguments are not an object, or are a tool schema', () => {
      expect(readCallValue({ name: 'x', arguments: 'Paris' }, bare).shaped).toBe(false);
      expect(readCallValue({ name: 'x', arguments: [1] }, bare).shaped).toBe(false);
      expect(readCallValue({ name: 'x', parameters: { type: 'object', properties: { city: { type: 'string' } }, required: ['city'] } }, bare).shaped).toBe(
        false,
      );
    });

    it('needs every element of an array to be a call', () => {
      expect(
        readCallValue(
          [
            { name: 'a', arguments: {} },
            { name: 'Bob', age: 4 },
          ],
          bare,
        ).shaped,
      ).toBe(false);
      expect(readCallValue([], bare).shaped).toBe(false);
    });
  });

  describe('markup: the model said "call", so failures are reported, not ignored', () => {
    it('takes missing arguments as {} and ignores extra keys', () => {
      expect(readCallValue({ name: 'get_time' }, markup).calls).toEqual([{ name: 'get_time', arguments: {} }]);
      expect(readCallValue({ name: 'x', arguments: {}, id: 1, thought: 'hmm' }, markup).calls).toHaveLength(1);
    });

    it('reports each kind of failure with the name as written', () => {
      const reasons = (value: unknown, options = markup) => readCallValue(value, options).rejected.map((r) => [r.name, r.reason]);
      expect(reasons({ name: '<function-name>', arguments: '<args-json-object>' })).toEqual([['<function-name>', 'placeholder']]);
      expect(reasons({ name: 'get weather', arguments: {} })).toEqual([['get weather', 'invalid-name']]);
      expect(reasons({ name: 7 })).toEqual([[null, 'invalid-name']]);
      expect(reasons({ name: 'x', arguments: 'Paris' })).toEqual([['x', 'invalid-arguments']]);
      expect(reasons({ name: 'x', parameters: { type: 'object', properties: {} } })).toEqual([['x', 'tool-definition']]);
      expect(reasons({ name: 'x', arguments: { city: 'Par' } }, { ...markup, truncated: true })).toEqual([['x', 'truncated']]);
    });
  });

  describe('with registered tools', () => {
    const names = ToolNames.from(['get_weather']);

    it('takes the registered spelling for a name in the wrong case', () => {
      expect(readCallValue({ name: 'GET_WEATHER', arguments: {} }, { ...markup, names }).calls).toEqual([{ name: 'get_weather', arguments: {} }]);
    });

    it('drops an unregistered name — never remapped, even to the only tool — and reports it, in both modes', () => {
      for (const options of [markup, bare]) {
        const reading = readCallValue({ name: 'get_wether', arguments: { city: 'Paris' } }, { ...options, names });
        expect(reading.calls).toEqual([]);
        expect(reading.shaped).toBe(true);
        expect(reading.rejected).toEqual([{ name: 'get_wether', reason: 'unregistered', source: 'src' }]);
      }
    });

    it('lets a registered tool have a name that would otherwise look like filler', () => {
      const example = ToolNames.from(['example']);
      expect(readCallValue({ name: 'example', arguments: {} }, { ...bare, names: example }).calls).toHaveLength(1);
    });
  });
});

describe('readCallParts', () => {
  it('applies the markup rules to a name and arguments found apart', () => {
    expect(readCallParts('get_weather', { present: true, value: { city: 'Paris' } }, markup).calls).toEqual([
      { name: 'get_weather', arguments: { city: 'Paris' } },
    ]);
    expect(readCallParts('get_weather', { present: false }, markup).calls).toEqual([{ name: 'get_weather', arguments: {} }]);
    expect(readCallParts('NAME', { present: false }, markup).rejected[0]?.reason).toBe('placeholder');
  });
});

describe('isPlaceholderName', () => {
  it('recognises template filler', () => {
    for (const name of ['function_name', 'tool_name', 'NAME', 'name', '<function-name>', '{tool}', '...', 'your_function_name', 'function_name_1', 'TOOL']) {
      expect(isPlaceholderName(name), name).toBe(true);
    }
  });

  it('leaves real names alone', () => {
    for (const name of ['get_weather', 'web_search', 'fetch_page_content_recursive', 'brave_search', 'name_lookup'])
      expect(isPlaceholderName(name), name).toBe(false);
  });
});
