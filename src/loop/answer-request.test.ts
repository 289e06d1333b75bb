import { describe, expect, it } from 'vitest';
import { familyById } from '../engine/families.ts';
import { InvalidOptionError } from '../shared/errors.ts';
import { ToolRegistry } from '../tools/tool-registry.ts';
import { answerMessages, answerSettings, ANSWER_DEFAULTS, ToolTemplateError, UnknownToolError } from './answer-request.ts';
import { outside } from '../shared/outside-text.ts';

const registry = new ToolRegistry().tool('get_weather', 'Weather', { city: 'string' }, () => 'sunny');
const parts = {
  defaults: ANSWER_DEFAULTS,
  schemas: registry.schemas,
  info: { model: 'm', family: { id: 'qwen3' as const, label: 'Qwen3', detectedBy: 'test' } },
  family: familyById('qwen3'),
  supportedFamilies: 'Qwen3',
  history: [
    { role: 'user' as const, content: 'Hi' },
    { role: 'assistant' as const, content: 'Hello.' },
  ],
  prompt: 'Weather in Paris?',
};

describe('answerSettings', () => {
  it("fills in the chat's defaults and keeps a forced tool that is registered", () => {
    const settings = answerSettings({ toolChoice: { name: 'get_weather' } }, registry, ANSWER_DEFAULTS);
    expect(settings).toMatchObject({ toolChoice: { name: 'get_weather' }, strategy: 'auto', maxRounds: 4, repetitionPenalty: 1.1, enableThinking: false });
  });

  it('refuses an unknown strategy or toolChoice, and a forced tool that is not registered', () => {
    expect(() => answerSettings({ strategy: 'primed' as never }, registry, ANSWER_DEFAULTS)).toThrow(InvalidOptionError);
    expect(() => answerSettings({ toolChoice: 'force' as never }, registry, ANSWER_DEFAULTS)).toThrow(/Use one of: 'auto', 'required', 'none', '\{ name \}'/);
    expect(() => answerSettings({ toolChoice: { name: 'get_time' } }, registry, ANSWER_DEFAULTS)).toThrow(UnknownToolError);
  });
});

describe('answerMessages', () => {
  it('starts from one system message, then the history and the question', () => {
    const messages = answerMessages({ ...parts, settings: { toolChoice: 'auto' }, instructions: 'Be brief.' });
    expect(messages.map((m) => m.role)).toEqual(['system', 'user', 'assistant', 'user']);
    // The instructions are marked as outside text (an imported file or an MCP server may have written them).
    expect(messages[0]?.content).toBe(`${ANSWER_DEFAULTS.systemPrompt}\n${ANSWER_DEFAULTS.answerPrompt}\n\n${outside('Be brief.')}`);
    expect(messages.at(-1)).toEqual({ role: 'user', content: 'Weather in Paris?' });
  });

  it('refuses tools to a model whose template cannot hold them, naming the problem, but not a chat without tools', () => {
    const broken = { ...parts, info: { model: 'gemma', family: { ...parts.info.family, templateProblem: 'cannot render a call and its result (…)' } } };
    expect(() => answerMessages({ ...broken, settings: { toolChoice: 'auto' } })).toThrow(ToolTemplateError);
    expect(() => answerMessages({ ...broken, settings: { toolChoice: 'auto' } })).toThrow(
      /gemma cannot render a call and its result .*\(toolChoice: 'none'\).* Qwen3\./,
    );
    expect(answerMessages({ ...broken, settings: { toolChoice: 'none' } })[0]?.content).not.toContain(ANSWER_DEFAULTS.answerPrompt);
  });
});
