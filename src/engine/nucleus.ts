/**
 * Top-p (nucleus) filtering, which transformers.js' generate does not do yet: keeps the smallest
 * set of most likely tokens whose probabilities add up to at least `topP`, and sets every other
 * score to -Infinity, in place. Scores are logits (already divided by the temperature).
 *
 * One sorted copy of the scores per step (native typed-array sort), not a sort of index objects:
 * a 150k-token vocabulary costs a few milliseconds.
 */
export function keepNucleus(scores: Float32Array, topP: number): void {
  if (!(topP > 0 && topP < 1) || scores.length === 0) return;
  let max = -Infinity;
  for (const s of scores) if (s > max) max = s;
  if (max === -Infinity) return;
  let total = 0;
  for (const s of scores) total += Math.exp(s - max);
  const sorted = Float32Array.from(scores).sort().reverse();
  let mass = 0;
  let cutoff = sorted[0] ?? max;
  for (const s of sorted) {
    cutoff = s;
    mass += Math.exp(s - max) / total;
    if (mass >= topP) break;
  }
  for (let i = 0; i < scores.length; i++) if ((scores[i] ?? -Infinity) < cutoff) scores[i] = -Infinity;
}
