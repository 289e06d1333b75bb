import { describe, expect, it } from 'vitest';
import { modelOfFile } from './device-models.ts';

describe('models on this device (issue 44, item 5)', () => {
  it('groups cached files by the model they belong to', () => {
    const origin = 'http://localhost:5173';
    expect(modelOfFile('https://huggingface.co/onnx-community/Qwen3-0.6B-ONNX/resolve/main/onnx/model_q4f16.onnx', origin)).toEqual({
      address: 'onnx-community/Qwen3-0.6B-ONNX',
      label: 'Qwen3-0.6B-ONNX',
    });
    expect(modelOfFile('https://hf-mirror.example.org/Xenova/all-MiniLM-L6-v2/resolve/abc123/tokenizer.json', origin)?.address).toBe('Xenova/all-MiniLM-L6-v2');
    expect(modelOfFile('http://localhost:5173/models/tiny-random-qwen3/onnx/model_q4.onnx', origin)).toEqual({
      address: '/models/tiny-random-qwen3',
      label: 'tiny-random-qwen3',
    });
    expect(modelOfFile('http://localhost:5173/models/tiny-random-qwen3/config.json', origin)?.address).toBe('/models/tiny-random-qwen3');
    expect(modelOfFile('https://models.example.org/llama/config.json', origin)?.address).toBe('https://models.example.org/llama');
    expect(modelOfFile('http://localhost:5173/assets/ort-wasm-simd-threaded.wasm', origin)).toBeUndefined();
  });
});
