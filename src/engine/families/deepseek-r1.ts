import type { FamilyModule } from './family-module.ts';
import { SELECT_PREFIX } from './profile-parts.ts';

const BEGIN = '<｜tool▁calls▁begin｜>';
const END = '<｜tool▁calls▁end｜>';
const one = (name: string, args: Readonly<Record<string, unknown>>) =>
  `<｜tool▁call▁begin｜>function<｜tool▁sep｜>${name}\n\`\`\`json\n${JSON.stringify(args)}\n\`\`\`<｜tool▁call▁end｜>`;

/**
 * DeepSeek-R1 and its distills (Qwen and Llama bases): calls between DeepSeek's own full-width
 * tokens, arguments in a JSON code fence. The template has no place for a tool list (the loop writes
 * it into the system text) and writes calls in history natively only for a turn whose content is
 * null, which the probe finds. It always opens a `<think>` block; there is no switch.
 */
export const deepseekR1: FamilyModule = {
  profile: {
    id: 'deepseek-r1',
    label: 'DeepSeek-R1 (distills)',
    syntax: '<｜tool▁calls▁begin｜><｜tool▁call▁begin｜>function<｜tool▁sep｜>name\\n```json\\n{…}\\n```<｜tool▁call▁end｜><｜tool▁calls▁end｜>',
    callOpener: `${BEGIN}<｜tool▁call▁begin｜>function<｜tool▁sep｜>`,
    forcedCallOpener: (name) => `${BEGIN}<｜tool▁call▁begin｜>function<｜tool▁sep｜>${name}\n\`\`\`json\n`,
    callClosers: [END],
    formatCall: (name, args) => `${BEGIN}${one(name, args)}${END}`,
    formatCalls: (calls) => `${BEGIN}${calls.map((c) => one(c.name, c.args)).join('\n')}${END}`,
    endTokens: ['<｜end▁of▁sentence｜>'],
    keepTokens: [BEGIN, END, '<｜tool▁call▁begin｜>', '<｜tool▁call▁end｜>', '<｜tool▁sep｜>'],
    toolResult: '<｜tool▁outputs▁begin｜><｜tool▁output▁begin｜>…<｜tool▁output▁end｜><｜tool▁outputs▁end｜>',
    parallelCalls: true,
    selectPrefix: SELECT_PREFIX,
  },
  templateRules: [{ markers: [BEGIN, '<｜tool▁sep｜>'], all: true }],
  modelTypes: [],
};
