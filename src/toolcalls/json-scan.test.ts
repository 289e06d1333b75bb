import { describe, expect, it } from 'vitest';
import { BARE_CALL_KEYS } from './call-shape.ts';
import { findJsonValues, JsonSpanScanner } from './json-scan.ts';

/** Scan the value starting at the first bracket of `text`. */
function scan(text: string, options = {}, final = true): JsonSpanScanner {
  const scanner = new JsonSpanScanner(text.search(/[{[]/), options);
  scanner.feed(text, text.length, final);
  return scanner;
}

describe('JsonSpanScanner', () => {
  it('finds where a value closes, ignoring brackets inside strings of either quote', () => {
    const text = '{"a": "}", \'b\': \'{]\', "c": [1, {"d": "\\"}"}]} and then prose }';
    const s = scan(text);
    expect(s.status).toBe('closed');
    expect(text.slice(0, s.end)).toBe('{"a": "}", \'b\': \'{]\', "c": [1, {"d": "\\"}"}]}');
  });

  it('stays open on unterminated input and says whether it stopped inside a string', () => {
    const open = scan('{"name": "get_weather", "arguments": {"city": "Paris"');
    expect(open.status).toBe('open');
    expect(open.inString).toBe(false);
    expect(scan('{"city": "Par').inString).toBe(true);
  });

  it('forgives a mismatched closer', () => {
    const s = scan('{"a": [1, 2}');
    expect(s.status).toBe('closed');
    expect(s.end).toBe(12);
    expect(scan('{"a": 1]}').end).toBe(9);
  });

  it('resumes where it stopped, so chunked input is scanned once and gives the same end', () => {
    const text = '{"name": "x", "arguments": {"q": "a}b"}} tail';
    const whole = scan(text);
    const chunked = new JsonSpanScanner(0);
    for (let i = 1; i <= text.length; i++) if (chunked.feed(text.slice(0, i), i, false) === 'closed') break;
    expect(chunked.end).toBe(whole.end);
  });

  it('cuts at stop markers even inside strings, and waits on a partial one', () => {
    const options = { stopAt: ['</tool_call>', '<tool_call>'] };
    const text = '{"name": "x", "arguments": {"q": "a\n</tool_call>';
    const s = scan(text, options);
    expect(s.status).toBe('cut');
    expect(text.slice(s.end)).toBe('</tool_call>');
    const partial = new JsonSpanScanner(0, options);
    expect(partial.feed('{"a": 1 </tool_ca', undefined, false)).toBe('open');
    expect(partial.pos).toBe(8);
    expect(partial.feed('{"a": 1 </tool_call>', undefined, false)).toBe('cut');
  });

  it('cuts at a blank line when asked, and after too many lines', () => {
    const text = '{"name": "x", "arguments": {"a": 1}\n  \nprose';
    const s = scan(text, { stopAtBlankLine: true });
    expect(s.status).toBe('cut');
    expect(s.end).toBe(text.indexOf('\n'));
    expect(scan('{"a":\n1,\n"b":\n2', { maxLines: 2 }).status).toBe('cut');
  });

  it('balances parentheses for call expressions when asked', () => {
    const text = 'brave_search.call(query="a (b) c") rest';
    const s = new JsonSpanScanner(0, { parens: true });
    s.feed(text);
    expect(text.slice(0, s.end)).toBe('brave_search.call(query="a (b) c")');
  });

  describe('watching call keys', () => {
    const options = { callKeys: BARE_CALL_KEYS };

    it('accepts objects whose top-level keys all belong to a call', () => {
      const s = scan('{"name": "x", "arguments": {"age": 3}}', options);
      expect(s.rejected).toBe(false);
      expect(s.committed).toBe(true);
    });

    it('rejects at the first foreign key, before the object closes', () => {
      const s = new JsonSpanScanner(0, options);
      s.feed('{"name": "Alice", "age"', undefined, false);
      expect(s.rejected).toBe(true);
      expect(s.status).toBe('open');
    });

    it('is invalid, not rejected, when the brace does not start JSON at all', () => {
      expect(scan('{like these}', options).status).toBe('invalid');
      expect(scan('[1, 2]', options).status).toBe('invalid');
      expect(scan('{ }', options).status).toBe('closed');
    });

    it('rejects an unquoted key once committed, and watches every object of an array', () => {
      expect(scan('{"name": "x", arguments: {}}', options).rejected).toBe(true);
      expect(scan('[{"name": "a", "arguments": {}}, {"name": "b", "extra": 1}]', options).rejected).toBe(true);
      expect(scan('[{"name": "a", "arguments": {}}, {"name": "b", "arguments": {}}]', options).rejected).toBe(false);
      expect(scan('[{"name": "a"}, 3]', options).rejected).toBe(true);
    });
  });

  it('shifts its positions when the caller trims its buffer', () => {
    const s = new JsonSpanScanner(4);
    s.feed('abc {"a": ', undefined, false);
    s.rebase(4);
    expect(s.feed('{"a": 1}', undefined, false)).toBe('closed');
    expect(s.end).toBe(8);
  });
});

describe('findJsonValues', () => {
  it('lists values separated by whitespace, commas or semicolons, and where other text begins', () => {
    const text = '{"a": 1}\n{"b": 2}; [3] trailing';
    const { values, rest } = findJsonValues(text, 0, text.length);
    expect(values.map((v) => text.slice(v.start, v.end))).toEqual(['{"a": 1}', '{"b": 2}', '[3]']);
    expect(text.slice(rest)).toBe('trailing');
  });

  it('marks an unterminated last value', () => {
    const text = '{"a": 1} {"b": "x';
    const { values } = findJsonValues(text, 0, text.length);
    expect(values[1]).toMatchObject({ closed: false, inString: true, end: text.length });
  });
});
