import { FAMILY_MODULES, familyById } from './families.ts';
import type { FamilyInfo, ModelFamily } from './model-family.ts';

/** What a model's own files say about its family. */
export interface ModelFiles {
  /** `config.json` `model_type`. */
  modelType?: string;
  /** `config.json` `architectures`. */
  architectures?: readonly string[];
  /** `tokenizer_config.json` `chat_template`: one template, or named ones (`default`, `tool_use`). */
  chatTemplate?: string | Readonly<Record<string, string>> | null;
}

/** The profile chosen, and why. */
export interface DetectedFamily {
  family: ModelFamily;
  info: FamilyInfo;
}

/** Every template text of a tokenizer config, joined (a named `tool_use` template counts too). */
function templateText(template: ModelFiles['chatTemplate']): string {
  if (!template) return '';
  return typeof template === 'string' ? template : Object.values(template).join('\n');
}

/**
 * The families whose template rules match `text`, with the markers each rule found; the most
 * specific (most markers found) first. Real templates match one family at most (tested on every
 * real template in the fixtures); should a new one match two, the more specific rule wins.
 */
export function templateMatches(text: string): { profile: ModelFamily; found: string[] }[] {
  const matches: { profile: ModelFamily; found: string[] }[] = [];
  for (const { profile, templateRules } of FAMILY_MODULES) {
    for (const rule of templateRules) {
      if (rule.absent?.some((m) => text.includes(m))) continue;
      const found = rule.markers.filter((m) => text.includes(m));
      if (rule.all ? found.length === rule.markers.length : found.length > 0) {
        matches.push({ profile, found });
        break;
      }
    }
  }
  return matches.sort((a, b) => b.found.length - a.found.length);
}

/**
 * Chooses the profile from a model's own files: the chat template's markers first, then
 * `config.json`'s `model_type`; anything unrecognised gets the generic profile, and `detectedBy`
 * says so, so a verdict can name the profile it was measured with.
 */
export function detectFamily(files: ModelFiles): DetectedFamily {
  const text = templateText(files.chatTemplate);
  // The template is what the loop actually talks to, so it decides over `config.json`: a fixture (or a
  // fine-tune) may run one family's graph with another family's tokenizer and template.
  const [match] = templateMatches(text);
  if (match) return result(match.profile, `chat template markers ${match.found.join(', ')}`);
  const byType = files.modelType ? FAMILY_MODULES.find((m) => m.modelTypes.includes(files.modelType ?? ''))?.profile : undefined;
  if (byType) return result(byType, `config.json model_type "${files.modelType}" (the chat template has no known markers)`);
  const what = [files.modelType && `model_type "${files.modelType}"`, files.architectures?.length && `architectures ${files.architectures.join(', ')}`]
    .filter(Boolean)
    .join(', ');
  return result(familyById('generic'), `no known family (${what || 'no config'}${text ? '' : ', no chat template'}): generic profile`);
}

function result(family: ModelFamily, detectedBy: string): DetectedFamily {
  return { family, info: { id: family.id, label: family.label, detectedBy } };
}
