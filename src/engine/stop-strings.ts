/**
 * A check, run after every generated token, of whether the text so far contains one of `stops`.
 *
 * A stop string can only just have appeared at the end, so only the tail of the generation is
 * decoded: enough tokens to hold the longest stop string twice over (a token decodes to at least
 * one character, except special tokens dropped from the text, which the margin covers). Decoding
 * the whole generation at every step made a long generation quadratic.
 */
export function stopStringWatcher(decode: (ids: number[]) => string, stops: readonly string[]): (generated: number[]) => boolean {
  const wanted = stops.filter(Boolean);
  const longest = Math.max(0, ...wanted.map((s) => s.length));
  const window = longest * 2 + 8;
  return (generated) => {
    if (wanted.length === 0) return false;
    const tail = decode(generated.length > window ? generated.slice(-window) : generated);
    return wanted.some((stop) => tail.includes(stop));
  };
}
