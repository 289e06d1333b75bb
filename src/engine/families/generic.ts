import type { FamilyModule } from './family-module.ts';
import { hermesProfile } from './profile-parts.ts';

/** Everything no other module recognises: Hermes `<tool_call>`, the common end tokens. */
export const generic: FamilyModule = {
  profile: hermesProfile('generic', 'generic (Hermes-style <tool_call>)', {
    endTokens: ['<|im_end|>', '<|eot_id|>', '<end_of_turn>', '<|end|>', '<|end_of_text|>'],
    toolResult: 'as the chat template renders role tool',
  }),
  templateRules: [],
  modelTypes: [],
};
