import type { FamilyModule } from './family-module.ts';
import { hermesProfile } from './profile-parts.ts';

/**
 * NousResearch Hermes (2 Pro, 3): the `<tool_call>` JSON that the Hermes format named, in ChatML, on
 * a Llama base; tools usually come from a named `tool_use` template beside the plain `default` one.
 */
export const hermes: FamilyModule = {
  profile: hermesProfile('hermes', 'Hermes', {
    endTokens: ['<|im_end|>'],
    turnMarkers: ['<|im_start|>'],
    toolResult: 'tool turn, <tool_response>…</tool_response> (consecutive results share the turn)',
  }),
  // Qwen2.5's template took over Hermes' wording of the call; the Hermes templates keep their own opening line.
  templateRules: [{ markers: ['<tool_call>', 'You are a function calling AI model'], all: true }],
  modelTypes: [],
};
