import { describe, expect, it } from 'vitest';
import type { CallSyntax } from '../engine/call-syntax.ts';
import type { ModelFamily } from '../engine/model-family.ts';
import { LearnedCallHider, parseInFamily } from './family-calls.ts';

const SYNTAX = { sectionOpen: '<TOOLCALL>[', callOpen: '{"name": "' } as CallSyntax;
/** A profile speaking a learned syntax, its reader standing in for the engine's. */
const LEARNED = {
  callOpener: '<TOOLCALL>[{"name": "',
  callSyntax: SYNTAX,
  readCalls: (text: string) => {
    const start = text.indexOf('<TOOLCALL>');
    return start < 0 ? undefined : { calls: [{ name: 'get_weather', arguments: { city: 'Paris' } }], start, end: text.indexOf('</TOOLCALL>') + 11 };
  },
} as unknown as ModelFamily;

describe('calls in the syntax a profile learned', () => {
  it('reads them first, and every other format in the rest of the text', () => {
    const text =
      'Sure. <TOOLCALL>[{"name": "get_weather", "arguments": {"city": "Paris"}}]</TOOLCALL> <tool_call>\n{"name": "get_time", "arguments": {}}\n</tool_call>';
    const parsed = parseInFamily(LEARNED, text);
    expect(parsed.calls.map((c) => c.name)).toEqual(['get_weather', 'get_time']);
    expect(parsed.text).toBe('Sure.');
  });

  it('holds streamed text back from where the learned opener starts, however the chunks split it', () => {
    const text = 'Let me look. <TOOLCALL>[{"name": "get_weather"}]</TOOLCALL>';
    for (const size of [1, 3, 7, 100]) {
      const hider = new LearnedCallHider(LEARNED);
      let shown = '';
      for (let i = 0; i < text.length; i += size) shown += hider.push(text.slice(i, i + size));
      shown += hider.end();
      expect(shown).toBe('Let me look. ');
    }
    const plain = new LearnedCallHider(LEARNED);
    expect(plain.push('a <TOOL') + plain.push('BOX> b') + plain.end()).toBe('a <TOOLBOX> b');
  });

  it('passes everything through for a profile that learned nothing', () => {
    const hider = new LearnedCallHider({ callOpener: '<tool_call>' } as ModelFamily);
    expect(hider.push('<tool_call>x') + hider.end()).toBe('<tool_call>x');
  });
});
