import type { FamilyModule } from './family-module.ts';
import { hermesProfile } from './profile-parts.ts';

/** Qwen2.5: Qwen3's call syntax without thinking. */
export const qwen25: FamilyModule = {
  profile: hermesProfile('qwen2.5', 'Qwen2.5', {
    endTokens: ['<|im_end|>'],
    turnMarkers: ['<|im_start|>'],
    toolResult: 'user turn, <tool_response>…</tool_response> (consecutive results share the turn)',
    contextLength: 32768,
  }),
  templateRules: [
    {
      markers: ['<|im_start|>', '<tool_call>'],
      all: true,
      absent: ['enable_thinking', '<think>', 'xml_tools', '<function=', 'You are a function calling AI model'],
    },
  ],
  modelTypes: ['qwen2'],
};
