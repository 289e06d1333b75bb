import { describe, expect, it } from 'vitest';
import { familyById } from '../engine/families.ts';
import type { ToolSchema } from '../engine/engine.ts';
import { DEFAULT_ANSWER_PROMPT, DEFAULT_PLAIN_SYSTEM_PROMPT, DEFAULT_SYSTEM_PROMPT, systemPromptFor, WORKED_EXAMPLE_SYSTEM_PROMPT } from './prompts.ts';
import { outside, withoutOutsideMarks } from '../shared/outside-text.ts';

const weather: ToolSchema = {
  type: 'function',
  function: {
    name: 'get_weather',
    description: 'Weather',
    parameters: { type: 'object', properties: { city: { type: 'string', examples: ['Oslo'] } }, required: ['city'] },
  },
};
const defaults = { systemPrompt: DEFAULT_SYSTEM_PROMPT, answerPrompt: DEFAULT_ANSWER_PROMPT, family: familyById('qwen3') };

describe('systemPromptFor', () => {
  it('says the answer prompt once, right after the system prompt, when tools are offered', () => {
    expect(systemPromptFor({ ...defaults, offered: [weather] })).toBe(`${DEFAULT_SYSTEM_PROMPT}\n${DEFAULT_ANSWER_PROMPT}`);
  });

  it('leaves the answer prompt out when it is empty, and when no tool is offered', () => {
    expect(systemPromptFor({ ...defaults, answerPrompt: '', offered: [weather] })).toBe(DEFAULT_SYSTEM_PROMPT);
    expect(systemPromptFor({ ...defaults, offered: [] })).toBe(DEFAULT_PLAIN_SYSTEM_PROMPT);
  });

  it("writes a worked example in the family's own syntax, and drops a prompt about tools when none is offered", () => {
    const qwen = systemPromptFor({ ...defaults, systemPrompt: WORKED_EXAMPLE_SYSTEM_PROMPT, offered: [weather] });
    // The schema's keys and example values are marked as outside text; the family's markers are the loop's.
    expect(qwen).toContain(`<tool_call>\n{"name": "get_weather", "arguments": {"${outside('city')}": "${outside('Oslo')}"}}\n</tool_call>`);
    expect(withoutOutsideMarks(qwen)).toContain('<tool_call>\n{"name": "get_weather", "arguments": {"city": "Oslo"}}\n</tool_call>');
    const lfm2 = systemPromptFor({ ...defaults, systemPrompt: WORKED_EXAMPLE_SYSTEM_PROMPT, offered: [weather], family: familyById('lfm2') });
    expect(withoutOutsideMarks(lfm2)).toContain('<|tool_call_start|>[get_weather(city="Oslo")]<|tool_call_end|>');
    expect(systemPromptFor({ ...defaults, systemPrompt: WORKED_EXAMPLE_SYSTEM_PROMPT, offered: [] })).toBe(DEFAULT_PLAIN_SYSTEM_PROMPT);
  });

  it("keeps a user's own prompt as written when no tool is offered", () => {
    expect(systemPromptFor({ ...defaults, systemPrompt: 'Talk like a pirate.', offered: [] })).toBe('Talk like a pirate.');
  });
});
