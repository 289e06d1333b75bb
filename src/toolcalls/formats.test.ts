import { describe, expect, it } from 'vitest';
import { TOOL_CALL_FORMATS, TOOL_CALL_SITES } from './formats.ts';

describe('TOOL_CALL_FORMATS', () => {
  it('lists the formats in the documented priority order, residue last', () => {
    expect(TOOL_CALL_FORMATS.map((f) => f.id)).toEqual(['hermes', 'xml-function', 'mistral', 'llama', 'fenced', 'openai', 'markup-residue']);
  });

  it('flattens to the sites in the same order', () => {
    expect(TOOL_CALL_SITES).toEqual(TOOL_CALL_FORMATS.flatMap((f) => f.sites));
    expect(TOOL_CALL_SITES.map((s) => s.opener)).toEqual(['<tool_call>', '<tool_call>', '<function=', '[TOOL_CALLS]', '<|python_tag|>', '{', '[', '```', '{', '[', '<tool_call>', '</tool_call>']);
  });

  it('describes every format', () => {
    for (const format of TOOL_CALL_FORMATS) expect(format.description.length).toBeGreaterThan(10);
  });
});
