import type { ChatAnswer, ToolCallRecord } from '../loop/types.ts';
import { ToolRegistry } from '../tools/tool-registry.ts';
import type { CheckChat } from './check-chat.ts';
import type { ToolCallCheck } from './tool-call-check.ts';
import { freshToken, selfCheckQuestion, type CheckQuestion } from './check-questions.ts';

export type { ToolCallCheck } from './tool-call-check.ts';

/**
 * Cap on each generation of a check: a correct answer to a check question is one short sentence,
 * and a model that rambles has failed already, so a tight cap keeps a failing check cheap.
 */
export const CHECK_MAX_NEW_TOKENS = 96;

const HINT = 'Try another quantization, or a larger model — below ~0.5B this usually cannot be fixed.';

/** The one-sentence verdict for a check's outcome. */
function checkDetail(who: string, outcome: { called: boolean; grounded: boolean; needed_forcing: boolean }): string {
  if (!outcome.called) return `${who} does not call tools: asked for a code only a tool could give, it answered without calling one. ${HINT}`;
  if (!outcome.grounded) {
    return `${who} calls tools but reports something else than their result, so its answers would look right and be wrong. Do not use it for tools. ${HINT}`;
  }
  if (outcome.needed_forcing)
    return `${who} calls tools and answers from their results, but only once the call is primed; it is closer to the edge than a model that calls on its own.`;
  return `${who} calls tools and answers from their results.`;
}

/** Scores one answer to a check question. */
export function scoreAnswer(
  question: CheckQuestion,
  token: string,
  answer: Pick<ChatAnswer, 'text' | 'calls'>,
): { called: boolean; grounded: boolean; needed_forcing: boolean; call?: ToolCallRecord } {
  const call = answer.calls.find((c) => c.name === question.tool.name && c.status === 'ok');
  return {
    called: Boolean(call),
    grounded: Boolean(call) && answer.text.includes(token),
    needed_forcing: Boolean(call) && call?.source !== 'inline',
    ...(call ? { call } : {}),
  };
}

/**
 * Verifies, on this machine, that the loaded model and quantization really call a tool and answer
 * from its result: registers a throwaway tool that returns a fresh token nothing could guess, asks
 * for it, and checks the token comes back. It runs as a side conversation with its own toolkit, so
 * the chat's tools, history, listeners and metrics are untouched. Costs about one question.
 */
export async function runSelfCheck(chat: CheckChat, random: () => number = Math.random, signal?: AbortSignal): Promise<ToolCallCheck> {
  const question = selfCheckQuestion(random);
  const token = freshToken(random);
  const { model, device, dtype, family } = chat.info;
  const who = `${model} (${dtype} on ${device}, ${family?.label ?? 'unknown'} profile)`;
  const started = performance.now();
  const base = { model, device, dtype, ...(family ? { family } : {}) };
  if (family?.templateProblem) {
    return {
      ...base,
      ok: false,
      called: false,
      grounded: false,
      needed_forcing: false,
      answer: '',
      generations: 0,
      promptTokens: 0,
      newTokens: 0,
      ms: 0,
      detail: `${who} cannot be offered tools: its chat template ${family.templateProblem}. Use a model of a family with tool support.`,
    };
  }
  const tools = new ToolRegistry().tool(question.tool.name, question.tool.description, question.tool.parameters, (args: Record<string, unknown>) =>
    question.result(token, args),
  );
  let answer: ChatAnswer;
  try {
    answer = await chat.chat(question.question, { maxNewTokens: CHECK_MAX_NEW_TOKENS, toolkit: { tools }, isolated: true, ...(signal ? { signal } : {}) });
  } catch (error) {
    // Cancelled is not a verdict: the caller asked to stop checking, the model was not judged.
    if (signal?.aborted) throw error;
    const message = error instanceof Error ? error.message : String(error);
    return {
      ...base,
      ok: false,
      called: false,
      grounded: false,
      needed_forcing: false,
      answer: '',
      detail: `${who} could not be checked: ${message}`,
      generations: 0,
      promptTokens: 0,
      newTokens: 0,
      ms: performance.now() - started,
    };
  }
  const score = scoreAnswer(question, token, answer);
  return {
    ok: score.called && score.grounded,
    called: score.called,
    grounded: score.grounded,
    needed_forcing: score.needed_forcing,
    ...base,
    answer: answer.text,
    detail: checkDetail(who, score),
    generations: answer.metrics.generations,
    promptTokens: answer.metrics.promptTokens,
    newTokens: answer.metrics.newTokens,
    ms: performance.now() - started,
    tokensPerSecond: answer.metrics.tokensPerSecond,
  };
}
