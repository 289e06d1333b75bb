/// <reference lib="webworker" />
/**
 * This app's model worker: `serveModelWorker` with ONNX Runtime's WASM files taken from the package
 * by Vite (`?url`), so they are served from the app's own origin.
 */
import ortWasm from 'onnxruntime-web/ort-wasm-simd-threaded.asyncify.wasm?url';
import ortMjs from 'onnxruntime-web/ort-wasm-simd-threaded.asyncify.mjs?url';
// The package's `./worker` entry: the app uses the library as any other app would.
import { serveModelWorker, type ModelWorkerScope } from '../worker/serve-model-worker.ts';

declare const self: DedicatedWorkerGlobalScope;

serveModelWorker(self as unknown as ModelWorkerScope, { wasmPaths: { wasm: ortWasm, mjs: ortMjs } });
