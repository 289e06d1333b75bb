import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { amdahlBound, kvShapeOf } from './wasm-decode-anatomy.ts';

describe('amdahlBound', () => {
  it('is the speed-up when only the parallel share divides among the threads', () => {
    expect(amdahlBound(100, 80, 2)).toBeCloseTo(100 / 60);
    expect(amdahlBound(100, 100, 2)).toBeCloseTo(2);
    expect(amdahlBound(100, 0, 8)).toBeCloseTo(1);
    expect(amdahlBound(100, 80, 1)).toBeCloseTo(1);
  });
});

describe('kvShapeOf', () => {
  it('reads layers, KV heads and head size from a decoder config', () => {
    expect(kvShapeOf('tests/fixtures/models/tiny-random-qwen3/config.json')).toEqual({ layers: 2, kvHeads: 2, headDim: 16 });
  });

  it('falls back to hidden size over heads, and to as many KV heads as heads', () => {
    const folder = mkdtempSync(join(tmpdir(), 'kv-shape-'));
    try {
      writeFileSync(join(folder, 'config.json'), JSON.stringify({ num_hidden_layers: 4, num_attention_heads: 8, hidden_size: 512 }));
      expect(kvShapeOf(join(folder, 'config.json'))).toEqual({ layers: 4, kvHeads: 8, headDim: 64 });
      writeFileSync(join(folder, 'config.json'), JSON.stringify({ model_type: 'mystery' }));
      expect(() => kvShapeOf(join(folder, 'config.json'))).toThrow(/lacks num_hidden_layers, num_attention_heads or hidden_size\/head_dim/);
    } finally {
      rmSync(folder, { recursive: true, force: true });
    }
  });
});
