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
import type { FamilyId, FamilyInfo, FamilyProfile, ModelFamily } from './model-family.ts';
import { checkOption } from '../shared/errors.ts';

/**
 * The family modules, in the order people meet them, `generic` last. Adding a family is one module in
 * `families/`, one row here and its id in `FamilyId`. Facts and sources: shared/research/model-families.md.
 */
const MODULES: readonly FamilyModule[] = [
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

/** Every family's turn markers: a model may end a value with any of them. */
const TURN_MARKERS = MODULES.flatMap((m) => [...m.profile.endTokens, ...(m.profile.turnMarkers ?? [])]);

/** A module's profile with what the registry derives from every family. */
function registered(profile: FamilyProfile): ModelFamily {
  const thinking = profile.thinking ? [profile.thinking.open, profile.thinking.close] : [];
  const valueMarkers = [...new Set([...TURN_MARKERS, ...profile.keepTokens, ...profile.callClosers, ...thinking])].filter(Boolean);
  return { ...profile, valueMarkers };
}

/** A family module as registered: its profile complete. */
export interface RegisteredFamily extends Omit<FamilyModule, 'profile'> {
  readonly profile: ModelFamily;
}

/**
 * Every family module, in the order people meet them (the order options and messages list them),
 * `generic` last, each profile complete.
 */
export const FAMILY_MODULES: readonly RegisteredFamily[] = MODULES.map((m) => ({ ...m, profile: registered(m.profile) }));

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

/**
 * A family's profile, for an `Engine` of your own (`engine.family`): its call syntax, openers, end tokens
 * and thinking switch, as the loop speaks to a model of that family.
 *
 * @param id - the family's id (`qwen3`, `llama3.2`, `lfm2`…; `generic` for a model of none).
 * @throws InvalidOptionError naming the valid ids, for an id no profile has.
 */
export function modelFamily(id: FamilyId): ModelFamily {
  checkOption('family', id, Object.keys(MODEL_FAMILIES));
  return MODEL_FAMILIES[id];
}

/**
 * The profile a loaded model reports: its family's, speaking the call syntax learned from its template
 * where the engine learned one (the report carries it as data across the worker).
 */
export async function familyOf(info: Pick<FamilyInfo, 'id' | 'callSyntax'> | undefined): Promise<ModelFamily> {
  const family = familyById(info?.id);
  if (!info?.callSyntax) return family;
  // Loaded only for a model whose call syntax was learned: the page's own bundle goes without it.
  const { withCallSyntax } = await import('./learned-family.ts');
  return withCallSyntax(family, info.callSyntax);
}
