import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { familyFromTemplate, modelFamily } from './family-from-template.ts';

const TEMPLATES = join(import.meta.dirname, '..', '..', 'tests', 'fixtures', 'templates');

describe('a profile from a model’s own template, for an engine of one’s own', () => {
  it('learns the call syntax of a template no profile knows (GLM-4.6’s), and says so', async () => {
    const { family, info } = await familyFromTemplate({ chatTemplate: readFileSync(join(TEMPLATES, 'llama-cpp', 'GLM-4.6.jinja'), 'utf8') });
    expect(family.callOpener).toBe('<tool_call>');
    expect(family.formatCall('get_weather', { city: 'Paris' })).toBe(
      '<tool_call>get_weather\n<arg_key>city</arg_key>\n<arg_value>Paris</arg_value>\n</tool_call>',
    );
    expect(info.calls).toMatch(/learned from its template/);
    expect(info.callSyntax).toEqual(family.callSyntax);
  });

  it('keeps a family’s profile where it writes calls as the template does (Qwen3’s)', async () => {
    const { family, info } = await familyFromTemplate({ chatTemplate: readFileSync(join(TEMPLATES, 'qwen3-0.6b.jinja'), 'utf8') });
    expect(family.id).toBe('qwen3');
    expect(family.callSyntax).toBeUndefined();
    expect(info.calls).toMatch(/the Qwen3 profile, which matches its template/);
  });

  it('is the root entry’s `modelFamily.fromTemplate`, beside the profile by id', async () => {
    expect(modelFamily('qwen3').id).toBe('qwen3');
    const { family } = await modelFamily.fromTemplate({ chatTemplate: readFileSync(join(TEMPLATES, 'llama-cpp', 'moonshotai-Kimi-K2.jinja'), 'utf8') });
    expect(family.callOpener).toBe('<|tool_calls_section_begin|><|tool_call_begin|>functions.');
  });

  it('names the problem of a template whose answers open a channel (gpt-oss’ Harmony)', async () => {
    const { info } = await familyFromTemplate({ chatTemplate: readFileSync(join(TEMPLATES, 'llama-cpp', 'openai-gpt-oss-120b.jinja'), 'utf8') });
    expect(info.templateProblem).toMatch(/writes "<\|channel\|>final<\|message\|>" before every answer/);
  });
});
