/// <reference lib="webworker" />
/**
 * The model worker: the library's `serveModelWorker`, with ONNX Runtime's WASM files bundled from
 * the package (`?url`) so the page never reaches a CDN.
 */
import ortWasm from 'onnxruntime-web/ort-wasm-simd-threaded.asyncify.wasm?url';
import ortMjs from 'onnxruntime-web/ort-wasm-simd-threaded.asyncify.mjs?url';
import { type ModelWorkerScope, serveModelWorker } from 'browser-llm-nexus/worker';

declare const self: DedicatedWorkerGlobalScope;

serveModelWorker(self as unknown as ModelWorkerScope, { wasmPaths: { wasm: ortWasm, mjs: ortMjs } });
