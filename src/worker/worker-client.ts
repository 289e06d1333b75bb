import type { LoadCandidate } from '../engine/device-ladder.ts';
import type { EngineInfo } from '../engine/engine.ts';
import type { LoadAttempt, LoadOptions } from '../engine/load-engine.ts';
import { ModelLoadError, noCandidateLoaded, type ModelSource } from '../engine/model-source.ts';
import type { AnswerBridge, AnswerOutcome, AnswerRequest, AnswerRunner, ChoiceRequest, ChoiceResult } from '../loop/answer-runner.ts';
import type { EmbedProgress, EmbedReply, EmbedRequest } from '../engine/embedding-model.ts';
import type { ToolRunOutcome } from '../loop/toolbox.ts';
import { answerFromSteps, type Step } from '../loop/step-log.ts';
import { abortError } from '../shared/abort.ts';
import { ModelWorkerError, serializeError } from '../shared/errors.ts';
import { deserializeError, isFromWorker, type FromWorker, type ToWorker } from './protocol.ts';

/** Creates the model worker; tests and bundlers may supply their own. */
export type WorkerFactory = () => Worker;

let configuredFactory: WorkerFactory | undefined;

/**
 * Sets the model worker that `NexusChat.load` and `loadForTools` start when they are not given a
 * `createWorker`: a worker file of your app that calls `serveModelWorker(self)`.
 *
 * @example
 * useModelWorker(() => new Worker(new URL('./nexus-worker.js', import.meta.url), { type: 'module' }));
 */
export function useModelWorker(factory: WorkerFactory): void {
  configuredFactory = factory;
}

/** Said when a browser load has no worker to start. */
export const NO_WORKER_MESSAGE =
  'No model worker is configured. Write a worker file that calls serveModelWorker(self) (from browser-llm-nexus/worker), then ' +
  "pass createWorker: () => new Worker(new URL('./nexus-worker.js', import.meta.url), { type: 'module' }) to NexusChat.load, or call useModelWorker() once with that function.";

/** Options of {@link startWorkerRunner}. */
export interface WorkerLoadOptions extends LoadOptions {
  createWorker?: WorkerFactory;
  /** Called when a candidate starts loading and when one fails (a retry starts a fresh worker). */
  onAttempt?: (attempt: LoadAttempt & { state: 'loading' | 'failed' }) => void;
}

export { ModelWorkerError };

function send(worker: Worker, message: ToWorker): void {
  try {
    worker.postMessage(message);
  } catch {
    // A terminated worker: the pending answer is failed by whoever terminated it.
  }
}

/** An answer in flight: how to end it, exactly once. */
interface PendingAnswer {
  finish(outcome: AnswerOutcome): void;
}

/** A listener's error is the listener's: the answer goes on. */
function quietly(listener: () => void): void {
  try {
    listener();
  } catch {
    // Reported nowhere on purpose: the page's own listeners report their errors.
  }
}

/** A hook's return value as data the structured clone can carry (functions and the like dropped, as JSON drops them). */
function plainData(value: unknown): unknown {
  return value === undefined ? undefined : (JSON.parse(JSON.stringify(value)) as unknown);
}

/**
 * Runs answers in a worker that owns the model. The page keeps the tools: the worker asks for
 * each call by message and the page runs it.
 *
 * Total: every answer ends exactly once, with the answer or an error — also when a tool handler
 * or the answer-now prompt throws (the worker gets an error result instead), when the worker
 * raises an error or dies (every pending answer fails with a {@link ModelWorkerError} and later
 * answers fail at once with the same reason), when a message cannot be read, and on dispose.
 */
class WorkerRunner implements AnswerRunner {
  private nextId = 0;
  private readonly pending = new Map<number, PendingAnswer>();
  /** Side requests in flight (a closed choice, embeddings), by id. */
  private readonly requests = new Map<
    number,
    { resolve(value: unknown): void; reject(error: Error): void; onProgress?: ((event: EmbedProgress) => void) | undefined }
  >();
  /** Why this worker can run no more answers, once it cannot. */
  private dead: ModelWorkerError | undefined;

