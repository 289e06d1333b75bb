import { describe, expect, it } from 'vitest';
import { FenceCloser } from './parse-fenced.ts';
import { parseToolCalls } from './parse-tool-calls.ts';

const paris = { name: 'get_weather', arguments: { city: 'Paris' } };
const CALL = '{"name": "get_weather", "arguments": {"city": "Paris"}}';

describe('fenced calls', () => {
  it('reads JSON in ```json, ```JSON and untagged fences', () => {
    for (const label of ['json', 'JSON', '', 'json5']) {
      expect(parseToolCalls(`Here:\n\n\`\`\`${label}\n${CALL}\n\`\`\`\nDone.`), label).toEqual({ calls: [paris], text: 'Here:\n\n\nDone.', rejected: [] });
    }
  });

  it('reads several calls in one fence, and an unclosed fence', () => {
    expect(parseToolCalls(`\`\`\`json\n${CALL}\n${CALL}\n\`\`\``).calls).toEqual([paris, paris]);
    expect(parseToolCalls(`\`\`\`json\n${CALL}`).calls).toEqual([paris]);
  });

  it('reads ```tool_call and ```tool_code fences as explicit markup, call expressions included', () => {
    expect(parseToolCalls('```tool_call\n{"name": "get_time"}\n```').calls).toEqual([{ name: 'get_time', arguments: {} }]);
    expect(parseToolCalls("```tool_code\nprint(default_api.get_weather(city='Paris'))\n```").calls).toEqual([paris]);
  });

  it('never reads a call from a code sample in a language-labelled fence', () => {
    for (const label of ['python', 'js', 'ts', 'bash', 'javascript', 'xml', 'text']) {
      const raw = `Example:\n\`\`\`${label}\n${CALL}\n<tool_call>${CALL}</tool_call>\n\`\`\`\nAfter.`;
      expect(parseToolCalls(raw), label).toEqual({ calls: [], text: raw, rejected: [] });
    }
  });

  it('shows a JSON fence of data as written, and a JSON fence followed by other text', () => {
    const data = 'Result:\n```json\n{"city": "Paris", "temp": 18}\n```';
    expect(parseToolCalls(data)).toEqual({ calls: [], text: data, rejected: [] });
    const mixed = `\`\`\`json\n${CALL}\nthen some notes\n\`\`\``;
    expect(parseToolCalls(mixed)).toEqual({ calls: [], text: mixed, rejected: [] });
  });

  it('needs the fence to open a line (mid-line backticks are just text)', () => {
    const raw = 'inline ```json {"city": "Paris"}```';
    expect(parseToolCalls(raw)).toEqual({ calls: [], text: raw, rejected: [] });
  });

  it('resumes after the fence: calls after a code sample are still read', () => {
    const raw = `\`\`\`python\nprint("hi")\n\`\`\`\n<tool_call>${CALL}</tool_call>`;
    expect(parseToolCalls(raw)).toEqual({ calls: [paris], text: '```python\nprint("hi")\n```', rejected: [] });
  });
});

describe('FenceCloser', () => {
  it('finds the closing fence at a line start, up to three spaces in, across chunks', () => {
    const closer = new FenceCloser();
    expect(closer.advance('a ``` b\n    ```\n  `', 0, false)).toEqual({ done: false, at: 19 });
    expect(closer.advance('a ``` b\n    ```\n  ```', 19, false)).toEqual({ done: true, at: 21 });
    expect(closer.closingLineStart).toBe(16);
  });
});
