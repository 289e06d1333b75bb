import { describe, expect, it } from 'vitest';
import { attributeProfile, bucketOfSource, type CpuProfile } from './engine-decode-profile.ts';

describe('bucketOfSource', () => {
  it('tells the runtime, transformers.js and this project apart by their sources', () => {
    expect(bucketOfSource('../../node_modules/onnxruntime-web/dist/ort.webgpu.bundle.min.mjs')).toBe('ONNX Runtime Web JS');
    expect(bucketOfSource('../../node_modules/onnxruntime-common/dist/esm/tensor-impl.js')).toBe('ONNX Runtime Web JS');
    expect(bucketOfSource('../../node_modules/@huggingface/transformers/dist/transformers.web.js')).toBe('transformers.js');
    expect(bucketOfSource('../../src/engine/transformers-engine.ts')).toBe('this project');
    expect(bucketOfSource('../../node_modules/lit/index.js')).toBe('other');
    expect(bucketOfSource(null)).toBe('other');
  });
});

describe('attributeProfile', () => {
  const frame = (functionName: string, url: string, lineNumber = 0) => ({ functionName, url, lineNumber, columnNumber: 0 });
  const profile: CpuProfile = {
    nodes: [
      { id: 1, callFrame: frame('wasm-function[42]', 'wasm://wasm/0abc') },
      { id: 2, callFrame: frame('Fn', 'http://127.0.0.1/assets/worker-entry-x.js', 10) },
      { id: 3, callFrame: frame('generate', 'http://127.0.0.1/assets/worker-entry-x.js', 20) },
      { id: 4, callFrame: frame('(garbage collector)', '') },
      { id: 5, callFrame: frame('(idle)', '') },
      { id: 6, callFrame: frame('mine', 'http://127.0.0.1/assets/worker-entry-x.js', 30) },
    ],
    samples: [1, 1, 2, 3, 4, 5, 6, 1],
    timeDeltas: [100, 100, 50, 20, 10, 5, 7, 100],
  };
  const sources: Record<number, { source: string; name: string; innerSource?: string }> = {
    10: { source: '../../node_modules/onnxruntime-web/dist/ort.webgpu.bundle.min.mjs', name: 'Fn', innerSource: '../lib/wasm/wasm-core-impl.ts' },
    20: { source: '../../node_modules/@huggingface/transformers/dist/transformers.web.js', name: 'generate' },
    30: { source: '../../src/worker/serve-model-worker.ts', name: 'mine' },
  };

  it('sums self time into buckets through the resolver, WASM and the GC by their frames', () => {
    const { buckets, ortWebFunctions } = attributeProfile(profile, (_url, line) => sources[line]);
    expect(buckets).toEqual({
      'ONNX Runtime WASM': 300,
      'ONNX Runtime Web JS': 50,
      'transformers.js': 20,
      'this project': 7,
      'garbage collector': 10,
      idle: 5,
      other: 0,
    });
    expect([...ortWebFunctions]).toEqual([['wasm/wasm-core-impl.ts Fn', 50]]);
  });

  it('puts frames the resolver does not know under other', () => {
    const { buckets } = attributeProfile(profile, () => undefined);
    expect(buckets.other).toBe(77);
    expect(buckets['ONNX Runtime WASM']).toBe(300);
  });
});
