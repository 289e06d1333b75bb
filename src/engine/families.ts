import type { FamilyModule } from './families/family-module.ts';
import { deepseekR1 } from './families/deepseek-r1.ts';
import { functiongemma } from './families/functiongemma.ts';
import { gemma4 } from './families/gemma4.ts';
import { generic } from './families/generic.ts';
import { granite3 } from './families/granite3.ts';
import { granite4 } from './families/granite4.ts';
import { hermes } from './families/hermes.ts';
import { lfm2 } from './families/lfm2.ts';
import { llama32 } from './families/llama3-2.ts';
import { mistral3 } from './families/mistral3.ts';
import { phi4Mini } from './families/phi4-mini.ts';
import { qwen25 } from './families/qwen2-5.ts';
import { qwen3 } from './families/qwen3.ts';
import { qwen35 } from './families/qwen3-5.ts';
import { smollm3 } from './families/smollm3.ts';
import type { FamilyId, ModelFamily } from './model-family.ts';

/**
 * Every family module, in the order people meet them (the order options and messages list them),
 * `generic` last. Adding a family is one module in `families/`, one row here and its id in
 * `FamilyId`. Facts and sources: shared/research/model-families.md.
 */
export const FAMILY_MODULES: readonly FamilyModule[] = [
  qwen35,
  qwen3,
  qwen25,
  gemma4,
  mistral3,
  llama32,
  granite4,
  granite3,
  lfm2,
  functiongemma,
  smollm3,
  phi4Mini,
  hermes,
  deepseekR1,
  generic,
];

/** Every profile, by id. */
export const MODEL_FAMILIES = Object.fromEntries(FAMILY_MODULES.map((m) => [m.profile.id, m.profile])) as { readonly [id in FamilyId]: ModelFamily };

/** The families with a profile of their own, for messages: every module's label but the generic one's. */
export const TOOL_FAMILIES: string = FAMILY_MODULES.filter((m) => m.profile.id !== 'generic')
  .map((m) => m.profile.label)
  .join(', ');

/** The profile with this id; an unknown id (a newer page, an older worker) gets the generic one. */
export function familyById(id: string | undefined): ModelFamily {
  return (id && (MODEL_FAMILIES as Record<string, ModelFamily>)[id]) || MODEL_FAMILIES.generic;
}
