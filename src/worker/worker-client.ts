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
import { deserializeError, isFromWorker, type FromWorker, type PageQuestion, type ToWorker, type WorkerCall } from './protocol.ts';

/** Creates the model worker; tests and bundlers may supply their own. */
export type WorkerFactory = () => ModelWorkerLike;

/**
 * What the chat needs of the model's Web Worker (a DOM `Worker` is one), written out so that a Node project's
 * types need no DOM library.
 */
export interface ModelWorkerLike {
  postMessage(message: unknown): void;
  addEventListener(
    type: 'message' | 'error' | 'messageerror',
    listener: (event: { readonly type: string; readonly data?: unknown; readonly message?: string }) => void,
  ): void;
  terminate(): void;
}

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

/** How a request in flight is served on the page: its events, the worker's questions, and its end, exactly once. */
interface PendingRequest {
  /** Steps, tokens, reasoning and progress of this request. */
  onEvent?(message: FromWorker & { id: number }): void;
  /** The worker's question; what it returns (or throws) goes back as the reply. */
  onAsk?(question: PageQuestion): unknown;
  /** Ends the request with its value or error; later calls do nothing. */
  settle(result: { value?: unknown; error?: Error }): void;
}

/** A listener's error is the listener's: the answer goes on. */
function quietly(listener: () => void): void {
  try {
    listener();
  } catch {
    // Deliberately ignored: see above.
  }
}

/** A hook's return value as data the structured clone can carry (functions and the like dropped, as JSON drops them). */
function plainData(value: unknown): unknown {
  return value === undefined ? undefined : (JSON.parse(JSON.stringify(value)) as unknown);
}

/**
 * Runs answers in a worker that owns the model. The page keeps the tools: the worker asks for
 * each call by message and the page runs it. Every request — an answer, a closed choice, embeddings —
 * goes through one layer: sent with an id, stopped by an `abort` with that id, its questions answered by
 * `reply`, ended by one `done`.
 *
 * Total: every request ends exactly once, with its value or an error — also when a tool handler
 * or the answer-now prompt throws (the worker gets an error result instead), when the worker
 * raises an error or dies (every pending request fails with a {@link ModelWorkerError} and later
 * ones fail at once with the same reason), when a message cannot be read, and on dispose.
 */
