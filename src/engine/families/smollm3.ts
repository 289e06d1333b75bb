import type { FamilyModule } from './family-module.ts';
import { hermesProfile, THINK } from './profile-parts.ts';

/** SmolLM3: Hermes calls, tools from `xml_tools`, thinking without an empty block when off. */
export const smollm3: FamilyModule = {
  profile: hermesProfile('smollm3', 'SmolLM3', {
    endTokens: ['<|im_end|>'],
    turnMarkers: ['<|im_start|>'],
    thinking: { ...THINK, emptyBlockWhenOff: false },
    toolResult: 'user turn (the official template drops the wrapper)',
  }),
  // The same ChatML markers as Qwen's, told apart by `xml_tools`.
  templateRules: [{ markers: ['<|im_start|>', 'xml_tools'], all: true }],
  modelTypes: ['smollm3'],
};
