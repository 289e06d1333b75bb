/// <reference lib="webworker" />
/**
 * The model worker's side: owns tokenizer, model and KV cache, and runs the tool loop, so the page
 * never stutters while tokens are produced. Tool handlers stay on the page; the loop asks for each
 * call by message. One model per worker: a failed load poisons ONNX Runtime in its realm, so the
 * page starts a fresh worker for the next candidate.
 *
 * A consumer's own worker file is two lines:
 *
 * @example
 * // nexus-worker.js
 * import { serveModelWorker } from 'browser-llm-nexus/worker';
 * serveModelWorker(self);
 */
import { env } from '@huggingface/transformers';
import { detectBrowserCapabilities } from '../engine/device-ladder.ts';
import { diagnoseOptions, loadCandidate, planCandidates } from '../engine/load-engine.ts';
import { sourceWideFailure } from '../engine/diagnose-source.ts';
import { embedderHost } from '../engine/embedder-host.ts';
import { reviveError, serializeError, type SerializedError } from '../shared/errors.ts';
import { engineRunner, PARSER_MARKERS, type AnswerRunner } from '../loop/answer-runner.ts';
import type { PrepareStepResult } from '../loop/prepare-step.ts';
import type { ToolRunOutcome } from '../loop/toolbox.ts';
import type { FromWorker, PageQuestion, ToWorker } from './protocol.ts';
import { ortFilesFor, resolveWasmPaths, type OrtPaths } from './ort-files.ts';

export { ORT_WASM_FILES, type OrtFiles, type OrtPaths } from './ort-files.ts';

/** The page's reply to a question of an answer: a value, or the error its hook threw. */
interface PageReply {
  value?: unknown;
  error?: SerializedError;
}

/** Options of {@link serveModelWorker}. */
export interface ModelWorkerOptions {
  /**
   * Where ONNX Runtime's files are served: a folder (ending in `/`) holding the four
   * {@link ORT_WASM_FILES}; one build's two addresses `{ wasm, mjs }` (give the WebGPU build: it
   * runs everywhere); or a build per device `{ wasm: { wasm, mjs }, webgpu: { wasm, mjs } }`.
   * Default: the worker script's own folder — copy the files from `node_modules/onnxruntime-web/dist/`
   * next to it, so the page works offline and never reaches a CDN. A folder without the CPU build's
   * files gets the WebGPU build on the CPU too (slower to start, same answers).
   */
  wasmPaths?: OrtPaths;
  /**
   * CPU threads for the WASM backend. Default: every core (`navigator.hardwareConcurrency`) when the
   * page is cross-origin isolated — threads need SharedArrayBuffer — and 1 otherwise.
   */
  numThreads?: number;
}

/**
 * Said once in the console, from the model worker, where the page is not cross-origin isolated (the
 * worker's text, so the page's own bundle carries none of it).
 */
export const NOT_ISOLATED_WARNING =
  'browser-llm-nexus: this page is not cross-origin isolated, so ONNX Runtime computes WASM on one thread: a model on the CPU answers several times slower than with every core. ' +
  'Serve the page with the headers Cross-Origin-Opener-Policy: same-origin and Cross-Origin-Embedder-Policy: require-corp (or credentialless).';

/** The WASM thread count for a scope: the caller's, else every core where threads can run, else one. */
export function wasmThreads(scope: { crossOriginIsolated?: boolean; navigator?: unknown }, requested?: number): number {
  if (scope.crossOriginIsolated !== true) return 1;
  if (requested !== undefined && Number.isInteger(requested) && requested >= 1) return requested;
  const cores = (scope.navigator as { hardwareConcurrency?: number } | undefined)?.hardwareConcurrency;
  return typeof cores === 'number' && cores >= 1 ? cores : 1;
}

/** What the worker needs of its global scope (a `DedicatedWorkerGlobalScope`). */
export interface ModelWorkerScope {
  readonly location: { readonly href: string };
  readonly navigator: unknown;
  /** True where SharedArrayBuffer (and so WASM threads) is available. */
  readonly crossOriginIsolated?: boolean;
  postMessage(message: unknown): void;
  addEventListener(type: 'message', listener: (event: MessageEvent<ToWorker>) => void): void;
}

