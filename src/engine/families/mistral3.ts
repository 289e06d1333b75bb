import { pythonJson } from '../python-json.ts';
import type { FamilyModule } from './family-module.ts';
import { SELECT_PREFIX } from './profile-parts.ts';

const call = (name: string, args: Readonly<Record<string, unknown>>) => `[TOOL_CALLS]${name}[ARGS]${pythonJson(args)}`;

/**
 * Mistral 3 (Ministral 3): `[TOOL_CALLS]name[ARGS]{json}`, one such group per call, the turn ended
 * by `</s>`; results in `[TOOL_RESULTS]…[/TOOL_RESULTS]`. Its template insists that user and
 * assistant turns alternate (tool calls and results aside), which the probe finds.
 */
export const mistral3: FamilyModule = {
  profile: {
    id: 'mistral3',
    label: 'Mistral 3',
    syntax: '[TOOL_CALLS]name[ARGS]{"key": "value"}',
    callOpener: '[TOOL_CALLS]',
    forcedCallOpener: (name) => `[TOOL_CALLS]${name}[ARGS]`,
    // The arguments' JSON ends the call; the model then ends its turn or opens the next call.
    callClosers: [],
    formatCall: call,
    formatCalls: (calls) => calls.map((c) => call(c.name, c.args)).join(''),
    endTokens: ['</s>'],
    keepTokens: ['[TOOL_CALLS]', '[ARGS]'],
    toolResult: '[TOOL_RESULTS]…[/TOOL_RESULTS]',
    parallelCalls: true,
    selectPrefix: SELECT_PREFIX,
    contextLength: 262144,
    // Inside the call's own JSON, the arguments chosen so far written out, then this key's value.
    argumentSlot: (name, chosen, key, quoted) => {
      const before = pythonJson(chosen).slice(0, -1);
      return {
        opener: `[TOOL_CALLS]${name}[ARGS]${before}${before.length > 1 ? ', ' : ''}${JSON.stringify(key)}: ${quoted ? '"' : ''}`,
        stop: quoted ? ['"'] : [',', '}'],
      };
    },
  },
  templateRules: [{ markers: ['[TOOL_CALLS]', '[ARGS]'], all: true }],
  modelTypes: ['mistral3', 'ministral3'],
};
