import type { ToolSchema } from '../engine/engine.ts';
import type { ModelFamily } from '../engine/model-family.ts';
import { outsideDeep } from '../shared/outside-text.ts';

/**
 * The system prompt whenever tools are offered. Short and in the words model trainers use: a tiny model
 * trained only on its template's own tool conversations called and answered 50 of 50 times with it,
 * and as rarely as 5 of 50 with a long prompt that spelled out a worked example
 * (`tests/fixtures/models/tiny-tools-qwen3-plain/README.md`). The model learns the call syntax from its
 * template, which lists the tools; a prompt that needs a worked example can still ask for one with
 * `{tool_call_example}` (see {@link WORKED_EXAMPLE_SYSTEM_PROMPT}).
 */
export const DEFAULT_SYSTEM_PROMPT = 'You are a helpful assistant. Use the tools when they help.';

/**
 * Said once, in the system prompt, whenever tools are offered, so the model answers from the results.
 * Never a turn of its own after the results: a system turn in mid-conversation is a shape the templates'
 * own conversations never have, and it left that template-only model's answers ungrounded 50 times of 50.
 */
export const DEFAULT_ANSWER_PROMPT = 'After a tool result, answer from it: copy names, numbers and codes exactly. If a tool failed, say so.';

/**
 * A system prompt that shows the exact bytes of a call (`{tool_call_example}` becomes a call to the
 * first offered tool, in the family's syntax), for a model that copies a worked example better than it
 * follows its template: opt-in, the default before the measurements above.
 */
export const WORKED_EXAMPLE_SYSTEM_PROMPT =
  "You are a helpful assistant running in the user's browser. When one of the tools below can answer, " +
  'call it instead of guessing, by writing exactly:\n{tool_call_example}\n' +
  "Use the real tool name and the user's values. When no tool fits, answer directly and briefly.";

/** Used when no tool is offered and the system prompt is about tools. */
export const DEFAULT_PLAIN_SYSTEM_PROMPT = "You are a helpful assistant running in the user's browser. Answer directly and briefly.";

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
function toolCallExample(tool: ToolSchema, family: Pick<ModelFamily, 'formatCall'>): string {
  const { properties, required = Object.keys(properties) } = tool.function.parameters;
  const args: Record<string, unknown> = {};
  for (const key of required) args[key] = exampleValue(properties[key] ?? {});
  // The keys and example values are the tool's schema, which a server may have written: outside text.
  return family.formatCall(tool.function.name, outsideDeep(args));
}

/** What {@link systemPromptFor} builds the system message from. */
export interface SystemPromptParts {
  /** `NexusChat.systemPrompt`; `{tool_call_example}` becomes a real call to the first offered tool. */
  systemPrompt: string;
  /** `NexusChat.answerPrompt`, said after the system prompt when tools are offered; `''` leaves it out. */
  answerPrompt: string;
  offered: readonly ToolSchema[];
  family: Pick<ModelFamily, 'formatCall'>;
}

/**
 * The system message of an answer. With tools offered: the system prompt (its call example written in
 * the family's syntax: a Llama shown a Qwen call copies the wrong one), then the answer prompt. Without
 * tools, a prompt about tools (the default, or one asking for a call example) gives way to
 * {@link DEFAULT_PLAIN_SYSTEM_PROMPT}; any other prompt is kept as written.
 */
export function systemPromptFor({ systemPrompt, answerPrompt, offered, family }: SystemPromptParts): string {
  const first = offered[0];
  if (!first) {
    const aboutTools = systemPrompt === DEFAULT_SYSTEM_PROMPT || systemPrompt.includes('{tool_call_example}');
    return aboutTools ? DEFAULT_PLAIN_SYSTEM_PROMPT : systemPrompt;
  }
  const expanded = systemPrompt.replaceAll('{tool_call_example}', toolCallExample(first, family));
  return answerPrompt ? `${expanded}\n${answerPrompt}` : expanded;
}
