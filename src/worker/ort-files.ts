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
  /**
   * Where to look when no `wasmPaths` was given and the worker's own folder does not serve the files: the
   * site's root, where a bundler's public folder puts them (the README's recipe: copied to `public/`).
   */
  fallbackFolder?: string;
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
  const root = new URL('/', base).href;
  return {
    wasm: undefined,
    webgpu: inFolder(ORT_WASM_FILES.webgpu, folder),
    folder,
    ...(wasmPaths === undefined && root !== folder ? { fallbackFolder: root } : {}),
  };
}

/** A build's files in a folder. */
function inFolder(files: OrtFiles, folder: string): OrtFiles {
  return { wasm: new URL(files.wasm, folder).href, mjs: new URL(files.mjs, folder).href };
}

/** What a HEAD request tells: whether the file is there (a page's HTML answered in its place is not it). */
type HeadFetch = (input: string, init: { method: string }) => Promise<{ ok: boolean; headers?: { get(name: string): string | null } }>;

/** Whether `url` is served as a file, not as the page's HTML fallback and not missing. */
async function serves(url: string, fetchFn: HeadFetch): Promise<boolean> {
  return fetchFn(url, { method: 'HEAD' }).then(
    (response) => response.ok && !/text\/html/i.test(response.headers?.get('content-type') ?? ''),
    () => false,
  );
}

/** The folder the files come from, once found: one look per resolution. */
const foundFolders = new WeakMap<ResolvedOrtFiles, Promise<string | undefined>>();

/**
 * The folder ONNX Runtime's files are in: the worker's own, or else the site's root where no `wasmPaths` was
 * given and the root serves them. Offline or where neither answers, the worker's own (the precache holds it).
 */
function folderOf(resolved: ResolvedOrtFiles, fetchFn: HeadFetch): Promise<string | undefined> {
  const { folder, fallbackFolder } = resolved;
  if (folder === undefined || fallbackFolder === undefined) return Promise.resolve(folder);
  let found = foundFolders.get(resolved);
  if (!found) {
    found = (async () => {
      if (await serves(inFolder(ORT_WASM_FILES.webgpu, folder).wasm, fetchFn)) return folder;
      return (await serves(inFolder(ORT_WASM_FILES.webgpu, fallbackFolder).wasm, fetchFn)) ? fallbackFolder : folder;
    })();
    foundFolders.set(resolved, found);
  }
  return found;
}

/**
 * The build a model on `device` loads: the WebGPU build on a GPU; on the CPU the plain build, and
 * for a folder only if the folder serves it (one HEAD request), else the WebGPU build. With no
 * `wasmPaths`, the files are looked for next to the worker and then at the site's root (issue 42:
 * the README's recipe copies them to the public folder, served at `/`, while a bundled worker sits in
 * `/assets/`).
 */
export async function ortFilesFor(device: string, resolved: ResolvedOrtFiles, fetchFn: HeadFetch = fetch): Promise<OrtFiles> {
  const folder = await folderOf(resolved, fetchFn);
  const webgpu = folder === undefined || folder === resolved.folder ? resolved.webgpu : inFolder(ORT_WASM_FILES.webgpu, folder);
  if (device !== 'wasm') return webgpu;
  if (resolved.wasm) return resolved.wasm;
  if (folder === undefined) return webgpu;
  const plain = inFolder(ORT_WASM_FILES.wasm, folder);
  return (await serves(plain.wasm, fetchFn)) ? plain : webgpu;
}
