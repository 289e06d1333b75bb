import { MODEL_FAMILIES } from './families.ts';
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

/** A rule that recognises a family from its chat template's own markers. */
interface TemplateRule {
  family: keyof typeof MODEL_FAMILIES;
  markers: readonly string[];
  /** All of `markers` must appear (default: any one). */
  all?: boolean;
}

/**
 * Template rules, most specific first. The template is what the loop actually talks to, so it
 * decides over `config.json`: a fixture (or a fine-tune) may run one family's graph with another
 * family's tokenizer and template, and the dialect is the template's.
 */
const TEMPLATE_RULES: readonly TemplateRule[] = [
  { family: 'functiongemma', markers: ['<start_function_call>', '<start_function_declaration>'] },
  { family: 'lfm2', markers: ['<|tool_call_start|>', '<|tool_list_start|>'] },
  { family: 'lfm2', markers: ['<|im_start|>', 'List of tools:'], all: true },
  // Granite 3.x asks for `<|tool_call|>[…]` and lists tools in an `available_tools` turn; 4.0 writes Hermes `<tool_call>` tags.
  { family: 'granite3', markers: ['<|start_of_role|>', '<|tool_call|>'], all: true },
  { family: 'granite4', markers: ['<|start_of_role|>'] },
  { family: 'llama3.2', markers: ['<|start_header_id|>'] },
  { family: 'phi4-mini', markers: ['<|assistant|>', '<|tool|>'], all: true },
  { family: 'smollm3', markers: ['<|im_start|>', 'xml_tools'], all: true },
  { family: 'qwen3', markers: ['<|im_start|>', '<tool_call>', 'enable_thinking'], all: true },
  { family: 'qwen3', markers: ['<|im_start|>', '<tool_call>', '<think>'], all: true },
  { family: 'qwen2.5', markers: ['<|im_start|>', '<tool_call>'], all: true },
];

/** `config.json` `model_type` → family, used only when the template says nothing recognisable. */
const MODEL_TYPES: Readonly<Record<string, keyof typeof MODEL_FAMILIES>> = {
  qwen3: 'qwen3',
  qwen2: 'qwen2.5',
  llama: 'llama3.2',
  granite: 'granite4',
  granitemoehybrid: 'granite4',
  lfm2: 'lfm2',
  smollm3: 'smollm3',
  phi3: 'phi4-mini',
};

/** Every template text of a tokenizer config, joined (a named `tool_use` template counts too). */
export function templateText(template: ModelFiles['chatTemplate']): string {
  if (!template) return '';
  return typeof template === 'string' ? template : Object.values(template).join('\n');
}

/**
 * Chooses the profile from a model's own files: the chat template's markers first, then
 * `config.json`'s `model_type`; anything unrecognised gets the generic profile, and `detectedBy`
 * says so, so a verdict can name the profile it was measured with.
 */
export function detectFamily(files: ModelFiles): DetectedFamily {
  const text = templateText(files.chatTemplate);
  for (const rule of TEMPLATE_RULES) {
    const found = rule.markers.filter((m) => text.includes(m));
    if (rule.all ? found.length === rule.markers.length : found.length > 0) {
      return result(rule.family, `chat template markers ${found.join(', ')}`);
    }
  }
  const byType = files.modelType ? MODEL_TYPES[files.modelType] : undefined;
  if (byType) return result(byType, `config.json model_type "${files.modelType}" (the chat template has no known markers)`);
  const what = [files.modelType && `model_type "${files.modelType}"`, files.architectures?.length && `architectures ${files.architectures.join(', ')}`]
    .filter(Boolean)
    .join(', ');
  return result('generic', `no known family (${what || 'no config'}${text ? '' : ', no chat template'}): generic profile`);
}

function result(id: keyof typeof MODEL_FAMILIES, detectedBy: string): DetectedFamily {
  const family = MODEL_FAMILIES[id];
  return { family, info: { id: family.id, label: family.label, detectedBy } };
}
