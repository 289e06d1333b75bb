import { describe, expect, it } from 'vitest';
import { modelCheckQuestions } from './check-questions.ts';
import { freshSeed, seededRandom } from './seeded-random.ts';

describe('seededRandom', () => {
  it('draws the same check questions for the same seed, and different ones for another', () => {
    const questions = (seed: number) => modelCheckQuestions(seededRandom(seed)).map((q) => q.question);
    expect(questions(42)).toEqual(questions(42));
    expect(questions(42)).not.toEqual(questions(43));
  });

  it('stays in [0, 1) and spreads over it', () => {
    const random = seededRandom(7);
    const draws = Array.from({ length: 10_000 }, random);
    expect(Math.min(...draws)).toBeGreaterThanOrEqual(0);
    expect(Math.max(...draws)).toBeLessThan(1);
    const lowHalf = draws.filter((d) => d < 0.5).length;
    expect(lowHalf).toBeGreaterThan(4_800);
    expect(lowHalf).toBeLessThan(5_200);
  });

  it('makes a seed that is a small non-negative integer, so it can be typed back', () => {
    const seed = freshSeed();
    expect(Number.isInteger(seed)).toBe(true);
    expect(seed).toBeGreaterThanOrEqual(0);
    expect(seed).toBeLessThan(1_000_000);
  });
});
