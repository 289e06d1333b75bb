import type { LoadCandidate } from '../engine/device-ladder.ts';
import type { EngineInfo } from '../engine/engine.ts';
import type { LoadAttempt, LoadOptions } from '../engine/load-engine.ts';
import { ModelLoadError, noCandidateLoaded, type ModelSource } from '../engine/model-source.ts';
import type { AnswerBridge, AnswerOutcome, AnswerRequest, AnswerRunner } from '../loop/answer-runner.ts';
import type { ChatEvents } from '../loop/types.ts';
import { deserializeError, type FromWorker, type ToWorker } from './protocol.ts';

/** Creates the model worker; tests and bundlers may supply their own. */
export type WorkerFactory = () => Worker;

/** The default worker, bundled by Vite from this package's source. */
export const defaultWorkerFactory: WorkerFactory = () => new Worker(new URL('./worker-entry.ts', import.meta.url), { type: 'module', name: 'nexus-model' });

/** Options of {@link startWorkerRunner}. */
export interface WorkerLoadOptions extends LoadOptions {
  createWorker?: WorkerFactory;
  /** Called when a candidate starts loading and when one fails (a retry starts a fresh worker). */
  onAttempt?: (attempt: LoadAttempt & { state: 'loading' | 'failed' }) => void;
}

function send(worker: Worker, message: ToWorker): void {
  worker.postMessage(message);
}

/**
 * Runs answers in a worker that owns the model. The page keeps the tools: the worker asks for
 * each call by message and the page runs it.
 */
class WorkerRunner implements AnswerRunner {
  private nextId = 0;

  constructor(
    private readonly worker: Worker,
    readonly info: EngineInfo,
  ) {}

  run(request: AnswerRequest, bridge: AnswerBridge): Promise<AnswerOutcome> {
    const id = this.nextId++;
    return new Promise<AnswerOutcome>((resolve) => {
      const onAbort = () => send(this.worker, { kind: 'abort', id });
      const listener = (event: MessageEvent<FromWorker>) => {
        const message = event.data;
        if (!('id' in message) || message.id !== id) return;
        switch (message.kind) {
          case 'event':
            bridge.emit(message.event, ...(message.args as ChatEvents[typeof message.event]));
            break;
          case 'tool-call':
            void bridge.runTool(message.name, message.arguments).then((outcome) => send(this.worker, { kind: 'tool-result', id, callId: message.callId, outcome }));
            break;
          case 'answer-now-request':
            void (bridge.answerNowPrompt?.() ?? Promise.resolve(undefined)).then((text) =>
              send(this.worker, { kind: 'answer-now', id, requestId: message.requestId, ...(text === undefined ? {} : { text }) }),
            );
            break;
          case 'answer':
          case 'answer-failed':
            this.worker.removeEventListener('message', listener);
            bridge.signal?.removeEventListener('abort', onAbort);
            resolve(message.kind === 'answer' ? { ok: true, answer: message.answer, messages: message.messages } : { ok: false, error: deserializeError(message.error), messages: message.messages });
            break;
        }
      };
      this.worker.addEventListener('message', listener);
      bridge.signal?.addEventListener('abort', onAbort, { once: true });
      send(this.worker, { kind: 'chat', id, request });
      if (bridge.signal?.aborted) onAbort();
    });
  }

  async dispose(): Promise<void> {
    await new Promise<void>((resolve) => {
      const timer = setTimeout(resolve, 2000);
      this.worker.addEventListener('message', (event: MessageEvent<FromWorker>) => {
        if (event.data.kind === 'disposed') {
          clearTimeout(timer);
          resolve();
        }
      });
      send(this.worker, { kind: 'dispose' });
    });
    this.worker.terminate();
  }
}

/** Loads one candidate in a fresh worker; resolves with the worker, or with why it failed. */
function loadInWorker(
  createWorker: WorkerFactory,
  source: ModelSource,
  options: LoadOptions,
  exclude: LoadCandidate[],
  onAttempt: WorkerLoadOptions['onAttempt'],
): Promise<{ ok: true; worker: Worker; info: EngineInfo } | { ok: false; candidate?: LoadCandidate; error: Error; remaining: number }> {
  const worker = createWorker();
  return new Promise((resolve) => {
    worker.addEventListener('error', (event) => {
      worker.terminate();
      resolve({ ok: false, error: new ModelLoadError(`The model worker failed to start: ${event.message || 'unknown error'}.`), remaining: 0 });
    });
    worker.addEventListener('message', (event: MessageEvent<FromWorker>) => {
      const message = event.data;
      if (message.kind === 'progress') options.onProgress?.(message.event);
      else if (message.kind === 'attempt') onAttempt?.({ ...message.candidate, ok: false, state: 'loading' });
      else if (message.kind === 'loaded') resolve({ ok: true, worker, info: message.info });
      else if (message.kind === 'load-failed') {
        worker.terminate();
        resolve({ ok: false, ...(message.candidate ? { candidate: message.candidate } : {}), error: deserializeError(message.error), remaining: message.remaining });
      }
    });
    // Only data crosses to the worker: the callbacks stay here.
    const plain = { ...(options.dtype ? { dtype: options.dtype } : {}), ...(options.device ? { device: options.device } : {}) };
    send(worker, { kind: 'load', source, options: plain, exclude });
  });
}

/**
 * Loads a model in a worker, walking the device/dtype ladder. A candidate that fails is retried
 * in a fresh worker (a failed ONNX session poisons every later load in its realm), and the error
 * names every candidate tried and why.
 */
export async function startWorkerRunner(source: ModelSource, options: WorkerLoadOptions = {}): Promise<AnswerRunner> {
  const createWorker = options.createWorker ?? defaultWorkerFactory;
  const attempts: LoadAttempt[] = [];
  const exclude: LoadCandidate[] = [];
  for (;;) {
    const result = await loadInWorker(createWorker, source, options, exclude, options.onAttempt);
    if (result.ok) return new WorkerRunner(result.worker, result.info);
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
