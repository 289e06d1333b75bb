import { describe, expect, it } from 'vitest';
import { ORT_WASM_FILES, ortFilesFor, resolveWasmPaths } from './ort-files.ts';

const base = 'https://app.example/assets/worker.js';
const cpu = { wasm: 'https://app.example/assets/ort-wasm-simd-threaded.wasm', mjs: 'https://app.example/assets/ort-wasm-simd-threaded.mjs' };
const gpu = {
  wasm: 'https://app.example/assets/ort-wasm-simd-threaded.asyncify.wasm',
  mjs: 'https://app.example/assets/ort-wasm-simd-threaded.asyncify.mjs',
};
/** A fetch that answers HEAD with 200 for `present` and 404 for the rest, recording what it was asked. */
function headOnly(present: readonly string[]) {
  const asked: string[] = [];
  const fetchFn = async (input: string, init: { method: string }) => {
    asked.push(`${init.method} ${input}`);
    return { ok: present.includes(input) };
  };
  return { asked, fetchFn };
}

describe('which ONNX Runtime build a model loads (issue 30, P2.7)', () => {
  it('loads the CPU build, half the size, for a model on the CPU, and the WebGPU build on a GPU', async () => {
    const resolved = resolveWasmPaths(
      { wasm: { wasm: 'ort-wasm-simd-threaded.wasm', mjs: 'ort-wasm-simd-threaded.mjs' }, webgpu: ORT_WASM_FILES.webgpu },
      base,
    );
    expect(await ortFilesFor('wasm', resolved)).toEqual(cpu);
    expect(await ortFilesFor('webgpu', resolved)).toEqual(gpu);
  });

  it('uses one build given as { wasm, mjs } everywhere (the WebGPU build runs on the CPU too)', async () => {
    const resolved = resolveWasmPaths(ORT_WASM_FILES.webgpu, base);
    expect(await ortFilesFor('wasm', resolved)).toEqual(gpu);
    expect(await ortFilesFor('webgpu', resolved)).toEqual(gpu);
  });

  it('looks in a folder for the CPU build, and falls back to the WebGPU build when the folder does not serve it', async () => {
    const resolved = resolveWasmPaths('./', base);
    const served = headOnly([cpu.wasm, gpu.wasm]);
    expect(await ortFilesFor('wasm', resolved, served.fetchFn)).toEqual(cpu);
    expect(served.asked).toEqual([`HEAD ${cpu.wasm}`]);
    const older = headOnly([gpu.wasm]);
    expect(await ortFilesFor('wasm', resolved, older.fetchFn)).toEqual(gpu);
    const offline = { fetchFn: () => Promise.reject(new TypeError('Failed to fetch')) };
    expect(await ortFilesFor('wasm', resolved, offline.fetchFn)).toEqual(gpu);
    // On a GPU nothing is asked: the WebGPU build is the one.
    const none = headOnly([]);
    expect(await ortFilesFor('webgpu', resolved, none.fetchFn)).toEqual(gpu);
    expect(none.asked).toEqual([]);
  });

  it("finds the files at the site root where no wasmPaths is given and the worker's folder lacks them, as the README's recipe puts them (issue 42)", async () => {
    const resolved = resolveWasmPaths(undefined, base);
    const root = { wasm: 'https://app.example/ort-wasm-simd-threaded.wasm', mjs: 'https://app.example/ort-wasm-simd-threaded.mjs' };
    const rootGpu = { wasm: 'https://app.example/ort-wasm-simd-threaded.asyncify.wasm', mjs: 'https://app.example/ort-wasm-simd-threaded.asyncify.mjs' };
    const publicFolder = headOnly([root.wasm, rootGpu.wasm]);
    expect(await ortFilesFor('webgpu', resolved, publicFolder.fetchFn)).toEqual(rootGpu);
    expect(await ortFilesFor('wasm', resolved, publicFolder.fetchFn)).toEqual(root);
    // Next to the worker wins where it serves them; the root is not asked.
    const beside = headOnly([gpu.wasm, cpu.wasm]);
    const again = resolveWasmPaths(undefined, base);
    expect(await ortFilesFor('wasm', again, beside.fetchFn)).toEqual(cpu);
    expect(beside.asked.some((line) => line.includes('https://app.example/ort-'))).toBe(false);
    // A page's HTML answered for a missing file (a dev server's fallback) is not the file.
    const html = async (input: string) => ({
      ok: true,
      headers: { get: () => (input.startsWith('https://app.example/assets/') ? 'text/html' : 'application/wasm') },
    });
    expect(await ortFilesFor('webgpu', resolveWasmPaths(undefined, base), html)).toEqual(rootGpu);
  });
});
