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

/**
 * The build this device loads is kept for offline use as it is fetched (issue 54): the service worker does not
 * precache either build, so a first visit downloads only the one its model runs on. The worker keeps it itself,
 * because on a first visit it may start before the service worker controls the page.
 */
/** The service worker's cache of files fetched on demand (`ON_DEMAND_CACHE` in src/server/offline-routes.ts, the same name). */
export const ON_DEMAND_CACHE = 'nexus-on-demand';
const ORT_WASM = new Set([ortCpuWasm, ortGpuWasm].map((url) => new URL(url, self.location.href).href));
const fetchAsGiven = self.fetch.bind(self);
self.fetch = async (input: RequestInfo | URL, init?: RequestInit) => {
  const response = await fetchAsGiven(input, init);
  const url = new URL(typeof input === 'string' || input instanceof URL ? input : input.url, self.location.href).href;
  if (ORT_WASM.has(url) && response.ok && 'caches' in self) {
    // Cloned now, before the runtime reads the body.
    const copy = response.clone();
    void caches
      .open(ON_DEMAND_CACHE)
      .then(async (cache) => ((await cache.match(url)) ? undefined : cache.put(url, copy)))
      .catch(() => undefined);
  }
  return response;
};

serveModelWorker(self as unknown as ModelWorkerScope, {
  wasmPaths: { wasm: { wasm: ortCpuWasm, mjs: ortCpuMjs }, webgpu: { wasm: ortGpuWasm, mjs: ortGpuMjs } },
});
