import { describe, expect, it } from 'vitest';
import { parseToolCalls } from './parse-tool-calls.ts';
import { parseXmlFunctions } from './parse-xml-function.ts';

const SEED =
  '<tool_call>\n<function=web_search>\n<parameter=query>\nrust jobs\n</parameter>\n<parameter=time_range>\nweek\n</parameter>\n</function>\n</tool_call>';

describe('XML function form', () => {
  it('reads the layout of seed 000', () => {
    expect(parseToolCalls(SEED)).toEqual({ calls: [{ name: 'web_search', arguments: { query: 'rust jobs', time_range: 'week' } }], text: '', rejected: [] });
  });

  it('decodes whole JSON literals and keeps other values as strings, minus the layout newlines', () => {
    const block =
      '<function=f><parameter=n>\n5\n</parameter><parameter=b>false</parameter><parameter=z>null</parameter><parameter=l>\n["a", 2]\n</parameter><parameter=o>{"k": 1}</parameter><parameter=s>\n  two\nlines \n</parameter><parameter=zip>\n01234\n</parameter></function>';
    expect(parseXmlFunctions(block)).toEqual([
      { name: 'f', arguments: { n: 5, b: false, z: null, l: ['a', 2], o: { k: 1 }, s: '  two\nlines ', zip: '01234' } },
    ]);
  });

  it('forgives missing closing tags', () => {
    expect(parseXmlFunctions('<function=f>\n<parameter=a>\nx\n<parameter=b>\ny')).toEqual([{ name: 'f', arguments: { a: 'x', b: 'y' } }]);
    expect(parseToolCalls('<tool_call>\n<function=web_search>\n<parameter=query>\nrust\n</parameter>\n</function>').calls).toEqual([
      { name: 'web_search', arguments: { query: 'rust' } },
    ]);
  });

  it('reads the form without the <tool_call> wrapper, and several functions in one block', () => {
    expect(parseToolCalls('Reading.\n<function=fetch_page_content_recursive>\n<parameter=url>\nhttps://example.com\n</parameter>\n</function>\nDone.')).toEqual(
      {
        calls: [{ name: 'fetch_page_content_recursive', arguments: { url: 'https://example.com' } }],
        text: 'Reading.\n\nDone.',
        rejected: [],
      },
    );
    expect(parseToolCalls('<tool_call><function=a></function><function=b><parameter=x>1</parameter></function></tool_call>').calls).toEqual([
      { name: 'a', arguments: {} },
      { name: 'b', arguments: { x: 1 } },
    ]);
  });

  it('applies the tool list', () => {
    const result = parseToolCalls(SEED, { tools: ['get_weather'] });
    expect(result.calls).toEqual([]);
    expect(result.rejected?.map((r) => [r.name, r.reason])).toEqual([['web_search', 'unregistered']]);
  });
});
