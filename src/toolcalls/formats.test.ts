import { describe, expect, it } from 'vitest';
import { CALL_MARKERS, TOOL_CALL_FORMATS, TOOL_CALL_SITES } from './formats.ts';
import { THINKING_TAGS } from './strip-thinking.ts';
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

describe('CALL_MARKERS', () => {
  it('holds every literal the parser reads: each site opener, each inner marker, each thinking tag', () => {
    for (const site of TOOL_CALL_SITES) if (site.opener) expect(CALL_MARKERS).toContain(site.opener);
    for (const format of TOOL_CALL_FORMATS) for (const marker of format.innerMarkers ?? []) expect(CALL_MARKERS).toContain(marker);
    for (const tags of THINKING_TAGS) for (const tag of [tags.open, tags.close]) if (tag) expect(CALL_MARKERS).toContain(tag);
    expect(new Set(CALL_MARKERS).size).toBe(CALL_MARKERS.length);
    expect(CALL_MARKERS).not.toContain('');
  });

  it('includes the real special tokens the engine once dropped (Harmony, Llama 4, Kimi, GLM, FunctionGemma)', () => {
    for (const token of ['<|channel|>', '<|python_start|>', '<|tool_calls_section_begin|>', '<|tool_call_argument_begin|>', '<arg_key>', '<escape>', '[ARGS]'])
      expect(CALL_MARKERS).toContain(token);
  });
});
