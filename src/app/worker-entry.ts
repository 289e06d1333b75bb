/// <reference lib="webworker" />
/**
 * This app's model worker: `serveModelWorker` with ONNX Runtime's two builds taken from the package
 * by Vite (`?url`), so they are served from the app's own origin: the plain one for models on the
 * CPU (it starts in about half the time), the WebGPU one for models on a GPU.
 */
import ortCpuWasm from 'onnxruntime-web/ort-wasm-simd-threaded.wasm?url';
import ortCpuMjs from 'onnxruntime-web/ort-wasm-simd-threaded.mjs?url';
import ortGpuWasm from 'onnxruntime-web/ort-wasm-simd-threaded.asyncify.wasm?url';
import ortGpuMjs from 'onnxruntime-web/ort-wasm-simd-threaded.asyncify.mjs?url';
// The package's `./worker` entry: the app uses the library as any other app would.
import { serveModelWorker, type ModelWorkerScope } from '../worker/serve-model-worker.ts';

declare const self: DedicatedWorkerGlobalScope;

serveModelWorker(self as unknown as ModelWorkerScope, {
  wasmPaths: { wasm: { wasm: ortCpuWasm, mjs: ortCpuMjs }, webgpu: { wasm: ortGpuWasm, mjs: ortGpuMjs } },
});
