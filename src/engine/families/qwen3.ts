import type { FamilyModule } from './family-module.ts';
import { hermesProfile, THINK } from './profile-parts.ts';

/** Qwen3: Hermes `<tool_call>` JSON, results in a user turn, thinking switched by `enable_thinking`. */
export const qwen3: FamilyModule = {
  profile: hermesProfile('qwen3', 'Qwen3', {
    endTokens: ['<|im_end|>'],
    turnMarkers: ['<|im_start|>'],
    thinking: { ...THINK, emptyBlockWhenOff: true },
    toolResult: 'user turn, <tool_response>…</tool_response> (consecutive results share the turn)',
    contextLength: 32768,
  }),
  // Qwen3 templates speak of `enable_thinking` or `<think>`; Qwen2.5's, with the same call tags, of
  // neither; SmolLM3's, with both, of `xml_tools`; Qwen3.5's show an XML `<function=` call.
  templateRules: [
    { markers: ['<|im_start|>', '<tool_call>', 'enable_thinking'], all: true, absent: ['xml_tools', '<function='] },
    { markers: ['<|im_start|>', '<tool_call>', '<think>'], all: true, absent: ['xml_tools', '<function='] },
  ],
  modelTypes: ['qwen3'],
};
