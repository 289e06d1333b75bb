import type { EngineInfo } from '../engine/engine.ts';
import type { LoadCandidate } from '../engine/device-ladder.ts';
import type { LoadOptions } from '../engine/load-engine.ts';
import type { ModelSource } from '../engine/model-source.ts';
import type { LoadProgress } from '../engine/transformers-engine.ts';
import { reviveError, type SerializedError } from '../shared/errors.ts';
import type { AnswerRequest, ChoiceRequest, ChoiceResult } from '../loop/answer-runner.ts';
import type { EmbedProgress, EmbedReply, EmbedRequest } from '../engine/embedding-model.ts';
import type { Step } from '../loop/step-log.ts';
import type { ToolRunOutcome } from '../loop/toolbox.ts';

/** What the worker asks the page during an answer, besides running a tool. */
export type PageQuestion = { kind: 'answer-now' } | { kind: 'prepare-step'; round: number };

/** Every message the page sends the worker. */
export type ToWorker =
  | { kind: 'load'; source: ModelSource; options: Omit<LoadOptions, 'onProgress'>; exclude: LoadCandidate[] }
  | { kind: 'chat'; id: number; request: AnswerRequest }
  | { kind: 'tool-result'; id: number; callId: number; outcome: ToolRunOutcome }
  | { kind: 'abort'; id: number }
  /** The page's reply to an `ask`: its value, or the error its hook threw. */
  | { kind: 'reply'; id: number; requestId: number; value?: unknown; error?: SerializedError }
  | { kind: 'choose'; id: number; request: ChoiceRequest }
  | { kind: 'embed'; id: number; request: EmbedRequest }
  | { kind: 'dispose' };

/** Every message the worker sends the page. */
export type FromWorker =
  | { kind: 'progress'; event: LoadProgress }
  | { kind: 'attempt'; candidate: LoadCandidate }
  | { kind: 'loaded'; info: EngineInfo; candidate: LoadCandidate }
  | {
      kind: 'load-failed';
      candidate?: LoadCandidate;
      error: SerializedError;
      remaining: number /** The source itself failed: no other candidate is worth a try. */;
      final?: boolean;
    }
  /** One step of an answer, as appended; a `finished` step ends the answer (it is the fold of its steps). */
  | { kind: 'step'; id: number; step: Step }
  /** Visible answer text between steps. */
  | { kind: 'token'; id: number; text: string }
  /** The model's reasoning as it is written, apart from the answer text. */
  | { kind: 'reasoning'; id: number; text: string }
  | { kind: 'tool-call'; id: number; callId: number; name: string; arguments: Record<string, unknown>; maxResultChars?: number }
  | { kind: 'ask'; id: number; requestId: number; question: PageQuestion }
  | { kind: 'answer-failed'; id: number; error: SerializedError }
  | { kind: 'chosen'; id: number; result: ChoiceResult }
  | { kind: 'embed-progress'; id: number; event: EmbedProgress }
  | { kind: 'embedded'; id: number; reply: EmbedReply }
  | { kind: 'request-failed'; id: number; error: SerializedError }
  | { kind: 'disposed' };

/**
 * Rebuilds an error that crossed the boundary: an instance of its named class where the class is
 * registered (see `registerErrorClass`), so `instanceof` works in the page as in Node; an abort
 * becomes a real `AbortError`.
 */
export function deserializeError(error: SerializedError): Error {
  return reviveError(error);
}

const FROM_WORKER_KINDS: ReadonlySet<string> = new Set([
  'progress',
  'attempt',
  'loaded',
  'load-failed',
  'step',
  'token',
  'reasoning',
  'tool-call',
  'ask',
  'answer-failed',
  'chosen',
  'embed-progress',
  'embedded',
  'request-failed',
  'disposed',
]);

/** The kinds that answer one request of the page, by its `id`. */
const ANSWER_KINDS: ReadonlySet<string> = new Set([
  'step',
  'token',
  'reasoning',
  'tool-call',
  'ask',
  'answer-failed',
  'chosen',
  'embed-progress',
  'embedded',
  'request-failed',
]);

/**
 * True for a message of the {@link FromWorker} union: an object with a known `kind` and, for the
 * kinds of an answer, a numeric `id`. Anything else is garbage the page refuses to act on.
 */
export function isFromWorker(data: unknown): data is FromWorker {
  if (typeof data !== 'object' || data === null) return false;
  const kind = (data as { kind?: unknown }).kind;
  if (typeof kind !== 'string' || !FROM_WORKER_KINDS.has(kind)) return false;
  if (ANSWER_KINDS.has(kind) && typeof (data as { id?: unknown }).id !== 'number') return false;
  if (kind === 'step' && typeof (data as { step?: { kind?: unknown } }).step?.kind !== 'string') return false;
  if ((kind === 'token' || kind === 'reasoning') && typeof (data as { text?: unknown }).text !== 'string') return false;
  return true;
}