  constructor(
    private readonly worker: Worker,
    readonly info: EngineInfo,
  ) {
    worker.addEventListener('error', (event) => {
      const detail = (event as ErrorEvent).message || 'an unknown error';
      this.fail(new ModelWorkerError(`The model worker stopped with ${detail}. Load the model again to go on; the conversation is kept.`), true);
    });
    worker.addEventListener('messageerror', () => {
      this.fail(
        new ModelWorkerError('A message from the model worker could not be read (it did not survive structured cloning). Try the question again.'),
        false,
      );
    });
    worker.addEventListener('message', (event: MessageEvent<unknown>) => {
      if (isFromWorker(event.data) && 'id' in event.data && this.requests.has(event.data.id)) this.settleRequest(event.data);
      if (!isFromWorker(event.data)) {
        const shown = (() => {
          try {
            return JSON.stringify(event.data)?.slice(0, 80) ?? String(event.data);
          } catch {
            return String(event.data);
          }
        })();
        this.fail(
          new ModelWorkerError(
            `The model worker sent a message this page does not understand (${shown}). Try the question again; reload the page if it keeps happening.`,
          ),
          false,
        );
      }
    });
  }

  /** Ends every pending answer with `error`; with `terminal`, no later answer may start. */
  private fail(error: ModelWorkerError, terminal: boolean): void {
    if (terminal) {
      this.dead = error;
      this.worker.terminate();
    }
    for (const [id, answer] of [...this.pending]) {
      this.pending.delete(id);
      answer.finish({ ok: false, error });
    }
    for (const [id, request] of [...this.requests]) {
      this.requests.delete(id);
      request.reject(error);
    }
  }

  /** Ends a side request with the worker's reply (a progress event only reports). */
  private settleRequest(message: FromWorker & { id: number }): void {
    const request = this.requests.get(message.id);
    if (!request) return;
    if (message.kind === 'embed-progress') {
      request.onProgress?.(message.event);
      return;
    }
    const value = message.kind === 'chosen' ? message.result : message.kind === 'embedded' ? message.reply : undefined;
    if (value === undefined && message.kind !== 'request-failed') return;
    this.requests.delete(message.id);
    if (message.kind === 'request-failed') request.reject(deserializeError(message.error));
    else request.resolve(value);
  }

  /** Sends one side request and waits for its one reply. */
  private ask<T>(make: (id: number) => ToWorker, onProgress?: (event: EmbedProgress) => void, signal?: AbortSignal): Promise<T> {
    if (this.dead) return Promise.reject(this.dead);
    const id = this.nextId++;
    return new Promise<T>((resolve, reject) => {
      // The worker's reply after an abort is dropped: the caller has moved on.
      const onAbort = () => {
        if (this.requests.delete(id)) reject(abortError(signal));
      };
      const settled =
        <V>(finish: (value: V) => void) =>
        (value: V) => {
          signal?.removeEventListener('abort', onAbort);
          finish(value);
        };
      this.requests.set(id, { resolve: settled(resolve as (value: unknown) => void), reject: settled(reject), onProgress });
      if (signal?.aborted) return onAbort();
      signal?.addEventListener('abort', onAbort, { once: true });
      send(this.worker, make(id));
    });
  }

  choose(request: ChoiceRequest, signal?: AbortSignal): Promise<ChoiceResult> {
    return this.ask((id) => ({ kind: 'choose', id, request }), undefined, signal);
  }

  embed(request: EmbedRequest, onProgress?: (event: EmbedProgress) => void): Promise<EmbedReply> {
    return this.ask((id) => ({ kind: 'embed', id, request }), onProgress);
  }

