/**
 * The allowed continuations of a constrained generation: every choice as its token ids. At each
 * step only a token that keeps the generated ids on some choice's path is allowed, so the output
 * can only ever be one of the choices.
 */
export class ChoiceTrie {
  constructor(
    /** Each choice, tokenized in context. */
    private readonly sequences: readonly (readonly number[])[],
  ) {}

  /** Token ids allowed after `generated`, and whether `generated` is already a whole choice. */
  next(generated: readonly number[]): { allowed: Set<number>; complete: boolean } {
    const allowed = new Set<number>();
    let complete = false;
    for (const sequence of this.sequences) {
      if (!startsWith(sequence, generated)) continue;
      const token = sequence[generated.length];
      if (token === undefined) complete = true;
      else allowed.add(token);
    }
    return { allowed, complete };
  }

  /** The longest choice, in tokens: enough new tokens for any choice. */
  get maxLength(): number {
    return Math.max(0, ...this.sequences.map((s) => s.length));
  }
}

function startsWith(sequence: readonly number[], prefix: readonly number[]): boolean {
  if (prefix.length > sequence.length) return false;
  for (let i = 0; i < prefix.length; i++) if (sequence[i] !== prefix[i]) return false;
  return true;
}
