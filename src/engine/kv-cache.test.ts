import { DynamicCache, Tensor } from '@huggingface/transformers';
import { describe, expect, it } from 'vitest';
import { cropCache } from './kv-cache.ts';

/** A [1, heads, sequence, headDim] tensor whose every value says where it is: head·1000 + position·10 + dim. */
function positional(heads: number, sequence: number, headDim: number): Tensor {
  const data = new Float32Array(heads * sequence * headDim);
  for (let h = 0; h < heads; h++)
    for (let p = 0; p < sequence; p++) for (let d = 0; d < headDim; d++) data[(h * sequence + p) * headDim + d] = h * 1000 + p * 10 + d;
  return new Tensor('float32', data, [1, heads, sequence, headDim]);
}

describe('cropCache', () => {
  it('keeps exactly the first positions of every head, in the layout ONNX Runtime reads', async () => {
    const cache = new DynamicCache({ 'past_key_values.0.key': positional(3, 6, 2), 'past_key_values.0.value': positional(3, 6, 2) });
    const cropped = await cropCache(cache, 4);
    for (const name of ['past_key_values.0.key', 'past_key_values.0.value']) {
      const tensor = (cropped as unknown as Record<string, Tensor>)[name] as Tensor;
      expect(tensor.dims).toEqual([1, 3, 4, 2]);
      const expected: number[] = [];
      for (let h = 0; h < 3; h++) for (let p = 0; p < 4; p++) for (let d = 0; d < 2; d++) expected.push(h * 1000 + p * 10 + d);
      expect([...(tensor.data as Float32Array)]).toEqual(expected);
    }
    expect(cropped.get_seq_length()).toBe(4);
  });

  it('leaves a cache that is not longer than asked as it is', async () => {
    const tensor = positional(2, 3, 2);
    const cropped = await cropCache(new DynamicCache({ 'past_key_values.0.key': tensor }), 5);
    expect((cropped as unknown as Record<string, Tensor>)['past_key_values.0.key']).toBe(tensor);
  });
});
