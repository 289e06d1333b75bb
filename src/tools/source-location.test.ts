import { describe, expect, it } from 'vitest';
import { findSyntaxErrorLine, lineInStack, wrapperLineCount } from './source-location.ts';

const AsyncFunction = Object.getPrototypeOf(async () => {}).constructor as new (...parameters: string[]) => () => Promise<unknown>;
const compile = (source: string) => new AsyncFunction('tool', source);

describe('findSyntaxErrorLine', () => {
  it('returns undefined for a source that compiles', () => {
    expect(findSyntaxErrorLine("tool('a', 'b', {}, () => 1);\n", compile)).toBeUndefined();
  });

  it('finds a stray token inside a multi-line call', () => {
    const source = [
      "tool('get_weather', 'Weather', { city: 'string' },", // 1
      '  async ({ city }) => {', // 2
      // biome-ignore lint/suspicious/noTemplateCurlyInString: the line is source text of a tools file, template included.
      '    const url = `/api/weather?c=${city}`;', // 3
      '    return (await fetch(url)).json();;', // 4
      '  },', // 5
      ');', // 6
      '', // 7
      "tool('calc', 'Maths', { expression: 'string' }, ({ expression }) => {", // 8
      '  return expression +;', // 9
      '});', // 10
    ].join('\n');
    expect(findSyntaxErrorLine(source, compile)).toBe(9);
  });

  it('points at the line where an unclosed call begins', () => {
    const source = "tool('a', 'A', {}, () => 1);\n\ntool('b', 'B', {}, () => {\n  return 2;\n";
    expect(findSyntaxErrorLine(source, compile)).toBe(3);
  });

  it('is not misled by a prefix that stops inside an open call', () => {
    // Prefixes 1 and 2 stop inside the call's parentheses and fail with the same V8 message as the
    // real error (the stray brace on line 6): "Unexpected token '}'".
    const source = ["tool('a', 'A', {},", '  () => 1,', ');', '', 'const y = 2;', '}'];
    expect(findSyntaxErrorLine(source.join('\n'), compile)).toBe(6);
    expect(() => compile(source.slice(0, 2).join('\n'))).toThrow("Unexpected token '}'");
    expect(() => compile(source.join('\n'))).toThrow("Unexpected token '}'");
  });

  it('handles CRLF line endings', () => {
    expect(findSyntaxErrorLine('const a = 1;\r\nconst b = ;\r\nconst c = 3;\r\n', compile)).toBe(2);
  });
});

describe('lineInStack', () => {
  it('reads the line of the first frame from the named source', () => {
    const stack = 'Error: boom\n    at eval (nexus-tools-3-_tools.js:7:11)\n    at evalTools (file:///x/load-tools.ts:99:5)';
    expect(lineInStack(stack, 'nexus-tools-3-_tools.js')).toBe(7);
    expect(lineInStack(stack, 'nexus-tools-4-_tools.js')).toBeUndefined();
    expect(lineInStack(undefined, 'x')).toBeUndefined();
  });
});

describe('wrapperLineCount', () => {
  it('measures how many lines the Function wrapper adds in this engine', async () => {
    const count = await wrapperLineCount((body, url) => {
      const run = new AsyncFunction('tool', `${body}\n//# sourceURL=${url}`);
      return () => run();
    });
    expect(count).toBe(2); // V8 (Node and Chromium): `async function anonymous(tool\n) {\n`
  });

  it('falls back to 0 when the engine gives no usable frame', async () => {
    await expect(wrapperLineCount(() => () => ({ stack: 'nothing here' }))).resolves.toBe(0);
    await expect(
      wrapperLineCount(() => () => {
        throw new Error('blocked by CSP');
      }),
    ).resolves.toBe(0);
  });
});
