import { detectFamily } from './detect-family.ts';
import { modelFamily as familyById } from './families.ts';
import type { FamilyId, FamilyInfo, ModelFamily } from './model-family.ts';
import { adoptedFamily, adoptTemplate } from './template-analysis.ts';
import type { RawTemplateRender } from './template-dialect.ts';

/** A model's own files, as far as its family and call syntax go. */
export interface TemplateFiles {
  /** `tokenizer_config.json` `chat_template`: one template, or named ones (`default`, `tool_use`). */
  chatTemplate: string | Readonly<Record<string, string>>;
  /** `config.json` `model_type`, used when the template has no known markers. */
  modelType?: string;
  /** The special tokens the template has in scope (`bos_token`, `eos_token`…). */
  specialTokens?: Readonly<Record<string, string>>;
}

/**
 * The profile the loop speaks to a model with, from its own chat template, as the engine settles it at
 * load: the family its template names, the template probed, and the call syntax learned from it where
 * no profile writes calls as the template does. For an `Engine` of your own (`engine.family`, and
 * `info.family` from `info`), for any model, templates released after this package included.
 *
 * @returns the profile, and its report (what chose it, how calls are written, `templateProblem` where the
 * template cannot hold a tool conversation the loop reads).
 */
export async function familyFromTemplate(files: TemplateFiles): Promise<{ family: ModelFamily; info: FamilyInfo }> {
  // Loaded when asked for: the page's own bundle does without a Jinja engine.
  const { BoundedTemplate } = await import('./bounded-template.ts');
  const named = typeof files.chatTemplate === 'string' ? { default: files.chatTemplate } : files.chatTemplate;
  const compiled = Object.fromEntries(Object.entries(named).map(([name, source]) => [name, new BoundedTemplate(source)]));
  const render: RawTemplateRender = (messages, args) => {
    const tools = args.tools ?? null;
    // As transformers.js picks: `tool_use` when tools are given, else `default`.
    const template = (tools !== null ? compiled.tool_use : undefined) ?? compiled.default ?? Object.values(compiled)[0];
    if (!template) throw new Error('The model has no chat template.');
    return template.render({ messages, ...files.specialTokens, ...args, tools });
  };
  const detected = detectFamily({ chatTemplate: files.chatTemplate, ...(files.modelType ? { modelType: files.modelType } : {}) });
  return adoptedFamily(detected, await adoptTemplate(render, detected.family));
}

/**
 * A family's profile by id (`modelFamily('qwen3')`), or from a model's own template
 * (`await modelFamily.fromTemplate({ chatTemplate })`, see {@link familyFromTemplate}), for an `Engine` of your own.
 *
 * @throws InvalidOptionError naming the valid ids, for an id no profile has.
 */
export const modelFamily: typeof familyById & { readonly fromTemplate: typeof familyFromTemplate } = Object.assign((id: FamilyId) => familyById(id), {
  fromTemplate: familyFromTemplate,
});
