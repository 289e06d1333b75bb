/**
 * A small deterministic generator (mulberry32) for the check questions: a verdict drawn with a
 * seed can be asked again with exactly the same values and tokens, so a failing CI run can be
 * replayed. Unseeded runs still draw fresh values (Math.random), so a model cannot memorise them.
 */

/** A generator of numbers in [0, 1) determined by `seed` (any integer; taken modulo 2^32). */
export function seededRandom(seed: number): () => number {
  let state = seed >>> 0;
  return () => {
    state = (state + 0x6d2b79f5) >>> 0;
    let t = state;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

/** A fresh seed, for a run that was not given one (printed so the run can be replayed). */
export function freshSeed(random: () => number = Math.random): number {
  return Math.floor(random() * 1_000_000);
}
