import type { FamilyModule } from './family-module.ts';
import { pythonLiteral } from '../python-json.ts';
import { SELECT_PREFIX, THINK } from './profile-parts.ts';

/** One call in Python syntax, as LFM2 writes it inside its call list: `name(key="value", n=2)`. */
function pythonicCall(name: string, args: Record<string, unknown>): string {
  return `${name}(${Object.entries(args)
    .map(([k, v]) => `${k}=${pythonLiteral(v)}`)
    .join(', ')})`;
}

/** LFM2 / LFM2.5: a pythonic call list between special tokens; results between response tokens. */
export const lfm2: FamilyModule = {
  profile: {
    id: 'lfm2',
    label: 'LFM2 / LFM2.5',
    syntax: '<|tool_call_start|>[name(key="value")]<|tool_call_end|> (pythonic)',
    callOpener: '<|tool_call_start|>[',
    forcedCallOpener: (name) => `<|tool_call_start|>[${name}(`,
    callClosers: ['<|tool_call_end|>'],
    formatCall: (name, args) => `<|tool_call_start|>[${pythonicCall(name, args)}]<|tool_call_end|>`,
    formatCalls: (calls) => `<|tool_call_start|>[${calls.map((c) => pythonicCall(c.name, c.args)).join(', ')}]<|tool_call_end|>`,
    endTokens: ['<|im_end|>'],
    turnMarkers: ['<|im_start|>'],
    keepTokens: ['<|tool_call_start|>', '<|tool_call_end|>'],
    thinking: { ...THINK, emptyBlockWhenOff: false },
    toolResult: 'tool turn, <|tool_response_start|>…<|tool_response_end|> (LFM2)',
    parallelCalls: true,
    selectPrefix: SELECT_PREFIX,
  },
  // LFM2's templates name the call tokens; LFM2.5's list tools in plain words inside ChatML.
  templateRules: [{ markers: ['<|tool_call_start|>', '<|tool_list_start|>'] }, { markers: ['<|im_start|>', 'List of tools:'], all: true }],
  modelTypes: ['lfm2'],
};
