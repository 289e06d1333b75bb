import { describe, expect, it } from 'vitest';
import { modelFromAddress } from './model-param.ts';

describe('modelFromAddress', () => {
  const base = 'http://127.0.0.1:4173/';
  it('reads a hub id, with an optional revision', () => {
    expect(modelFromAddress('?model=onnx-community/Qwen3-0.6B-ONNX', base)).toEqual({ hub: 'onnx-community/Qwen3-0.6B-ONNX' });
    expect(modelFromAddress('?model=org/m@v2', base)).toEqual({ hub: 'org/m', revision: 'v2' });
  });
  it('reads a folder on this origin or elsewhere as a URL', () => {
    expect(modelFromAddress('?model=/models/tiny-random-qwen3', base)).toEqual({ url: 'http://127.0.0.1:4173/models/tiny-random-qwen3' });
    expect(modelFromAddress('?model=https://example.org/m/', base)).toEqual({ url: 'https://example.org/m/' });
  });
  it('is undefined without a model', () => {
    expect(modelFromAddress('', base)).toBeUndefined();
    expect(modelFromAddress('?model=%20', base)).toBeUndefined();
  });
});
