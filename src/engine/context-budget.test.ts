import { describe, expect, it } from 'vitest';
import { contextBudget, DEFAULT_CONTEXT_LENGTH, WASM_KV_BYTES } from './context-budget.ts';

/** Qwen3-0.6B's config.json (the fields that size a context), as its repository ships it. */
const QWEN3_0_6B = {
  max_position_embeddings: 40960,
  num_hidden_layers: 28,
  num_attention_heads: 16,
  num_key_value_heads: 8,
  head_dim: 128,
  hidden_size: 1024,
};

describe('the context budget of a loaded model', () => {
  it("takes the config's context length, and on WASM lowers it to the KV cache memory holds", () => {
    const node = contextBudget({ config: QWEN3_0_6B, device: 'cpu', dtype: 'q4' });
    expect(node).toMatchObject({ contextLength: 40960, source: 'config', tokens: 40960 });
    // 28 layers × 8 KV heads × 128 × (keys + values) × 4 bytes (fp32 cache for q4 weights) = 229,376 bytes a token.
    expect(node.kvBytesPerToken).toBe(229_376);
    const wasm = contextBudget({ config: QWEN3_0_6B, device: 'wasm', dtype: 'q4' });
    expect(wasm.memoryTokens).toBe(Math.floor(WASM_KV_BYTES / 229_376));
    expect(wasm.tokens).toBe(4681);
    expect(wasm.detail).toMatch(/^4,681 tokens: context length 40,960, from the model's config; lowered because WASM keeps at most 1,024 MiB/);
    // An fp16 cache takes half: twice the tokens.
    expect(contextBudget({ config: QWEN3_0_6B, device: 'wasm', dtype: 'q4f16' }).tokens).toBe(9362);
  });

  it("on WebGPU, one layer's keys must fit the adapter's largest storage buffer", () => {
    const small = contextBudget({ config: QWEN3_0_6B, device: 'webgpu', dtype: 'q4f16', maxBufferBytes: 16 * 1024 ** 2 });
    expect(small.tokens).toBe(Math.floor((16 * 1024 ** 2) / (8 * 128 * 2)));
    expect(contextBudget({ config: QWEN3_0_6B, device: 'webgpu', dtype: 'q4f16' }).tokens).toBe(40960);
  });

  it("uses the family's documented length when the config has none, else a conservative default, and says which", () => {
    const family = contextBudget({ config: { num_hidden_layers: 2 }, familyContextLength: 32768, device: 'cpu', dtype: 'q8' });
    expect(family).toMatchObject({ contextLength: 32768, source: 'family' });
    expect(family.detail).toContain("the family's documented length (the config gives none)");
    const none = contextBudget({ config: undefined, device: 'wasm', dtype: 'q8' });
    expect(none).toMatchObject({ contextLength: DEFAULT_CONTEXT_LENGTH, source: 'default', tokens: DEFAULT_CONTEXT_LENGTH });
    expect(none.kvBytesPerToken).toBeUndefined();
    expect(none.detail).toContain('a conservative default');
  });

  it('reads a multimodal config under text_config and counts only the attention layers of a hybrid model', () => {
    const hybrid = contextBudget({
      config: {
        text_config: {
          max_position_embeddings: 128000,
          num_attention_heads: 16,
          num_key_value_heads: 8,
          hidden_size: 1024,
          layer_types: ['conv', 'full_attention', 'conv', 'full_attention'],
        },
      },
      device: 'cpu',
      dtype: 'q4',
    });
    expect(hybrid.contextLength).toBe(128000);
    expect(hybrid.kvBytesPerToken).toBe(2 * 2 * 8 * 64 * 4);
  });

  it('counts only the full-attention layers of Qwen3.5, not its linear-attention ones (their state has a fixed size)', () => {
    const qwen35 = contextBudget({
      config: {
        text_config: {
          max_position_embeddings: 262144,
          num_attention_heads: 8,
          num_key_value_heads: 2,
          head_dim: 256,
          layer_types: ['linear_attention', 'linear_attention', 'linear_attention', 'full_attention'],
        },
      },
      device: 'wasm',
      dtype: 'q4',
    });
    expect(qwen35.kvBytesPerToken).toBe(2 * 1 * 2 * 256 * 4);
  });
});
