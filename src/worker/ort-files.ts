/** Which ONNX Runtime Web build a model worker loads, and from where. */

/** One build of ONNX Runtime Web: its WebAssembly module and the script that loads it. */
export interface OrtFiles {
  wasm: string;
  mjs: string;
}

/**
 * The ONNX Runtime builds a model worker loads (from `onnxruntime-web/dist/`), by the device a
 * model runs on. On the CPU the plain build: about half the size of the WebGPU one (14 MB against
 * 27 MB), so a returning visit compiles it in about half the time. On a GPU the build with WebGPU
 * (asyncify), which also runs on the CPU and so is the fallback when the plain one is not served.
 */
export const ORT_WASM_FILES = {
  wasm: { wasm: 'ort-wasm-simd-threaded.wasm', mjs: 'ort-wasm-simd-threaded.mjs' },
  webgpu: { wasm: 'ort-wasm-simd-threaded.asyncify.wasm', mjs: 'ort-wasm-simd-threaded.asyncify.mjs' },
} as const satisfies Record<string, OrtFiles>;

/** Where a page serves ONNX Runtime's files: see `ModelWorkerOptions.wasmPaths`. */
export type OrtPaths = string | OrtFiles | { wasm: OrtFiles; webgpu: OrtFiles };

/** Which build a device runs on, as {@link resolveWasmPaths} answers it. */
export interface ResolvedOrtFiles {
  /** The CPU's build; `undefined` for a folder, whose CPU files are looked for when a model loads on the CPU. */
  wasm: OrtFiles | undefined;
  webgpu: OrtFiles;
  /** The folder given (absolute), where the CPU build is looked for. */
  folder?: string;
}

/** The ONNX Runtime file addresses for `options.wasmPaths`, resolved against the worker script. */
export function resolveWasmPaths(wasmPaths: OrtPaths | undefined, base: string): ResolvedOrtFiles {
  const absolute = (files: OrtFiles): OrtFiles => ({ wasm: new URL(files.wasm, base).href, mjs: new URL(files.mjs, base).href });
  if (typeof wasmPaths === 'object' && typeof wasmPaths.wasm === 'string') {
    const one = absolute(wasmPaths as OrtFiles);
    return { wasm: one, webgpu: one };
  }
  if (typeof wasmPaths === 'object') {
    const byDevice = wasmPaths as { wasm: OrtFiles; webgpu: OrtFiles };
    return { wasm: absolute(byDevice.wasm), webgpu: absolute(byDevice.webgpu) };
  }
  const folder = new URL(wasmPaths ?? './', base).href;
  return {
    wasm: undefined,
    webgpu: absolute({ wasm: new URL(ORT_WASM_FILES.webgpu.wasm, folder).href, mjs: new URL(ORT_WASM_FILES.webgpu.mjs, folder).href }),
    folder,
  };
}

/**
 * The build a model on `device` loads: the WebGPU build on a GPU; on the CPU the plain build, and
 * for a folder only if the folder serves it (one HEAD request), else the WebGPU build.
 */
export async function ortFilesFor(
  device: string,
  resolved: ResolvedOrtFiles,
  fetchFn: (input: string, init: { method: string }) => Promise<{ ok: boolean }> = fetch,
): Promise<OrtFiles> {
  if (device !== 'wasm') return resolved.webgpu;
  const { wasm, folder } = resolved;
  if (wasm) return wasm;
  if (folder === undefined) return resolved.webgpu;
  const plain = { wasm: new URL(ORT_WASM_FILES.wasm.wasm, folder).href, mjs: new URL(ORT_WASM_FILES.wasm.mjs, folder).href };
  const served = await fetchFn(plain.wasm, { method: 'HEAD' }).then(
    (response) => response.ok,
    () => false,
  );
  return served ? plain : resolved.webgpu;
}
