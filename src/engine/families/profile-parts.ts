import type { FamilyId, FamilyProfile } from '../model-family.ts';
import { pythonJson } from '../python-json.ts';

/** The line the stepwise strategy completes to pick a tool, the same for every family. */
export const SELECT_PREFIX = 'The tool needed is ';

/** The `<think>` switch of the families that have one (`emptyBlockWhenOff` differs). */
export const THINK = { kwarg: 'enable_thinking', open: '<think>', close: '</think>' } as const;

/** Hermes-style calls: JSON inside `<tool_call>` tags (Qwen, Granite 4.0, SmolLM3, and the generic profile). */
export function hermesProfile(id: FamilyId, label: string, rest: Pick<FamilyProfile, 'endTokens' | 'toolResult'> & Partial<FamilyProfile>): FamilyProfile {
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

/**
 * Arguments as the Gemma family's templates write a call (`key:value,…`): strings between `quote`
 * (`<escape>` for FunctionGemma, `<|"|>` for Gemma 4), keys bare, nested objects and lists alike.
 * `sorted` where the template walks keys with `dictsort`; `nullText` as the template prints a null.
 */
export function gemmaArguments(args: Readonly<Record<string, unknown>>, quote: string, { sorted = false, nullText = 'null' } = {}): string {
  const value = (v: unknown): string => {
    if (typeof v === 'string') return `${quote}${v}${quote}`;
    if (Array.isArray(v)) return `[${v.map(value).join(',')}]`;
    if (v && typeof v === 'object') return `{${gemmaArguments(v as Record<string, unknown>, quote, { sorted, nullText })}}`;
    return v === null || v === undefined ? nullText : String(v);
  };
  const keys = sorted ? Object.keys(args).sort() : Object.keys(args);
  return keys.map((k) => `${k}:${value(args[k])}`).join(',');
}
