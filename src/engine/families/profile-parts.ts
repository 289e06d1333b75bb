import type { FamilyId, ModelFamily } from '../model-family.ts';
import { pythonJson } from '../python-json.ts';

/** The line the stepwise strategy completes to pick a tool, the same for every family. */
export const SELECT_PREFIX = 'The tool needed is ';

/** The `<think>` switch of the families that have one (`emptyBlockWhenOff` differs). */
export const THINK = { kwarg: 'enable_thinking', open: '<think>', close: '</think>' } as const;

/** Hermes-style calls: JSON inside `<tool_call>` tags (Qwen, Granite 4.0, SmolLM3, and the generic profile). */
export function hermesProfile(id: FamilyId, label: string, rest: Pick<ModelFamily, 'endTokens' | 'toolResult'> & Partial<ModelFamily>): ModelFamily {
  return {
    id,
    label,
    syntax: '<tool_call>\\n{"name": …, "arguments": {…}}\\n</tool_call>',
    callOpener: '<tool_call>\n{"name": "',
    forcedCallOpener: (name) => `<tool_call>\n{"name": ${JSON.stringify(name)}, "arguments": `,
    callClosers: ['</tool_call>'],
    formatCall: (name, args) => `<tool_call>\n{"name": ${JSON.stringify(name)}, "arguments": ${pythonJson(args)}}\n</tool_call>`,
    keepTokens: ['<tool_call>', '</tool_call>'],
    parallelCalls: true,
    selectPrefix: SELECT_PREFIX,
    ...rest,
  };
}
