import type { PromptMatcher } from '../engine/scripted-engine.ts';
import { ANSWER_NOW_PROMPT } from '../loop/prompts.ts';

/** Qwen3's call opener and the stepwise select line, as the scripted engine's prompts end. */
export const QWEN3_PRIMED_PREFIX = '<tool_call>\n{"name": "';
const SELECT_PREFIX = 'The tool needed is ';

/**
 * Prompt matchers for {@link ScriptedEngine} scripts that drive the loop: each names one kind of
 * generation the loop asks for, by how its prompt ends (Qwen3 ChatML, thinking off).
 */
const GENERATION_PROMPT = '<|im_start|>assistant\n<think>\n\n</think>\n\n';

function endsWithTurn(role: string, content: string): string {
  return `<|im_start|>${role}\n${content}<|im_end|>\n${GENERATION_PROMPT}`;
}

export const when = {
  /** The free generation right after the user's message `text`. */
  userAsked: (text: string): PromptMatcher => endsWithTurn('user', text),
  /**
   * The free generation right after the user's message `text`, with `remembered` in the prompt and
   * `forgotten` not: which version of the conversation the model was given.
   */
  userAskedRemembering:
    (text: string, { remembered, forgotten }: { remembered: string; forgotten: string }): PromptMatcher =>
    (prompt) =>
      prompt.endsWith(endsWithTurn('user', text)) && prompt.includes(remembered) && !prompt.includes(forgotten),
  /** A free generation after tool results are in context (any round). */
  afterResults: (): PromptMatcher => (prompt) =>
    prompt.endsWith(GENERATION_PROMPT) &&
    /<\/tool_response><\|im_end\|>\n(?:<\|im_start\|>system\n[\s\S]*?<\|im_end\|>\n)?<\|im_start\|>assistant\n<think>\n\n<\/think>\n\n$/.test(prompt),
  /** A free generation whose prompt contains `text` (e.g. a tool result). */
  promptContains:
    (text: string): PromptMatcher =>
    (prompt) =>
      prompt.endsWith(GENERATION_PROMPT) && prompt.includes(text),
  /** The primed generation (`<tool_call>\n{"name": "` already written). */
  primed: (): PromptMatcher => QWEN3_PRIMED_PREFIX,
  /** The primed generation for a `{ name }` tool choice. */
  primedFor: (name: string): PromptMatcher => `<tool_call>\n{"name": "${name}", "arguments": `,
  /** Stepwise: picking the tool. */
  select: (): PromptMatcher => SELECT_PREFIX,
  /** Stepwise: the value of argument `key`. */
  argument:
    (key: string): PromptMatcher =>
    (prompt) =>
      prompt.endsWith(`\n${key} = "`) || prompt.endsWith(`\n${key} = `),
  /** The yes/no check before a forced call. */
  gate: (): PromptMatcher => (prompt, options) => Boolean(options.choices?.includes('Yes')) && prompt.includes('Answer yes or no.<|im_end|>'),
  /** An answer round (no tools, told to answer now). */
  answerNow: (): PromptMatcher => endsWithTurn('user', ANSWER_NOW_PROMPT),
};
