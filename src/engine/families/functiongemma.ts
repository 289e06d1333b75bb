import type { FamilyModule } from './family-module.ts';
import { SELECT_PREFIX } from './profile-parts.ts';

/** FunctionGemma's argument values: strings between `<escape>` tokens, everything else bare. */
function gemmaValue(value: unknown): string {
  if (typeof value === 'string') return `<escape>${value}<escape>`;
  if (Array.isArray(value)) return `[${value.map(gemmaValue).join(',')}]`;
  if (value && typeof value === 'object')
    return `{${Object.entries(value)
      .map(([k, v]) => `${k}:${gemmaValue(v)}`)
      .join(',')}}`;
  return String(value ?? null);
}

/** FunctionGemma: `call:name{…}` between function-call tokens, results in the same model turn. */
export const functiongemma: FamilyModule = {
  profile: {
    id: 'functiongemma',
    label: 'FunctionGemma',
    syntax: '<start_function_call>call:name{key:<escape>value<escape>}<end_function_call>',
    callOpener: '<start_function_call>call:',
    forcedCallOpener: (name) => `<start_function_call>call:${name}{`,
    callClosers: ['<end_function_call>'],
    formatCall: (name, args) => `<start_function_call>call:${name}${gemmaValue(args)}<end_function_call>`,
    endTokens: ['<end_of_turn>', '<start_function_response>'],
    keepTokens: ['<start_function_call>', '<end_function_call>', '<escape>'],
    toolResult: 'the same model turn, <start_function_response>response:name{…}<end_function_response>',
    parallelCalls: true,
    selectPrefix: SELECT_PREFIX,
  },
  templateRules: [{ markers: ['<start_function_call>', '<start_function_declaration>'] }],
  modelTypes: [],
};
