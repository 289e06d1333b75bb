import type { FamilyModule } from './family-module.ts';
import { hermesProfile } from './profile-parts.ts';

/** Granite 4.0: Hermes `<tool_call>` tags inside Granite's role markers. */
export const granite4: FamilyModule = {
  profile: hermesProfile('granite4', 'Granite 4.0', {
    endTokens: ['<|end_of_text|>'],
    toolResult: 'user turn, <tool_response>…</tool_response>',
  }),
  // Granite 3.x has the same role markers and asks for `<|tool_call|>`.
  templateRules: [{ markers: ['<|start_of_role|>'], absent: ['<|tool_call|>'] }],
  modelTypes: ['granite', 'granitemoehybrid'],
};