class WorkerRunner implements AnswerRunner {
  private nextId = 0;
  private readonly pending = new Map<number, PendingRequest>();
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
      if (isFromWorker(event.data)) this.receive(event.data);
      else
        this.fail(
          new ModelWorkerError(
            `The model worker sent a message this page does not understand (${shown(event.data)}). Try the question again; reload the page if it keeps happening.`,
          ),
          false,
        );
    });
  }

  /** One message of a request in flight, to the request it belongs to. */
  private receive(message: FromWorker): void {
    if (!('id' in message)) return;
    const request = this.pending.get(message.id);
    if (!request) return;
    if (message.kind === 'done') request.settle(message.error ? { error: deserializeError(message.error) } : { value: message.value });
    else if (message.kind === 'ask') this.answer(message.id, message.requestId, () => request.onAsk?.(message.question));
    else request.onEvent?.(message);
  }

  /** Replies to one question of request `id` with what the page's hook gave, or the error it threw. */
  private answer(id: number, requestId: number, hook: () => unknown): void {
    Promise.resolve()
      .then(hook)
      .then(
        (value) => ({ value }),
        (error: unknown) => ({ error: serializeError(error) }),
      )
      .then((reply) => {
        if (this.pending.has(id)) send(this.worker, { kind: 'reply', id, requestId, ...reply });
      });
  }

  /** Ends every pending request with `error`; with `terminal`, no later one may start. */
  private fail(error: ModelWorkerError, terminal: boolean): void {
    if (terminal) {
      this.dead = error;
      this.worker.terminate();
    }
    for (const request of [...this.pending.values()]) request.settle({ error });
  }

  /**
   * Sends one request and resolves with its value when its `done` comes. `signal` sends the worker an
   * abort for it; with `dropOnAbort` the page stops waiting at once (the worker's `done` is then ignored).
   */
  private request(call: WorkerCall, handlers: Omit<PendingRequest, 'settle'> & { signal?: AbortSignal; dropOnAbort?: boolean }): Promise<unknown> {
    if (this.dead) return Promise.reject(this.dead);
    const id = this.nextId++;
    const { signal } = handlers;
    return new Promise<unknown>((resolve, reject) => {
      const onAbort = () => {
        send(this.worker, { kind: 'abort', id });
        if (handlers.dropOnAbort) settle({ error: abortError(signal) });
      };
      const settle = (result: { value?: unknown; error?: Error }) => {
        if (!this.pending.delete(id)) return;
        signal?.removeEventListener('abort', onAbort);
        if (result.error) reject(result.error);
        else resolve(result.value);
      };
      this.pending.set(id, { ...handlers, settle });
      send(this.worker, { kind: 'request', id, call });
      if (signal?.aborted) onAbort();
      else signal?.addEventListener('abort', onAbort, { once: true });
    });
  }

  choose(request: ChoiceRequest, signal?: AbortSignal): Promise<ChoiceResult> {
    return this.request({ method: 'choose', request }, { ...(signal ? { signal } : {}), dropOnAbort: true }) as Promise<ChoiceResult>;
  }

  embed(request: EmbedRequest, onProgress?: (event: EmbedProgress) => void): Promise<EmbedReply> {
    return this.request(
      { method: 'embed', request },
      { onEvent: (message) => message.kind === 'embed-progress' && onProgress?.(message.event) },
    ) as Promise<EmbedReply>;
  }

  async run(request: AnswerRequest, bridge: AnswerBridge): Promise<AnswerOutcome> {
    if (bridge.stopWhen?.length) {
      const error = new ModelWorkerError(
        "Stop conditions written as functions run where the loop runs and cannot reach the model worker. Write them as data instead: { kind: 'tool-called', name }, { kind: 'tool-calls', atLeast } or { kind: 'rounds', atLeast }.",
      );
      return { ok: false, error };
    }
    /** The answer as it arrives: the answer is the fold of these. */
    const steps: Step[] = [];
    try {
      await this.request(
        { method: 'chat', request },
        {
          ...(bridge.signal ? { signal: bridge.signal } : {}),
          onEvent: (message) => {
            if (message.kind === 'step') {
              steps.push(message.step);
              quietly(() => bridge.onStep(message.step));
            } else if (message.kind === 'token') quietly(() => bridge.onToken(message.text));
            else if (message.kind === 'reasoning') quietly(() => bridge.onReasoning?.(message.text));
          },
          onAsk: (question) => askedInAnswer(question, bridge),
        },
      );
      return { ok: true, answer: answerFromSteps(steps) };
    } catch (error) {
      return { ok: false, error };
    }
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

/** What the page answers a question of an answer with: a tool's outcome (a handler that throws becomes an error result), the answer-now prompt, a round's plan. */
function askedInAnswer(question: PageQuestion, bridge: AnswerBridge): unknown {
  switch (question.kind) {
    case 'run-tool': {
      const { name } = question;
      return Promise.resolve()
        .then(() => bridge.runTool(name, question.arguments, { maxResultChars: question.maxResultChars }))
        .catch((error: unknown) => ({
          ok: false as const,
          kind: 'error' as const,
          message: `The tool ${name} failed on the page: ${error instanceof Error ? error.message : String(error)}`,
        }))
        .then((outcome) => cloneable(outcome, name));
    }
    case 'answer-now':
      return bridge.answerNowPrompt?.().catch(() => undefined);
    case 'prepare-step':
      // A plan may hold what the structured clone cannot carry (a function beside the names): sent as JSON sends it.
      return Promise.resolve(bridge.prepareStep?.(question.round)).then(plainData);
  }
}

/** A message the page could not read, shown in its error (the first 80 characters). */
function shown(data: unknown): string {
  try {
    return JSON.stringify(data)?.slice(0, 80) ?? String(data);
  } catch {
    return String(data);
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
  // The factory promises the members this file uses; within it, the DOM's own type reads them.
  const worker = createWorker() as unknown as Worker;
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
