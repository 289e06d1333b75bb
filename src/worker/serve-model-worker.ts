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
import { serializeError } from '../shared/errors.ts';
import { engineRunner, PARSER_MARKERS, type AnswerRunner } from '../loop/answer-runner.ts';
import type { FromWorker, ToWorker } from './protocol.ts';
import { RequestServer } from './request-server.ts';
import { ortFilesFor, resolveWasmPaths, type OrtPaths } from './ort-files.ts';

export { ORT_WASM_FILES, type OrtFiles, type OrtPaths } from './ort-files.ts';

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

/** Serves the page's model requests in this worker: the load here, every request after it through one {@link RequestServer}. Call it once. */
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
  const requests = new RequestServer({ post: (message) => scope.postMessage(message), runner: () => runner });

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

  scope.addEventListener('message', (event: MessageEvent<ToWorker>) => {
    const message = event.data;
    if (typeof message !== 'object' || message === null) return;
    switch (message.kind) {
      case 'load':
        void load(message);
        break;
      case 'request':
      case 'reply':
      case 'abort':
        requests.receive(message);
        break;
      case 'dispose':
        void (runner?.dispose() ?? Promise.resolve()).finally(() => {
          runner = undefined;
          post({ kind: 'disposed' });
        });
        break;
    }
  });
}
