import type { ChatMessage, RenderOptions, ToolSchema } from './engine.ts';

const PROBE_TOOL: ToolSchema = {
  type: 'function',
  function: {
    name: 'nexus_probe_lookup',
    description: 'Looks a word up.',
    parameters: { type: 'object', properties: { word: { type: 'string' } }, required: ['word'] },
  },
};
const PROBE_RESULT = 'nexus-probe-result-7Q2';

/**
 * Whether a chat template can hold a tool conversation, found by rendering one: the tools must
 * appear in the prompt, and a call with its result must render with the result in it. Gemma 3's
 * template, for one, raises on a `tool` turn; Llama 3's simplified ones ignore `tools`.
 * Returns the problem in words, or undefined when the template can.
 */
export async function templateToolProblem(render: (messages: ChatMessage[], options: RenderOptions) => Promise<string>): Promise<string | undefined> {
  const question: ChatMessage[] = [
    { role: 'system', content: 'You are a helpful assistant.' },
    { role: 'user', content: 'Look up "ember".' },
  ];
  let plain: string;
  try {
    plain = await render(question, { tools: [PROBE_TOOL], addGenerationPrompt: true });
  } catch (error) {
    return `fails to render tools (${firstLine(error)})`;
  }
  if (!plain.includes(PROBE_TOOL.function.name)) return 'ignores the tools it is given (it has no tool support)';
  const round: ChatMessage[] = [
    ...question,
    {
      role: 'assistant',
      content: '',
      tool_calls: [{ id: 'call_1', type: 'function', function: { name: PROBE_TOOL.function.name, arguments: { word: 'ember' } } }],
    },
    { role: 'tool', content: PROBE_RESULT, tool_call_id: 'call_1', name: PROBE_TOOL.function.name },
  ];
  let withResult: string;
  try {
    withResult = await render(round, { tools: [PROBE_TOOL], addGenerationPrompt: true });
  } catch (error) {
    return `fails to render a tool call and its result (${firstLine(error)})`;
  }
  if (!withResult.includes(PROBE_RESULT)) return 'drops tool results from the prompt';
  return undefined;
}

function firstLine(error: unknown): string {
  return (error instanceof Error ? error.message : String(error)).split('\n')[0] ?? '';
}
