import { describe, expect, it } from 'vitest';
import { candidateForDtype, candidatesFor, describeRuntime, detectBrowserCapabilities, dtypesInFiles, loadLadder } from './device-ladder.ts';

const node = { runtime: 'node', webgpu: false, shaderF16: false } as const;
const gpuF16 = { runtime: 'browser', webgpu: true, shaderF16: true } as const;
const gpuNoF16 = { runtime: 'browser', webgpu: true, shaderF16: false } as const;
const noGpu = { runtime: 'browser', webgpu: false, shaderF16: false } as const;

describe('the device and dtype ladder', () => {
  it('picks q4f16 on WebGPU with shader-f16, q4 without it, WASM q8 without an adapter (measured faster), CPU q4 in Node', () => {
    expect(loadLadder(gpuF16)[0]).toEqual({ device: 'webgpu', dtype: 'q4f16' });
    expect(loadLadder(gpuNoF16)[0]).toEqual({ device: 'webgpu', dtype: 'q4' });
    expect(loadLadder(noGpu)[0]).toEqual({ device: 'wasm', dtype: 'q8' });
    expect(loadLadder(noGpu)).toEqual([
      { device: 'wasm', dtype: 'q8' },
      { device: 'wasm', dtype: 'q4' },
    ]);
    expect(loadLadder(node).map((c) => c.dtype)).toEqual(['q4', 'q8', 'fp32']);
    expect(loadLadder(node)[0]).toEqual({ device: 'cpu', dtype: 'q4' });
  });

  it('never tries q8 on WebGPU, nor a float16 file without shader-f16', () => {
    for (const caps of [gpuF16, gpuNoF16]) {
      expect(loadLadder(caps).filter((c) => c.device === 'webgpu' && c.dtype === 'q8')).toEqual([]);
    }
    expect(loadLadder(gpuNoF16).some((c) => c.dtype.endsWith('f16'))).toBe(false);
  });

  it('keeps only what the source serves', () => {
    expect(candidatesFor(gpuF16, ['q4', 'q8'])).toEqual([
      { device: 'webgpu', dtype: 'q4' },
      { device: 'wasm', dtype: 'q8' },
      { device: 'wasm', dtype: 'q4' },
    ]);
  });

  it('checks an explicit dtype and says what to use instead', () => {
    expect(candidateForDtype(gpuF16, 'q8')).toEqual({ device: 'wasm', dtype: 'q8' });
    expect(() => candidateForDtype(gpuF16, 'q8', 'webgpu')).toThrow(/q8 on WebGPU is known to produce gibberish/);
    expect(() => candidateForDtype(gpuNoF16, 'q4f16', 'webgpu')).toThrow(
      "'q4f16' needs the WebGPU feature shader-f16, which this GPU lacks. Use 'q4' instead.",
    );
    expect(candidateForDtype(gpuNoF16, 'q4f16')).toEqual({ device: 'wasm', dtype: 'q4f16' });
    expect(() => candidateForDtype(node, 'q4', 'webgpu')).toThrow(/Use device 'cpu'/);
  });

  it('reads the dtypes a folder serves from its file names', () => {
    expect(dtypesInFiles(['onnx/model.onnx', 'onnx/model_q4.onnx', 'onnx/model_q4f16.onnx', 'config.json'])).toEqual(['fp32', 'q4', 'q4f16']);
    // A multimodal model's decoder names its dtypes (Qwen3.5's ONNX exports).
    expect(dtypesInFiles(['onnx/embed_tokens_quantized.onnx', 'onnx/decoder_model_merged_quantized.onnx', 'onnx/decoder_model_merged.onnx'])).toEqual([
      'fp32',
      'q8',
    ]);
  });
});

describe('detectBrowserCapabilities', () => {
  const navigatorWith = (adapter: unknown) => ({ gpu: { requestAdapter: async () => adapter } }) as unknown as Navigator;
  const features = (...names: string[]) => new Set(names);

  it('uses a hardware adapter, with its shader-f16', async () => {
    expect(await detectBrowserCapabilities(navigatorWith({ features: features('shader-f16'), info: { isFallbackAdapter: false } }))).toEqual({
      runtime: 'browser',
      webgpu: true,
      shaderF16: true,
    });
  });

  it('treats a software (fallback) adapter as no GPU, however it is reported, unless asked to use it', async () => {
    for (const adapter of [
      { features: features(), info: { isFallbackAdapter: true } },
      { features: features(), isFallbackAdapter: true },
    ]) {
      expect(await detectBrowserCapabilities(navigatorWith(adapter))).toEqual({ runtime: 'browser', webgpu: false, shaderF16: false, fallbackAdapter: true });
      expect(await detectBrowserCapabilities(navigatorWith(adapter), { allowFallbackAdapter: true })).toEqual({
        runtime: 'browser',
        webgpu: true,
        shaderF16: false,
        fallbackAdapter: true,
      });
    }
  });

  it('says which device was chosen and why', () => {
    expect(describeRuntime({ runtime: 'browser', webgpu: false, shaderF16: false, fallbackAdapter: true })).toMatch(
      /^Only a software WebGPU adapter is available here \(no GPU\): the model will run on WASM.*settings/,
    );
    expect(describeRuntime({ runtime: 'browser', webgpu: true, shaderF16: false, fallbackAdapter: true })).toMatch(/software WebGPU adapter you chose/);
    expect(describeRuntime({ runtime: 'browser', webgpu: true, shaderF16: true })).toBe('WebGPU is available: the model will run on the GPU (q4f16).');
    expect(describeRuntime({ runtime: 'browser', webgpu: false, shaderF16: false })).toMatch(/^No WebGPU adapter/);
  });
});
