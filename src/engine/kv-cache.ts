import { DynamicCache, Tensor } from '@huggingface/transformers';

type NumericArray = Float32Array | Uint16Array | Int32Array | BigInt64Array | Float64Array | Uint8Array | Int8Array;

/**
 * Cuts a KV cache back to its first `length` positions, returning a cache that holds exactly those.
 *
 * transformers.js can only grow a cache, and a GPU buffer cannot be sliced in place, so a cache
 * whose tail no longer matches the prompt would otherwise be thrown away and the whole prompt
 * computed again. Cutting lets a primed or stepwise retry of the same prompt cost only its own
 * tokens. GPU tensors are read back once (`getData`) and handed to the next run as CPU inputs.
 * Replaced GPU tensors are disposed; CPU tensors are cut in place, so the old cache object must not
 * be used again.
 */
export async function cropCache(cache: DynamicCache, length: number): Promise<DynamicCache> {
  const entries: Record<string, Tensor> = {};
  for (const [name, tensor] of Object.entries(cache) as [string, Tensor][]) {
    if (!name.startsWith('past_key_values.')) continue;
    const cropped = await cropAlongSequence(tensor, length);
    if (cropped !== tensor && tensor.location === 'gpu-buffer') tensor.dispose();
    entries[name] = cropped;
  }
  return new DynamicCache(entries);
}

/** Slices dimension -2 (the sequence) of a `[batch, heads, sequence, headDim]` tensor. */
async function cropAlongSequence(tensor: Tensor, length: number): Promise<Tensor> {
  const dims = tensor.dims;
  const sequence = dims.at(-2) ?? 0;
  const headDim = dims.at(-1) ?? 0;
  if (length >= sequence) return tensor;
  const rows = dims.slice(0, -2).reduce((a, b) => a * b, 1);
  const ort = (tensor as unknown as { ort_tensor: { getData?: () => Promise<NumericArray> } }).ort_tensor;
  const source: NumericArray = tensor.location === 'gpu-buffer' && ort.getData ? await ort.getData() : (tensor.data as NumericArray);
  // In place: each row's kept prefix moves down over the cut tails of the rows before it (row 0
  // stays where it is), and the result is a view of the same buffer. No new allocation, no zero
  // fill, and the kept part is read and written once — the old tensor is not used again.
  const kept = length * headDim;
  const data = source as Float32Array;
  for (let row = 1; row < rows; row++) {
    const from = row * sequence * headDim;
    data.copyWithin(row * kept, from, from + kept);
  }
  return new Tensor(tensor.type, data.subarray(0, rows * kept) as unknown as NumericArray, [...dims.slice(0, -2), length, headDim]);
}
