import type { FamilyModule } from './family-module.ts';
import { gemmaArguments, SELECT_PREFIX } from './profile-parts.ts';

/** FunctionGemma: `call:name{…}` between function-call tokens, results in the same model turn. */
export const functiongemma: FamilyModule = {
  profile: {
    id: 'functiongemma',
    label: 'FunctionGemma',
    syntax: '<start_function_call>call:name{key:<escape>value<escape>}<end_function_call>',
    callOpener: '<start_function_call>call:',
    forcedCallOpener: (name) => `<start_function_call>call:${name}{`,
    callClosers: ['<end_function_call>'],
    formatCall: (name, args) => `<start_function_call>call:${name}{${gemmaArguments(args, '<escape>')}}<end_function_call>`,
    endTokens: ['<end_of_turn>', '<start_function_response>'],
    keepTokens: ['<start_function_call>', '<end_function_call>', '<escape>'],
    toolResult: 'the same model turn, <start_function_response>response:name{…}<end_function_response>',
    parallelCalls: true,
    selectPrefix: SELECT_PREFIX,
  },
  templateRules: [{ markers: ['<start_function_call>', '<start_function_declaration>'] }],
  modelTypes: [],
};
