/**
 * How a function's cost grows with its input: the cost per call on an input 8 times as large over
 * the cost per call on the base input. About 8 when the function is linear, about 64 when it is
 * quadratic. Each side is measured as the fastest of several batches, every batch repeating the
 * call until it has run for at least `minBatchMs`, and the batches of the two sides alternate, so
 * the figure is a ratio of work done in the same run: a loaded machine slows both sides alike.
 *
 * @param fn - the function under test.
 * @param make - builds an input of about `size` units.
 * @param size - the base size (the large input is 8 times it).
 *
 * A measurement that lands above {@link LINEAR_GROWTH_LIMIT} is taken again, up to three times in
 * all, and the lowest kept: a burst of other work on a 2-core machine (the e2e browsers beside the
 * unit tests) can slow the large side alone for one measurement, while quadratic code measures
 * above the limit every time.
 */
/**
 * The bound a linear function's {@link growthRatio} stays under: the geometric middle of linear (8)
 * and quadratic (64). Linear code measures 8–16 on a loaded machine (caches and the collector cost
 * more on the larger input); the quadratic transforms this guards against measured 42–64.
 */
export const LINEAR_GROWTH_LIMIT = Math.sqrt(8 * 64);

export function growthRatio<T>(fn: (input: T) => unknown, make: (size: number) => T, size: number, minBatchMs = 15): number {
  let lowest = Number.POSITIVE_INFINITY;
  for (let attempt = 0; attempt < 3 && lowest >= LINEAR_GROWTH_LIMIT; attempt++) lowest = Math.min(lowest, measureGrowth(fn, make, size, minBatchMs));
  return lowest;
}

function measureGrowth<T>(fn: (input: T) => unknown, make: (size: number) => T, size: number, minBatchMs: number): number {
  const small = make(size);
  const large = make(size * 8);
  fn(small);
  fn(large);
  let bestSmall = Number.POSITIVE_INFINITY;
  let bestLarge = Number.POSITIVE_INFINITY;
  for (let batch = 0; batch < 7; batch++) {
    bestSmall = Math.min(bestSmall, perCall(fn, small, minBatchMs));
    bestLarge = Math.min(bestLarge, perCall(fn, large, minBatchMs));
  }
  return bestLarge / bestSmall;
}

function perCall<T>(fn: (input: T) => unknown, input: T, minBatchMs: number): number {
  let calls = 0;
  const started = performance.now();
  let elapsed = 0;
  do {
    fn(input);
    calls++;
    elapsed = performance.now() - started;
  } while (elapsed < minBatchMs);
  return elapsed / calls;
}