  run(request: AnswerRequest, bridge: AnswerBridge): Promise<AnswerOutcome> {
    if (this.dead) return Promise.resolve({ ok: false, error: this.dead });
    if (bridge.stopWhen?.length) {
      // Functions cannot cross to the worker; dropping them would let the answer run past them.
      const error = new ModelWorkerError(
        "Stop conditions written as functions run where the loop runs and cannot reach the model worker. Write them as data instead: { kind: 'tool-called', name }, { kind: 'tool-calls', atLeast } or { kind: 'rounds', atLeast }.",
      );
      return Promise.resolve({ ok: false, error });
    }
    const id = this.nextId++;
    return new Promise<AnswerOutcome>((resolve) => {
      let done = false;
      /** The answer as it arrives: a `finished` step ends it, and the answer is the fold of these. */
      const steps: Step[] = [];
      const onAbort = () => send(this.worker, { kind: 'abort', id });
      const finish = (outcome: AnswerOutcome): void => {
        if (done) return;
        done = true;
        this.pending.delete(id);
        this.worker.removeEventListener('message', listener);
        bridge.signal?.removeEventListener('abort', onAbort);
        resolve(outcome);
      };
      /** Replies to one question of the answer with what the page's hook gave, or the error it threw. */
      const answer = (requestId: number, hook: () => unknown) => {
        Promise.resolve()
          .then(hook)
          .then(plainData)
          .then(
            (value) => ({ value }),
            (error: unknown) => ({ error: serializeError(error) }),
          )
          .then((reply) => {
            if (!done) send(this.worker, { kind: 'reply', id, requestId, ...reply });
          });
      };
      const listener = (event: MessageEvent<unknown>) => {
        const message = event.data;
        if (!isFromWorker(message) || !('id' in message) || message.id !== id) return;
        switch (message.kind) {
          case 'step':
            steps.push(message.step);
            quietly(() => bridge.onStep(message.step));
            if (message.step.kind === 'finished') finish({ ok: true, answer: answerFromSteps(steps) });
            break;
          case 'token':
            quietly(() => bridge.onToken(message.text));
            break;
          case 'reasoning':
            quietly(() => bridge.onReasoning?.(message.text));
            break;
          case 'tool-call': {
            const { callId, name } = message;
            Promise.resolve()
              .then(() => bridge.runTool(name, message.arguments, { maxResultChars: message.maxResultChars }))
              .catch((error: unknown) => ({
                ok: false as const,
                kind: 'error' as const,
                message: `The tool ${name} failed on the page: ${error instanceof Error ? error.message : String(error)}`,
              }))
              .then((outcome) => {
                if (!done) send(this.worker, { kind: 'tool-result', id, callId, outcome: cloneable(outcome, name) });
              });
            break;
          }
          case 'ask': {
            const { question, requestId } = message;
            if (question.kind === 'answer-now') answer(requestId, () => bridge.answerNowPrompt?.().catch(() => undefined));
            else answer(requestId, () => bridge.prepareStep?.(question.round));
            break;
          }
          case 'answer-failed':
            finish({ ok: false, error: deserializeError(message.error) });
            break;
        }
      };
      this.pending.set(id, { finish });
      this.worker.addEventListener('message', listener);
      bridge.signal?.addEventListener('abort', onAbort, { once: true });
      send(this.worker, { kind: 'chat', id, request });
      if (bridge.signal?.aborted) onAbort();
    });
  }

  async dispose(): Promise<void> {
    this.fail(new ModelWorkerError('The model was unloaded while this answer was running.'), false);
    if (!this.dead) {
      await new Promise<void>((resolve) => {
        const timer = setTimeout(resolve, 2000);
        this.worker.addEventListener('message', (event: MessageEvent<FromWorker>) => {
          if (event.data?.kind === 'disposed') {
            clearTimeout(timer);
            resolve();
          }
        });
        send(this.worker, { kind: 'dispose' });
      });
    }
    this.dead ??= new ModelWorkerError('The model was unloaded. Load it again to go on.');
    this.worker.terminate();
  }
}

