import { describe, expect, it } from 'vitest';
import { findProtoKey, setOwn } from '../toolcalls/own-property.ts';
import { parseToolCalls } from '../toolcalls/parse-tool-calls.ts';
import { ToolRegistry } from './tool-registry.ts';

// Issue 28, N14: an argument named __proto__ must never become an object's prototype.

describe('setOwn and findProtoKey', () => {
  it('sets __proto__ as an own key, leaving the prototype alone', () => {
    const target: Record<string, unknown> = {};
    setOwn(target, '__proto__', { admin: true });
    expect(Object.getPrototypeOf(target)).toBe(Object.prototype);
    expect(target.admin).toBeUndefined();
    expect(Object.keys(target)).toEqual(['__proto__']);
  });

  it('finds a __proto__ key at any depth', () => {
    expect(findProtoKey(JSON.parse('{"a": [{"b": {"__proto__": {"x": 1}}}]}'))).toBe('arguments.a[0].b.__proto__');
    expect(findProtoKey({ a: 1, b: ['__proto__'] })).toBeUndefined();
  });
});

describe('a __proto__ argument written by a model', () => {
  const tools = ['set_mode'];
  it.each([
    ['pythonic', '[set_mode(__proto__={"admin": true})]'],
    ['Gemma', '<start_function_call>call:set_mode{__proto__:{admin:true}}<end_function_call>'],
    ['Qwen3-Coder XML', '<tool_call>\n<function=set_mode>\n<parameter=__proto__>\n{"admin": true}\n</parameter>\n</function>\n</tool_call>'],
    ['JSON', '<tool_call>\n{"name": "set_mode", "arguments": {"__proto__": {"admin": true}}}\n</tool_call>'],
  ])('%s: parsed as an own key, never as the prototype', (_format, text) => {
    const [call] = parseToolCalls(text, { tools }).calls;
    expect(call?.name).toBe('set_mode');
    const args = call?.arguments as Record<string, unknown>;
    expect(Object.getPrototypeOf(args)).toBe(Object.prototype);
    expect(args.admin).toBeUndefined();
  });

  it('is refused before the handler runs, with a message naming it, also where unknown keys are kept', async () => {
    let ran = false;
    const registry = new ToolRegistry().tool(
      'set_mode',
      'Set the mode',
      { parameters: { type: 'object', properties: { mode: { type: 'string' } }, additionalProperties: true } },
      (args) => {
        ran = true;
        return String((args as { admin?: boolean }).admin);
      },
    );
    for (const raw of [JSON.parse('{"mode": "x", "__proto__": {"admin": true}}'), JSON.parse('{"mode": {"__proto__": {"admin": true}}}')]) {
      const result = await registry.runTool('set_mode', raw);
      expect(result).toMatchObject({ ok: false, failure: 'invalid', error: expect.stringContaining('__proto__ is not allowed as an argument name') });
    }
    expect(ran).toBe(false);
  });
});
