import type { FamilyModule } from './family-module.ts';
import { pythonJson } from '../python-json.ts';
import { SELECT_PREFIX } from './profile-parts.ts';

/** Llama 3.1 / 3.2: a bare JSON call with `parameters`, one per turn, results in an `ipython` turn. */
export const llama32: FamilyModule = {
  profile: {
    id: 'llama3.2',
    label: 'Llama 3.2',
    syntax: '{"name": …, "parameters": {…}} (bare JSON, one call per turn)',
    callOpener: '{"name": "',
    forcedCallOpener: (name) => `{"name": ${JSON.stringify(name)}, "parameters": `,
    callClosers: [],
    formatCall: (name, args) => `{"name": ${JSON.stringify(name)}, "parameters": ${pythonJson(args)}}`,
    endTokens: ['<|eot_id|>', '<|eom_id|>'],
    keepTokens: ['<|python_tag|>'],
    toolResult: 'ipython turn, the result JSON-quoted',
    parallelCalls: false,
    selectPrefix: SELECT_PREFIX,
    contextLength: 131072,
  },
  templateRules: [{ markers: ['<|start_header_id|>'] }],
  modelTypes: ['llama'],
};
