import type { FamilyModule } from './family-module.ts';
import { SELECT_PREFIX, THINK } from './profile-parts.ts';

/**
 * One argument's value as Qwen3.5's template writes it inside `<parameter=…>`: objects and arrays as
 * JSON (`tojson`), everything else bare (`| string`). Booleans and null come out as
 * `@huggingface/jinja` writes them (`true`, `null`), which is what the model reads in its history here;
 * Python's `True` from a model trained on it is coerced by the tool's schema.
 */
function parameterValue(value: unknown): string {
  if (value !== null && typeof value === 'object') return JSON.stringify(value);
  return value === undefined ? 'null' : String(value);
}

function parameters(args: Readonly<Record<string, unknown>>): string {
  return Object.entries(args)
    .map(([k, v]) => `<parameter=${k}>\n${parameterValue(v)}\n</parameter>\n`)
    .join('');
}

const opener = (name: string) => `<tool_call>\n<function=${name}>\n`;
const call = (name: string, args: Readonly<Record<string, unknown>>) => `${opener(name)}${parameters(args)}</function>\n</tool_call>`;

/**
 * Qwen3.5: ChatML like Qwen3, but a call is XML — `<function=name>` with a `<parameter=key>` block
 * per argument — inside `<tool_call>`; results in a user turn as Qwen3's. Thinking is switched by
 * `enable_thinking`, and its default differs by size (off on 0.8B/2B, on from 4B): the probe reads it
 * from the template (`TemplateDialect.thinksByDefault`), never from the model's name.
 */
export const qwen35: FamilyModule = {
  profile: {
    id: 'qwen3.5',
    label: 'Qwen3.5',
    syntax: '<tool_call>\\n<function=name>\\n<parameter=key>\\nvalue\\n</parameter>\\n</function>\\n</tool_call>',
    // Up to `<function`, not `=`: in Qwen's BPE `=get` is one token, so a prompt ending in `=` would make
    // the model continue from a token boundary it never saw before a name.
    callOpener: '<tool_call>\n<function',
    forcedCallOpener: opener,
    callClosers: ['</tool_call>'],
    formatCall: call,
    // The template puts a newline between the calls of one turn.
    formatCalls: (calls) => calls.map((c) => call(c.name, c.args)).join('\n'),
    endTokens: ['<|im_end|>'],
    turnMarkers: ['<|im_start|>'],
    keepTokens: ['<tool_call>', '</tool_call>'],
    thinking: { ...THINK, emptyBlockWhenOff: true },
    toolResult: 'user turn, <tool_response>…</tool_response> (consecutive results share the turn)',
    parallelCalls: true,
    selectPrefix: SELECT_PREFIX,
    contextLength: 262144,
    // A parameter block is where the model itself writes a bare value, so the rung asks there.
    argumentSlot: (name, chosen, key) => ({ opener: `${opener(name)}${parameters(chosen)}<parameter=${key}>\n`, stop: ['\n</parameter>', '</parameter>'] }),
  },
  // Qwen3's ChatML and `<tool_call>`, told apart by the XML call its instructions show.
  templateRules: [{ markers: ['<|im_start|>', '<tool_call>', '<function='], all: true }],
  modelTypes: ['qwen3_5', 'qwen3_5_text', 'qwen3_5_moe'],
};
