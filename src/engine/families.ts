import type { FamilyId, ModelFamily } from './model-family.ts';
import { pythonJson, pythonLiteral } from './python-json.ts';

const SELECT_PREFIX = 'The tool needed is ';
const THINK = { kwarg: 'enable_thinking', open: '<think>', close: '</think>' } as const;

/** Hermes-style calls: JSON inside `<tool_call>` tags (Qwen, Granite, SmolLM3, and the generic profile). */
function hermes(id: FamilyId, label: string, rest: Pick<ModelFamily, 'endTokens' | 'toolResult'> & Partial<ModelFamily>): ModelFamily {
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

/** One call in Python syntax, as LFM2 writes it inside its call list: `name(key="value", n=2)`. */
function pythonicCall(name: string, args: Record<string, unknown>): string {
  return `${name}(${Object.entries(args)
    .map(([k, v]) => `${k}=${pythonLiteral(v)}`)
    .join(', ')})`;
}

/** Every profile, by id. Facts and sources: shared/research/model-families.md. */
export const MODEL_FAMILIES: { readonly [id in FamilyId]: ModelFamily } = {
  qwen3: hermes('qwen3', 'Qwen3', {
    endTokens: ['<|im_end|>'],
    thinking: { ...THINK, emptyBlockWhenOff: true },
    toolResult: 'user turn, <tool_response>…</tool_response> (consecutive results share the turn)',
  }),
  'qwen2.5': hermes('qwen2.5', 'Qwen2.5', {
    endTokens: ['<|im_end|>'],
    toolResult: 'user turn, <tool_response>…</tool_response> (consecutive results share the turn)',
  }),
  granite4: hermes('granite4', 'Granite 4.0', {
    endTokens: ['<|end_of_text|>'],
    toolResult: 'user turn, <tool_response>…</tool_response>',
  }),
  granite3: {
    id: 'granite3',
    label: 'Granite 3.x',
    syntax: '<|tool_call|>[{"name": …, "arguments": {…}}]',
    callOpener: '<|tool_call|>[{"name": "',
    forcedCallOpener: (name) => `<|tool_call|>[{"name": ${JSON.stringify(name)}, "arguments": `,
    callClosers: [],
    formatCall: (name, args) => `<|tool_call|>[{"name": ${JSON.stringify(name)}, "arguments": ${pythonJson(args)}}]`,
    formatCalls: (calls) => `<|tool_call|>[${calls.map((c) => `{"name": ${JSON.stringify(c.name)}, "arguments": ${pythonJson(c.args)}}`).join(', ')}]`,
    endTokens: ['<|end_of_text|>'],
    keepTokens: ['<|tool_call|>'],
    toolResult: 'tool turn, <|start_of_role|>tool<|end_of_role|>…',
    parallelCalls: true,
    selectPrefix: SELECT_PREFIX,
  },
  smollm3: hermes('smollm3', 'SmolLM3', {
    endTokens: ['<|im_end|>'],
    thinking: { ...THINK, emptyBlockWhenOff: false },
    toolResult: 'user turn (the official template drops the wrapper)',
  }),
  'llama3.2': {
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
  },
  lfm2: {
    id: 'lfm2',
    label: 'LFM2 / LFM2.5',
    syntax: '<|tool_call_start|>[name(key="value")]<|tool_call_end|> (pythonic)',
    callOpener: '<|tool_call_start|>[',
    forcedCallOpener: (name) => `<|tool_call_start|>[${name}(`,
    callClosers: ['<|tool_call_end|>'],
    formatCall: (name, args) => `<|tool_call_start|>[${pythonicCall(name, args)}]<|tool_call_end|>`,
    formatCalls: (calls) => `<|tool_call_start|>[${calls.map((c) => pythonicCall(c.name, c.args)).join(', ')}]<|tool_call_end|>`,
    endTokens: ['<|im_end|>'],
    keepTokens: ['<|tool_call_start|>', '<|tool_call_end|>'],
    thinking: { ...THINK, emptyBlockWhenOff: false },
    toolResult: 'tool turn, <|tool_response_start|>…<|tool_response_end|> (LFM2)',
    parallelCalls: true,
    selectPrefix: SELECT_PREFIX,
  },
  functiongemma: {
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
  'phi4-mini': {
    id: 'phi4-mini',
    label: 'Phi-4-mini',
    syntax: 'functools[{"name": …, "arguments": {…}}]',
    callOpener: 'functools[{"name": "',
    forcedCallOpener: (name) => `functools[{"name": ${JSON.stringify(name)}, "arguments": `,
    callClosers: [],
    formatCall: (name, args) => `functools[{"name": ${JSON.stringify(name)}, "arguments": ${pythonJson(args)}}]`,
    endTokens: ['<|end|>'],
    keepTokens: ['<|tool_call|>', '<|/tool_call|>'],
    toolResult: '<|tool_response|> turn (llama.cpp template)',
    parallelCalls: true,
    selectPrefix: SELECT_PREFIX,
  },
  generic: hermes('generic', 'generic (Hermes-style <tool_call>)', {
    endTokens: ['<|im_end|>', '<|eot_id|>', '<end_of_turn>', '<|end|>', '<|end_of_text|>'],
    toolResult: 'as the chat template renders role tool',
  }),
};

/**
 * Call and reasoning markers of every family the parser reads. Where a tokenizer has one as a
 * special token, generated text keeps it, whichever profile is in use.
 */
export const KNOWN_CALL_MARKERS: readonly string[] = [
  ...new Set(Object.values(MODEL_FAMILIES).flatMap((f) => f.keepTokens)),
  '<think>',
  '</think>',
  '[TOOL_CALLS]',
  '<|START_ACTION|>',
  '<|END_ACTION|>',
  '<|tool_call>',
  '<tool_call|>',
  '<｜tool▁calls▁begin｜>',
  '<｜tool▁calls▁end｜>',
  '<｜tool▁call▁begin｜>',
  '<｜tool▁call▁end｜>',
  '<｜tool▁sep｜>',
];

/** The profile with this id; an unknown id (a newer page, an older worker) gets the generic one. */
export function familyById(id: string | undefined): ModelFamily {
  return (id && (MODEL_FAMILIES as Record<string, ModelFamily>)[id]) || MODEL_FAMILIES.generic;
}
