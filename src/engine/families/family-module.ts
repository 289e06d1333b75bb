import type { FamilyProfile } from '../model-family.ts';

/** A rule that recognises a family from its chat template's own markers. */
export interface TemplateRule {
  readonly markers: readonly string[];
  /** All of `markers` must appear (default: any one). */
  readonly all?: boolean;
  /** Markers that must not appear: what tells this family from a near one with the same markers. */
  readonly absent?: readonly string[];
}

/**
 * One model family in one place: its profile and how its own files name it. Template rules of
 * different families never match the same template (each says what it needs absent), so the
 * registry's order does not decide detection.
 */
export interface FamilyModule {
  readonly profile: FamilyProfile;
  /** Template rules; any one matching chooses this family. */
  readonly templateRules: readonly TemplateRule[];
  /** `config.json` `model_type` values of this family, used when no template rule matched. */
  readonly modelTypes: readonly string[];
}