/** A tool outcome the structured clone can carry: a value it cannot clone becomes an error result naming the tool. */
function cloneable(outcome: ToolRunOutcome, name: string): ToolRunOutcome {
  try {
    structuredClone(outcome);
    return outcome;
  } catch {
    return {
      ok: false,
      kind: 'error',
      message: `The tool ${name} returned a value that cannot be sent to the model worker (functions, DOM nodes…). Return plain data.`,
    };
  }
}

/** Loads one candidate in a fresh worker; resolves with the worker, or with why it failed. */
function loadInWorker(
  createWorker: WorkerFactory,
  source: ModelSource,
  options: LoadOptions,
  exclude: LoadCandidate[],
  onAttempt: WorkerLoadOptions['onAttempt'],
): Promise<{ ok: true; worker: Worker; info: EngineInfo } | { ok: false; candidate?: LoadCandidate; error: Error; remaining: number; final?: boolean }> {
  const worker = createWorker();
  return new Promise((resolve) => {
    const { signal } = options;
    const onAbort = () => {
      // Downloads and compilation stop with the worker; nothing of this attempt is kept.
      worker.terminate();
      resolve({ ok: false, error: abortError(signal), remaining: 0, final: true });
    };
    if (signal?.aborted) return onAbort();
    signal?.addEventListener('abort', onAbort, { once: true });
    worker.addEventListener('error', (event) => {
      worker.terminate();
      resolve({ ok: false, error: new ModelLoadError(`The model worker failed to start: ${event.message || 'unknown error'}.`), remaining: 0 });
    });
    worker.addEventListener('message', (event: MessageEvent<FromWorker>) => {
      const message = event.data;
      if (message.kind === 'progress') options.onProgress?.(message.event);
      else if (message.kind === 'attempt') onAttempt?.({ ...message.candidate, ok: false, state: 'loading' });
      else if (message.kind === 'loaded') {
        signal?.removeEventListener('abort', onAbort);
        resolve({ ok: true, worker, info: message.info });
      } else if (message.kind === 'load-failed') {
        signal?.removeEventListener('abort', onAbort);
        worker.terminate();
        resolve({
          ok: false,
          ...(message.candidate ? { candidate: message.candidate } : {}),
          error: deserializeError(message.error),
          remaining: message.remaining,
          final: message.final ?? false,
        });
      }
    });
    // Only data crosses to the worker: the callbacks stay here.
    const plain = {
      ...(options.dtype ? { dtype: options.dtype } : {}),
      ...(options.device ? { device: options.device } : {}),
      ...(options.family ? { family: options.family } : {}),
      ...(options.allowFallbackAdapter ? { allowFallbackAdapter: true } : {}),
      ...(options.hubUrl ? { hubUrl: options.hubUrl } : {}),
      ...(options.numThreads ? { numThreads: options.numThreads } : {}),
    };
    send(worker, { kind: 'load', source, options: plain, exclude });
  });
}

/**
 * Loads a model in a worker, walking the device/dtype ladder. A candidate that fails is retried
 * in a fresh worker (a failed ONNX session poisons every later load in its realm), and the error
 * names every candidate tried and why.
 */
export async function startWorkerRunner(source: ModelSource, options: WorkerLoadOptions = {}): Promise<AnswerRunner> {
  const createWorker = options.createWorker ?? configuredFactory;
  if (!createWorker) throw new ModelLoadError(NO_WORKER_MESSAGE);
  const attempts: LoadAttempt[] = [];
  const exclude: LoadCandidate[] = [];
  for (;;) {
    const result = await loadInWorker(createWorker, source, options, exclude, options.onAttempt);
    if (result.ok) return new WorkerRunner(result.worker, result.info);
    // The source itself failed: said as it is, not wrapped in a list of quantizations.
    if (result.final) throw result.error;
    if (!result.candidate) {
      if (attempts.length === 0) throw result.error;
      break;
    }
    const attempt = { ...result.candidate, ok: false, error: result.error.message };
    attempts.push(attempt);
    options.onAttempt?.({ ...attempt, state: 'failed' });
    exclude.push(result.candidate);
    if (result.remaining === 0) break;
  }
  throw noCandidateLoaded(source, attempts);
}
