import type { FamilyModule } from './family-module.ts';
import { pythonJson } from '../python-json.ts';
import { SELECT_PREFIX } from './profile-parts.ts';

const callJson = (name: string, args: Record<string, unknown>) => `{"name": ${JSON.stringify(name)}, "arguments": ${pythonJson(args)}}`;

/** Granite 3.x: one `<|tool_call|>` token, then a JSON list of calls; tools listed in an `available_tools` turn. */
export const granite3: FamilyModule = {
  profile: {
    id: 'granite3',
    label: 'Granite 3.x',
    syntax: '<|tool_call|>[{"name": …, "arguments": {…}}]',
    callOpener: '<|tool_call|>[{"name": "',
    forcedCallOpener: (name) => `<|tool_call|>[{"name": ${JSON.stringify(name)}, "arguments": `,
    callClosers: [],
    formatCall: (name, args) => `<|tool_call|>[${callJson(name, args)}]`,
    formatCalls: (calls) => `<|tool_call|>[${calls.map((c) => callJson(c.name, c.args)).join(', ')}]`,
    endTokens: ['<|end_of_text|>'],
    keepTokens: ['<|tool_call|>'],
    toolResult: 'tool turn, <|start_of_role|>tool<|end_of_role|>…',
    parallelCalls: true,
    selectPrefix: SELECT_PREFIX,
  },
  templateRules: [{ markers: ['<|start_of_role|>', '<|tool_call|>'], all: true }],
  modelTypes: [],
};