/** Serves the page's model requests in this worker: load, chat, tool results, abort. Call it once. */
export function serveModelWorker(scope: ModelWorkerScope = self as unknown as ModelWorkerScope, options: ModelWorkerOptions = {}): void {
  // The ONNX Runtime files come from where the app says (its own origin by default), never a CDN;
  // which build is decided per load, by the device (see `ortFilesFor`).
  const ortFiles = resolveWasmPaths(options.wasmPaths, scope.location.href);
  env.backends.onnx.wasm!.wasmPaths = ortFiles.webgpu;
  // transformers.js would otherwise re-serve ONNX Runtime's .mjs from a blob: URL (to keep it in Cache
  // Storage), which a Content-Security-Policy whose script-src is 'self' refuses; importing it from
  // its own address made no difference to the first answer when measured (issue 16).
  env.useWasmCache = false;
  const defaultThreads = wasmThreads(scope, options.numThreads);
  // `crossOriginIsolated` is false in a page served without COOP/COEP (absent outside a browser: nothing said).
  if (scope.crossOriginIsolated === false) console.warn(NOT_ISOLATED_WARNING);
  env.backends.onnx.wasm!.numThreads = defaultThreads;

  let runner: AnswerRunner | undefined;
  const pendingTools = new Map<number, (outcome: ToolRunOutcome) => void>();
  const pendingAsks = new Map<number, (reply: PageReply) => void>();
  const aborts = new Map<number, AbortController>();
  let nextCallId = 0;

  function post(message: FromWorker): void {
    scope.postMessage(message);
  }

  async function load(message: Extract<ToWorker, { kind: 'load' }>): Promise<void> {
    let candidates: Awaited<ReturnType<typeof planCandidates>>;
    try {
      const caps = await detectBrowserCapabilities(scope.navigator as unknown as Navigator, {
        allowFallbackAdapter: Boolean(message.options.allowFallbackAdapter),
      });
      candidates = (await planCandidates(message.source, caps, message.options)).filter(
        (c) => !message.exclude.some((x) => x.device === c.device && x.dtype === c.dtype),
      );
    } catch (error) {
      post({ kind: 'load-failed', error: serializeError(error), remaining: 0 });
      return;
    }
    const [candidate] = candidates;
    if (!candidate) {
      post({ kind: 'load-failed', error: { name: 'ModelLoadError', message: 'No quantization is left to try.' }, remaining: 0 });
      return;
    }
    post({ kind: 'attempt', candidate });
    // A fresh worker loads each candidate, so ONNX Runtime reads these before its first session.
    env.backends.onnx.wasm!.wasmPaths = await ortFilesFor(candidate.device, ortFiles);
    // A load may ask for its own thread count (a benchmark of one thread against all); a fresh
    // worker loads each candidate, so ONNX Runtime reads it before its first session.
    const threads = message.options.numThreads ? wasmThreads(scope, message.options.numThreads) : defaultThreads;
    env.backends.onnx.wasm!.numThreads = threads;
    try {
      const { family, hubUrl } = message.options;
      // The engine keeps in generated text every special token the loop's parser reads.
      const engine = await loadCandidate(message.source, candidate, {
        onProgress: (event) => post({ kind: 'progress', event }),
        family,
        hubUrl,
        keepMarkers: PARSER_MARKERS,
      });
      // The tool-search model runs on WASM beside the chat model, loaded on its first request.
      const embedders = embedderHost('wasm');
      runner = engineRunner(engine, { embed: (request, onProgress) => embedders.embed(request, onProgress), dispose: () => embedders.dispose() });
      post({ kind: 'loaded', info: candidate.device === 'wasm' ? { ...engine.info, threads } : engine.info, candidate });
    } catch (error) {
      // Asked once, here: an unreachable hub or a missing model would fail every other candidate too.
      const wide = await sourceWideFailure(message.source, error, diagnoseOptions(message.options)).catch(() => undefined);
      if (wide) post({ kind: 'load-failed', candidate, error: serializeError(wide), remaining: 0, final: true });
      else post({ kind: 'load-failed', candidate, error: serializeError(error), remaining: candidates.length - 1 });
    }
  }

  /** Pending page requests of one answer: each gets exactly one reply, or is ended when the answer ends. */
  interface AnswerRequests {
    tools: Map<number, (outcome: ToolRunOutcome) => void>;
    asks: Map<number, (reply: PageReply) => void>;
  }

  const requestsOf = new Map<number, AnswerRequests>();

  async function chat(message: Extract<ToWorker, { kind: 'chat' }>): Promise<void> {
    const { id } = message;
    if (!runner) {
      post({ kind: 'answer-failed', id, error: { name: 'ModelLoadError', message: 'No model is loaded in this worker.' } });
      return;
    }
    const controller = new AbortController();
    aborts.set(id, controller);
    const requests: AnswerRequests = { tools: new Map(), asks: new Map() };
    requestsOf.set(id, requests);
    /** Asks the page a question of this answer and waits for its one reply (an abort replies with nothing). */
    const ask = (question: PageQuestion) =>
      new Promise<PageReply>((resolve) => {
        const requestId = nextCallId++;
        requests.asks.set(requestId, resolve);
        pendingAsks.set(requestId, resolve);
        post({ kind: 'ask', id, requestId, question });
      });
    const { asksAnswerNow, asksPrepareStep } = message.request;
    try {
      const outcome = await runner.run(message.request, {
        signal: controller.signal,
        onStep: (step) => post({ kind: 'step', id, step }),
        onToken: (text) => post({ kind: 'token', id, text }),
        onReasoning: (text) => post({ kind: 'reasoning', id, text }),
        runTool: (name, args, limits) =>
          new Promise<ToolRunOutcome>((resolve) => {
            const callId = nextCallId++;
            requests.tools.set(callId, resolve);
            pendingTools.set(callId, resolve);
            post({ kind: 'tool-call', id, callId, name, arguments: args, ...(limits?.maxResultChars ? { maxResultChars: limits.maxResultChars } : {}) });
          }),
        ...(asksAnswerNow
          ? {
              answerNowPrompt: async () => {
                const { value } = await ask({ kind: 'answer-now' });
                return typeof value === 'string' ? value : undefined;
              },
            }
          : {}),
        ...(asksPrepareStep
          ? {
              prepareStep: async (round: number) => {
                const reply = await ask({ kind: 'prepare-step', round });
                // The page's hook threw: the answer fails with its error, as it would in-process.
                if (reply.error) throw reviveError(reply.error);
                return reply.value as PrepareStepResult | undefined;
              },
            }
          : {}),
      });
      // A finished answer was its last step; only a failure needs a message of its own.
      if (!outcome.ok) post({ kind: 'answer-failed', id, error: serializeError(outcome.error) });
    } catch (error) {
      // Whatever went wrong, the page hears of it: an answer never stays pending.
      post({ kind: 'answer-failed', id, error: serializeError(error) });
    } finally {
      aborts.delete(id);
      for (const [callId, resolve] of requests.tools) {
        pendingTools.delete(callId);
        resolve({ ok: false, kind: 'error', message: 'The answer ended before the tool result came back.' });
      }
      for (const [requestId, resolve] of requests.asks) {
        pendingAsks.delete(requestId);
        resolve({});
      }
      requestsOf.delete(id);
    }
  }

  /** A side request (a closed choice, embeddings): one reply, `request-failed` with the error otherwise. */
  async function reply(id: number, work: (runner: AnswerRunner) => Promise<FromWorker>): Promise<void> {
    try {
      if (!runner) throw new Error('No model is loaded in this worker.');
      post(await work(runner));
    } catch (error) {
      post({ kind: 'request-failed', id, error: serializeError(error) });
    }
  }

  /** Settles one pending request of an answer, once. */
  function settle<T>(pending: Map<number, (value: T) => void>, key: number, value: T): void {
    const resolve = pending.get(key);
    if (!resolve) return;
    pending.delete(key);
    for (const requests of requestsOf.values()) {
      requests.tools.delete(key);
      requests.asks.delete(key);
    }
    resolve(value);
  }

  scope.addEventListener('message', (event: MessageEvent<ToWorker>) => {
    const message = event.data;
    if (typeof message !== 'object' || message === null) return;
    switch (message.kind) {
      case 'load':
        void load(message);
        break;
      case 'chat':
        void chat(message);
        break;
      case 'tool-result':
        settle(pendingTools, message.callId, message.outcome);
        break;
      case 'reply':
        settle(pendingAsks, message.requestId, { value: message.value, ...(message.error ? { error: message.error } : {}) });
        break;
      case 'abort': {
        aborts.get(message.id)?.abort();
        // A stopped answer does not wait for the page's pending tool results.
        const requests = requestsOf.get(message.id);
        for (const callId of [...(requests?.tools.keys() ?? [])]) settle(pendingTools, callId, { ok: false, kind: 'error', message: 'Stopped.' });
        for (const requestId of [...(requests?.asks.keys() ?? [])]) settle(pendingAsks, requestId, {});
        break;
      }
      case 'choose': {
        const { id, request } = message;
        void reply(id, async (r) => {
          if (!r.choose) throw new Error('This worker cannot make a closed choice.');
          return { kind: 'chosen', id, result: await r.choose(request) };
        });
        break;
      }
      case 'embed': {
        const { id, request } = message;
        void reply(id, async (r) => {
          if (!r.embed) throw new Error('This worker cannot run an embedding model.');
          return { kind: 'embedded', id, reply: await r.embed(request, (event) => post({ kind: 'embed-progress', id, event })) };
        });
        break;
      }
      case 'dispose':
        void (runner?.dispose() ?? Promise.resolve()).finally(() => {
          runner = undefined;
          post({ kind: 'disposed' });
        });
        break;
    }
  });
}
