import type { FamilyModule } from './family-module.ts';
import { gemmaArguments, SELECT_PREFIX } from './profile-parts.ts';

/** The token Gemma 4 puts on both sides of a string. */
const QUOTE = '<|"|>';

/** Gemma 4's template walks argument keys with `dictsort`, and prints a null as Python does. */
const gemma4Arguments = (args: Readonly<Record<string, unknown>>) => gemmaArguments(args, QUOTE, { sorted: true, nullText: 'None' });

const call = (name: string, args: Readonly<Record<string, unknown>>) => `<|tool_call>call:${name}{${gemma4Arguments(args)}}<tool_call|>`;

/**
 * Gemma 4: `<|tool_call>call:name{key:<|"|>value<|"|>}<tool_call|>` (FunctionGemma's syntax with
 * Gemma 4's own tokens); results go back inside the same model turn as `<|tool_response>` blocks,
 * and the model hands over by writing `<|tool_response>` itself. Thinking is a `<|channel>thought`
 * block switched by `enable_thinking`.
 */
export const gemma4: FamilyModule = {
  profile: {
    id: 'gemma4',
    label: 'Gemma 4',
    syntax: '<|tool_call>call:name{key:<|"|>value<|"|>}<tool_call|>',
    callOpener: '<|tool_call>call:',
    forcedCallOpener: (name) => `<|tool_call>call:${name}{`,
    callClosers: ['<tool_call|>'],
    formatCall: call,
    formatCalls: (calls) => calls.map((c) => call(c.name, c.args)).join(''),
    endTokens: ['<turn|>', '<|tool_response>'],
    keepTokens: ['<|tool_call>', '<tool_call|>', QUOTE],
    thinking: { kwarg: 'enable_thinking', open: '<|channel>', close: '<channel|>', emptyBlockWhenOff: false },
    toolResult: 'the same model turn, <|tool_response>response:name{value:…}<tool_response|>',
    parallelCalls: true,
    selectPrefix: SELECT_PREFIX,
    contextLength: 131072,
    argumentSlot: (name, chosen, key, quoted) => {
      const before = gemma4Arguments(chosen);
      return {
        opener: `<|tool_call>call:${name}{${before}${before ? ',' : ''}${key}:${quoted ? QUOTE : ''}`,
        stop: quoted ? [QUOTE] : [',', '}'],
      };
    },
  },
  templateRules: [{ markers: ['<|tool_call>', '<|turn>'], all: true }],
  modelTypes: ['gemma4', 'gemma4_text'],
};
