import { describe, expect, it } from 'vitest';
import { TOOL_CALL_FORMATS, TOOL_CALL_SITES } from './formats.ts';
import { parseToolCalls } from './parse-tool-calls.ts';

describe('TOOL_CALL_FORMATS', () => {
  it('lists the formats in the documented priority order, residue last', () => {
    expect(TOOL_CALL_FORMATS.map((f) => f.id)).toEqual([
      'hermes',
      'xml-function',
      'glm',
      'mistral',
      'delimited',
      'harmony',
      'tagged-json',
      'functionary',
      'llama',
      'fenced',
      'openai',
      'markup-residue',
    ]);
  });

  it('the order decides who reads a stretch several formats could: JSON in <tool_call> is Hermes, XML in it the XML reader, a name in it GLM', () => {
    expect(parseToolCalls('<tool_call>{"name": "f", "arguments": {"a": 1}}</tool_call>').calls).toEqual([{ name: 'f', arguments: { a: 1 } }]);
    expect(parseToolCalls('<tool_call><function=f><parameter=a>1</parameter></function></tool_call>').calls).toEqual([{ name: 'f', arguments: { a: 1 } }]);
    expect(parseToolCalls('<tool_call>f<arg_key>a</arg_key><arg_value>1</arg_value></tool_call>').calls).toEqual([{ name: 'f', arguments: { a: 1 } }]);
    // Whatever none of them reads is still markup, and leaves the text.
    expect(parseToolCalls('a <tool_call>??</tool_call> b')).toMatchObject({ calls: [], text: 'a  b' });
  });

  it('the residue sites come after every format that could read the same opener', () => {
    const residueStart = TOOL_CALL_SITES.findIndex((s) => TOOL_CALL_FORMATS.at(-1)?.sites.includes(s));
    const readers = TOOL_CALL_SITES.slice(0, residueStart);
    for (const residue of TOOL_CALL_SITES.slice(residueStart)) {
      for (const [i, site] of readers.entries()) if (site.opener === residue.opener) expect(i).toBeLessThan(residueStart);
    }
    expect(TOOL_CALL_SITES).toEqual(TOOL_CALL_FORMATS.flatMap((f) => f.sites));
  });

  it('describes every format', () => {
    for (const format of TOOL_CALL_FORMATS) expect(format.description.length).toBeGreaterThan(10);
  });
});
