import type { EngineInfo } from '../engine/engine.ts';
import type { LoadCandidate } from '../engine/device-ladder.ts';
import type { LoadOptions } from '../engine/load-engine.ts';
import type { ModelSource } from '../engine/model-source.ts';
import type { LoadProgress } from '../engine/transformers-engine.ts';
import { reviveError, type SerializedError } from '../shared/errors.ts';
import type { AnswerRequest, ChoiceRequest } from '../loop/answer-runner.ts';
import type { EmbedProgress, EmbedRequest } from '../engine/embedding-model.ts';
import type { Step } from '../loop/step-log.ts';

/**
 * What the worker asks the page while it serves a request (only an answer asks): a tool run (the tools stay on
 * the page), the answer-now prompt, the plan of a round. The page replies to each with one `reply`.
 */
export type PageQuestion =
  | { kind: 'run-tool'; name: string; arguments: Record<string, unknown>; maxResultChars?: number }
  | { kind: 'answer-now' }
  | { kind: 'prepare-step'; round: number };

/** What the page asks the worker to do with its model: an answer, a closed choice, embeddings. */
export type WorkerCall = { method: 'chat'; request: AnswerRequest } | { method: 'choose'; request: ChoiceRequest } | { method: 'embed'; request: EmbedRequest };

/** Every message the page sends the worker. */
export type ToWorker =
  | { kind: 'load'; source: ModelSource; options: Omit<LoadOptions, 'onProgress'>; exclude: LoadCandidate[] }
  /** A request, by an id the page chose: events may follow, and it ends with exactly one `done`. */
  | { kind: 'request'; id: number; call: WorkerCall }
  /** Stops request `id`, whatever it is (an answer, a choice, embeddings): its `done` follows. */
  | { kind: 'abort'; id: number }
  /** The page's reply to an `ask` of request `id`: its value, or the error its hook threw. */
  | { kind: 'reply'; id: number; requestId: number; value?: unknown; error?: SerializedError }
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
  /** One step of an answer, as appended (the answer is the fold of its steps). */
  | { kind: 'step'; id: number; step: Step }
  /** Visible answer text between steps. */
  | { kind: 'token'; id: number; text: string }
  /** The model's reasoning as it is written, apart from the answer text. */
  | { kind: 'reasoning'; id: number; text: string }
  | { kind: 'embed-progress'; id: number; event: EmbedProgress }
  /** A question of request `id` to the page, answered by one `reply` with the same `requestId`. */
  | { kind: 'ask'; id: number; requestId: number; question: PageQuestion }
  /** The end of request `id`: its value (a choice, embeddings; an answer's is its steps), or why it failed. */
  | { kind: 'done'; id: number; value?: unknown; error?: SerializedError }
  | { kind: 'disposed' };

/**
 * Rebuilds an error that crossed the boundary: an instance of its named class where the class is
 * registered (see `registerErrorClass`), so `instanceof` works in the page as in Node; an abort
 * becomes a real `AbortError`.
 */
export function deserializeError(error: SerializedError): Error {
  return reviveError(error);
}

/** The kinds that belong to one request of the page, by its `id`. */
const REQUEST_KINDS: ReadonlySet<string> = new Set(['step', 'token', 'reasoning', 'embed-progress', 'ask', 'done']);

const FROM_WORKER_KINDS: ReadonlySet<string> = new Set(['progress', 'attempt', 'loaded', 'load-failed', 'disposed', ...REQUEST_KINDS]);

/**
 * True for a message of the {@link FromWorker} union: an object with a known `kind` and, for the
 * kinds of a request, a numeric `id`. Anything else is garbage the page refuses to act on.
 */
export function isFromWorker(data: unknown): data is FromWorker {
  if (typeof data !== 'object' || data === null) return false;
  const kind = (data as { kind?: unknown }).kind;
  if (typeof kind !== 'string' || !FROM_WORKER_KINDS.has(kind)) return false;
  if (REQUEST_KINDS.has(kind) && typeof (data as { id?: unknown }).id !== 'number') return false;
  if (kind === 'step' && typeof (data as { step?: { kind?: unknown } }).step?.kind !== 'string') return false;
  if ((kind === 'token' || kind === 'reasoning') && typeof (data as { text?: unknown }).text !== 'string') return false;
  return true;
}
