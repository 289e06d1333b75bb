import { describe, expect, it } from 'vitest';
import { keepNucleus } from './nucleus.ts';

const logits = (probabilities: number[]) => Float32Array.from(probabilities.map(Math.log));

describe('keepNucleus', () => {
  it('keeps the fewest most likely tokens that reach top-p, and no others', () => {
    const scores = logits([0.05, 0.5, 0.3, 0.15]);
    keepNucleus(scores, 0.75);
    expect([...scores].map((s) => s === -Infinity)).toEqual([true, false, false, true]);
  });

  it('keeps at least the most likely token, and everything at top-p 1', () => {
    const one = logits([0.9, 0.1]);
    keepNucleus(one, 0.01);
    expect(one[0]).not.toBe(-Infinity);
    expect(one[1]).toBe(-Infinity);
    const all = logits([0.9, 0.1]);
    keepNucleus(all, 1);
    expect([...all].every(Number.isFinite)).toBe(true);
  });

  it('handles a vocabulary-sized row quickly enough to run every step', () => {
    const scores = Float32Array.from({ length: 151_936 }, (_, i) => Math.sin(i) * 10);
    keepNucleus(scores, 0.9);
    const kept = [...scores].filter(Number.isFinite).length;
    expect(kept).toBeGreaterThan(0);
    expect(kept).toBeLessThan(scores.length);
  });
});
