import type { ChatMessage, Engine, EngineInfo, ToolSchema } from '../engine/engine.ts';
import type { EmbedProgress, EmbedReply, EmbedRequest } from '../engine/embedding-model.ts';
import { AnswerRun, type AnswerSettings } from './answer-run.ts';
import { runAnswer, type AnswerHooks } from './chat-loop.ts';
import type { PrepareStepResult } from './prepare-step.ts';
import type { Step } from './step-log.ts';
import { fromStopRule, type StopCondition, type StopRule } from './stop-conditions.ts';
import { toolboxFrom, type ToolRunOutcome } from './toolbox.ts';
import type { ChatAnswer } from './types.ts';
import { CALL_MARKERS } from '../toolcalls/formats.ts';

/** What one answer needs, all of it serializable (it may cross a worker boundary). */
export interface AnswerRequest {
  /** System prompt first, the conversation, the user's new message last. */
  messages: ChatMessage[];
  settings: Omit<AnswerSettings, 'signal'>;
  /** The tools offered, as rendered. */
  schemas: ToolSchema[];
  /** The first call id of this answer is `call_${firstCallNumber}`. */
  firstCallNumber: number;
  /** The page supplies the answer rounds' last user turn (see {@link AnswerBridge.answerNowPrompt}). */
  asksAnswerNow?: boolean;
  /** The page is asked before each tool round what it may call (see {@link AnswerBridge.prepareStep}). */
  asksPrepareStep?: boolean;
  /** Extra stop conditions as data: they cross the worker boundary with the request. */
  stopRules?: StopRule[];
  /**
   * Steps the host took before the loop's first (the `started` record, the tool selection's group
   * choice): the answer's log begins with them, so the answer is its steps from the first.
   */
  preamble?: readonly Step[];
}

/**
 * The page's side of an answer: running tools, hearing the answer, stopping. The answer arrives as
 * its steps and the visible text between them; every event is a projection of the steps (`emitStep`).
 */
export interface AnswerBridge {
  signal?: AbortSignal;
  /** Runs a call on the page; `limits.maxResultChars` is what the model will read of its result. */
  runTool(name: string, args: Record<string, unknown>, limits?: { maxResultChars?: number | undefined }): Promise<ToolRunOutcome>;
  /** Each step, frozen, as it is appended; the last one of an answer is `finished`. */
  onStep(step: Step): void;
  /** Visible answer text as it is produced (never call markup or thinking). */
  onToken(text: string): void;
  /** The model's reasoning as it is written (thinking on), apart from the answer text. */
  onReasoning?(text: string): void;
  /**
   * Extra stop conditions written as functions. They run where the loop runs, so only an
   * in-process runner takes them; a worker runner fails the answer saying so (write them as
   * {@link StopRule} data in `AnswerRequest.stopRules` instead). Never silently dropped.
   */
  stopWhen?: readonly StopCondition[];
  /** The last user turn of the answer rounds, asked for when they start (it may depend on the sources found). */
  answerNowPrompt?: () => Promise<string | undefined>;
  /** Asked before each tool round what it may call; the page holds the steps so far (`onStep`). */
  prepareStep?: (round: number) => Promise<PrepareStepResult | undefined>;
}

/**
 * How an answer ended: the answer, or the error. The conversation it leaves is derived from the steps
 * the bridge heard (`messagesOf`): whole rounds only, so it is consistent either way.
 */
export type AnswerOutcome = { ok: true; answer: ChatAnswer } | { ok: false; error: unknown };

/** A closed choice the chat model makes outside an answer (which kind of tool a message needs). */
export interface ChoiceRequest {
  /** The question as a conversation (system first). */
  messages: ChatMessage[];
  /** The only answers it can give. */
  choices: string[];
}

/** What the model chose, and what the choice cost. */
export interface ChoiceResult {
  choice: string;
  promptTokens: number;
  newTokens: number;
  ms: number;
}

