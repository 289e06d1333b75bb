/// <reference lib="webworker" />
/**
 * The model worker: the library's `serveModelWorker`, with ONNX Runtime's two builds bundled from
 * the package (`?url`) so the page never reaches a CDN: the plain one for the CPU (it starts in
 * about half the time), the WebGPU one for a GPU.
 */
import ortCpuWasm from 'onnxruntime-web/ort-wasm-simd-threaded.wasm?url';
import ortCpuMjs from 'onnxruntime-web/ort-wasm-simd-threaded.mjs?url';
import ortGpuWasm from 'onnxruntime-web/ort-wasm-simd-threaded.asyncify.wasm?url';
import ortGpuMjs from 'onnxruntime-web/ort-wasm-simd-threaded.asyncify.mjs?url';
import { type ModelWorkerScope, serveModelWorker } from 'browser-llm-nexus/worker';

declare const self: DedicatedWorkerGlobalScope;

serveModelWorker(self as unknown as ModelWorkerScope, { wasmPaths: { wasm: { wasm: ortCpuWasm, mjs: ortCpuMjs }, webgpu: { wasm: ortGpuWasm, mjs: ortGpuMjs } } });
