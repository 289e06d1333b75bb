import type { FamilyModule } from './family-module.ts';
import { pythonJson } from '../python-json.ts';
import { SELECT_PREFIX } from './profile-parts.ts';

/** Phi-4-mini: `functools[…]` as vLLM's parser reads it; tools in the system message's `tools` field. */
export const phi4Mini: FamilyModule = {
  profile: {
    id: 'phi4-mini',
    label: 'Phi-4-mini',
    syntax: 'functools[{"name": …, "arguments": {…}}]',
    callOpener: 'functools[{"name": "',
    forcedCallOpener: (name) => `functools[{"name": ${JSON.stringify(name)}, "arguments": `,
    callClosers: [],
    formatCall: (name, args) => `functools[{"name": ${JSON.stringify(name)}, "arguments": ${pythonJson(args)}}]`,
    endTokens: ['<|end|>'],
    // Its end of text (bos and eos in its tokenizer).
    turnMarkers: ['<|endoftext|>'],
    keepTokens: ['<|tool_call|>', '<|/tool_call|>'],
    toolResult: '<|tool_response|> turn (llama.cpp template)',
    parallelCalls: true,
    selectPrefix: SELECT_PREFIX,
  },
  templateRules: [{ markers: ['<|assistant|>', '<|tool|>'], all: true }],
  // Not `phi3`: Phi-3.5-mini shares it and has no tool support; Phi-4-mini's template names it.
  modelTypes: [],
};