/**
 * Runs answers for a chat. The same interface in-process ({@link engineRunner}) and across a
 * worker boundary, so the facade does not care where the model and the loop live.
 */
export interface AnswerRunner {
  readonly info: EngineInfo;
  run(request: AnswerRequest, bridge: AnswerBridge): Promise<AnswerOutcome>;
  /** Asks the chat model for one of `choices` under a constraint (a few tokens). */
  choose?(request: ChoiceRequest, signal?: AbortSignal): Promise<ChoiceResult>;
  /** Embeds texts with a sentence-embedding model loaded beside the chat model (on the first request). */
  embed?(request: EmbedRequest, onProgress?: (event: EmbedProgress) => void): Promise<EmbedReply>;
  dispose(): Promise<void>;
}

/** What a runner offers besides the engine: an embedding model host (the worker's, or Node's), freed with it. */
export interface RunnerServices {
  embed?: AnswerRunner['embed'];
  dispose?: () => Promise<void>;
}

/** Runs a closed choice on an engine: the question rendered with its generation prompt, decoded under the constraint. */
async function chooseOn(engine: Engine, request: ChoiceRequest, signal?: AbortSignal): Promise<ChoiceResult> {
  const started = performance.now();
  const prompt = await engine.render(request.messages, { addGenerationPrompt: true, enableThinking: false });
  const longest = Math.max(...request.choices.map((c) => c.length));
  const result = await engine.generate(prompt, { choices: request.choices, maxNewTokens: Math.max(4, longest), ...(signal ? { signal } : {}) });
  return { choice: result.text, promptTokens: result.promptTokens, newTokens: result.newTokens, ms: performance.now() - started };
}

/**
 * Every literal the loop's parser reads (its own table, `CALL_MARKERS`). Whoever loads an engine for
 * this loop passes them as `keepMarkers`, so the special tokens among them stay in generated text. It
 * lives with the runner so a page whose loop runs in the worker never downloads the parsers for it.
 */
export const PARSER_MARKERS: readonly string[] = CALL_MARKERS;

/**
 * Runs the loop on `engine` in this realm. Used by `NexusChat.withEngine`, by Node, and inside the
 * worker (where the bridge forwards tool calls and events to the page).
 */
export function engineRunner(engine: Engine, services: RunnerServices = {}): AnswerRunner {
  return {
    choose: (request, signal) => chooseOn(engine, request, signal),
    ...(services.embed ? { embed: services.embed } : {}),
    get info() {
      return engine.info;
    },
    async run(request, bridge) {
      const toolbox = toolboxFrom(request.schemas, (name, args, options) => bridge.runTool(name, args, { maxResultChars: options?.maxResultChars }));
      const settings: AnswerSettings = { ...request.settings, ...(bridge.signal ? { signal: bridge.signal } : {}) };
      const sink = {
        step: (step: Step) => bridge.onStep(step),
        token: (text: string) => bridge.onToken(text),
        reasoning: (text: string) => bridge.onReasoning?.(text),
      };
      const run = new AnswerRun(engine, toolbox, sink, settings, request.messages);
      for (const step of request.preamble ?? []) run.record({ ...step });
      let next = request.firstCallNumber;
      const hooks: AnswerHooks = {
        newCallId: () => `call_${next++}`,
        ...(bridge.stopWhen?.length || request.stopRules?.length
          ? { stopWhen: [...(bridge.stopWhen ?? []), ...(request.stopRules ?? []).map(fromStopRule)] }
          : {}),
        ...(bridge.answerNowPrompt ? { answerNow: bridge.answerNowPrompt } : {}),
        ...(bridge.prepareStep ? { prepareStep: bridge.prepareStep } : {}),
      };
      try {
        return { ok: true, answer: await runAnswer(run, hooks) };
      } catch (error) {
        return { ok: false, error };
      }
    },
    dispose: async () => {
      await services.dispose?.().catch(() => undefined);
      await engine.dispose();
    },
  };
}
