/**
 * One model turn over a conversation given whole, its calls handed back unrun: what the AI SDK provider runs
 * per SDK step, and what answers an MCP server's sampling request.
 */
import type { ChatMessage, EngineInfo } from '../engine/engine.ts';
import type { ChatDefaults } from '../loop/answer-request.ts';
import type { AnswerRunner } from '../loop/answer-runner.ts';
import type { HandedCall, Step, TokenUsage } from '../loop/step-log.ts';
import type { AnswerMetrics, ChatOptions } from '../loop/types.ts';
import { ToolRegistry } from '../tools/tool-registry.ts';
import type { ParametersInput } from '../tools/tool-schema.ts';
import { buildRequest, preambleOf } from './request-setup.ts';

/** What {@link NexusChat.modelTurn} offers and how. */
export interface ModelTurnOptions
  extends Pick<
    ChatOptions,
    'toolChoice' | 'strategy' | 'maxNewTokens' | 'sampling' | 'repetitionPenalty' | 'enableThinking' | 'systemPrompt' | 'answerPrompt'
  > {
  /** The tools the model may call this turn: a name, a description and a JSON Schema of the arguments each. */
  tools: readonly { name: string; description?: string | undefined; parameters: Readonly<Record<string, unknown>> }[];
  /** The caller's own system message, said after the project's system prompt. */
  instructions?: string | undefined;
  /** Stops the turn; it rejects with an `AbortError`. */
  signal?: AbortSignal | undefined;
  /** Visible text as it is produced (never call markup or thinking). */
  onToken?: (text: string) => void;
  /** The model's reasoning as it is written (thinking on), apart from the answer text. */
  onReasoning?: (text: string) => void;
  /** Each step of the turn as it is appended (generations, rungs, the hand-over). */
  onStep?: (step: Step) => void;
}

/** One model turn: its text, the calls it hands over unrun, and what it cost. */
export interface ModelTurnResult {
  /** Visible text beside the calls, or the whole answer when there are none. */
  text: string;
  /** Calls to the given tools, arguments validated and coerced, ids fresh. */
  calls: readonly HandedCall[];
  /** Calls whose arguments never validated, with the reason: not handed over. */
  dropped: readonly { name: string; message: string }[];
  steps: readonly Step[];
  metrics: AnswerMetrics;
  /** Tokens over every generation of the turn (rungs included). */
  usage: TokenUsage;
}

/**
 * Runs one turn on `runner`: the given tools registered for their schemas only (the caller runs them), the
 * request built as an answer's is, the turn's calls handed over from its `handover` step.
 * @param runner - the model.
 * @param defaults - the chat's prompts and limits.
 * @param messages - the conversation, without a system message.
 * @param options - the tools, how to choose, limits, where the turn streams.
 */
export async function runModelTurn(
  runner: AnswerRunner & { readonly info: EngineInfo },
  defaults: ChatDefaults,
  messages: readonly ChatMessage[],
  options: ModelTurnOptions,
): Promise<ModelTurnResult> {
  const registry = new ToolRegistry();
  for (const tool of options.tools) {
    registry.tool(tool.name, tool.description ?? '', tool.parameters as ParametersInput, () => {
      throw new Error(`${tool.name} is run by the caller of modelTurn, not here.`);
    });
  }
  const { tools: _tools, instructions, signal: _signal, onToken: _onToken, onReasoning: _onReasoning, onStep: _onStep, ...chatOptions } = options;
  const request = await buildRequest({
    defaults,
    info: runner.info,
    registry,
    options: chatOptions,
    history: messages,
    prompt: undefined,
    instructions,
    extra: { callsOnly: true },
  });
  const steps: Step[] = [];
  const outcome = await runner.run(
    { ...request, preamble: preambleOf(request, undefined), asksAnswerNow: false, asksPrepareStep: false },
    {
      ...(options.signal ? { signal: options.signal } : {}),
      runTool: async (name) => ({ ok: false, kind: 'error', message: `${name} is run by the caller of modelTurn.` }),
      onStep: (step) => {
        steps.push(step);
        options.onStep?.(step);
      },
      onToken: (text) => options.onToken?.(text),
      ...(options.onReasoning ? { onReasoning: options.onReasoning } : {}),
    },
  );
  if (!outcome.ok) throw outcome.error;
  const handover = steps.find((step) => step.kind === 'handover');
  return {
    text: outcome.answer.text,
    calls: handover?.kind === 'handover' ? handover.calls : [],
    dropped: handover?.kind === 'handover' ? handover.dropped : [],
    steps,
    metrics: outcome.answer.metrics,
    usage: outcome.answer.totalUsage,
  };
}
