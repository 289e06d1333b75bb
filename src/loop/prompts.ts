import type { ToolSchema } from '../engine/engine.ts';
import type { ModelFamily } from '../engine/model-family.ts';

/**
 * Shown while the model decides whether to call. It shows the exact bytes of a call for one of
 * the offered tools (`{tool_call_example}` is replaced) because small models copy a worked example
 * far better than they follow a description of the format.
 */
export const DEFAULT_SYSTEM_PROMPT =
  "You are a helpful assistant running in the user's browser. When one of the tools below can answer, " +
  'call it instead of guessing, by writing exactly:\n{tool_call_example}\n' +
  "Use the real tool name and the user's values. When no tool fits, answer directly and briefly.";

/** Used when no tool is offered. */
export const DEFAULT_PLAIN_SYSTEM_PROMPT = "You are a helpful assistant running in the user's browser. Answer directly and briefly.";

/** Added once per answer, after the first tool results, so the model answers from them. */
export const DEFAULT_ANSWER_PROMPT =
  'Answer the user now from the tool results above. Copy names, numbers and codes exactly as the tools returned them. ' +
  'If a tool failed, say so instead of guessing.';

/** The last user turn of an answer round, when the model kept calling tools. */
export const ANSWER_NOW_PROMPT = 'Write the answer now, from the tool results above. Do not call a tool.';

/** The result the model sees instead of running a call a second time. */
export function duplicateCallResult(name: string): string {
  return `You already called ${name} with these arguments in this answer; its result is above. Use it to answer instead of calling again.`;
}

/** The one feedback line for a call to a tool that does not exist. */
export function unknownToolResult(name: string, available: readonly string[]): string {
  return `Tool '${name}' is not available. Available: ${available.length ? available.join(', ') : 'none'}. Call one of those or answer without a tool.`;
}

/**
 * The yes/no question asked before any call is forced in `'auto'`: about the one tool when one is
 * offered, about the list otherwise (names only: a list of descriptions would cost more than the
 * generations the question saves).
 */
export function needsToolQuestion(tools: readonly ToolSchema[]): string {
  const [only] = tools;
  if (tools.length === 1 && only)
    return `Does answering my previous message require calling the tool ${only.function.name} (${only.function.description})? Answer yes or no.`;
  return `Does answering my previous message require calling one of the tools (${tools.map((t) => t.function.name).join(', ')})? Answer yes or no.`;
}

/** What the user reads when every round ended in calls and no answer came. */
export function fallbackAnswer(results: readonly { name: string; result: string }[]): string {
  if (results.length === 0) return 'I could not produce an answer. Please try rephrasing the question.';
  const lines = results.slice(-3).map((r) => `- ${r.name}: ${r.result.length > 300 ? `${r.result.slice(0, 300)}…` : r.result}`);
  return `I ran out of steps before writing an answer. The tools returned:\n${lines.join('\n')}`;
}

function exampleValue(schema: Record<string, unknown>): unknown {
  const examples = schema.examples;
  if (Array.isArray(examples) && examples.length > 0) return examples[0];
  if (Array.isArray(schema.enum) && schema.enum.length > 0) return schema.enum[0];
  if (schema.default !== undefined) return schema.default;
  switch (schema.type) {
    case 'number':
    case 'integer':
      return 2;
    case 'boolean':
      return true;
    case 'array':
      return [];
    case 'object':
      return {};
    default:
      return 'value';
  }
}

/**
 * The exact bytes of a call to `tool` in the family's own syntax, with example values for its
 * required arguments.
 */
export function toolCallExample(tool: ToolSchema, family: Pick<ModelFamily, 'formatCall'>): string {
  const { properties, required = Object.keys(properties) } = tool.function.parameters;
  const args: Record<string, unknown> = {};
  for (const key of required) args[key] = exampleValue(properties[key] ?? {});
  return family.formatCall(tool.function.name, args);
}

/**
 * The system prompt for a round: the template with the call example filled in for the offered
 * tools, written in the model family's syntax (a Llama shown a Qwen call copies the wrong one).
 */
export function expandSystemPrompt(template: string, offered: readonly ToolSchema[], family: Pick<ModelFamily, 'formatCall'>): string {
  const first = offered[0];
  if (!first) return template.includes('{tool_call_example}') ? DEFAULT_PLAIN_SYSTEM_PROMPT : template;
  return template.replaceAll('{tool_call_example}', toolCallExample(first, family));
}
