/**
 * The engine's own logits processors, applied after transformers.js' own at each decoding step: constrained
 * choices, a repetition penalty that spares the prompt's tool results, and top-p for sampled prose.
 */
import { LogitsProcessor, type Tensor } from '@huggingface/transformers';
import type { ChoiceTrie } from './choice-trie.ts';
import { keepNucleus } from './nucleus.ts';

type TokenIds = bigint[][];

/** One row's scores, as transformers.js hands a batch of them to a processor. */
const rowScores = (logits: Tensor, row: number) => (logits as unknown as Tensor[])[row]?.data as Float32Array;

/** Allows only tokens that keep the generation on one of the choices (and the end token once one is complete). */
export class ChoiceLogitsProcessor extends LogitsProcessor {
  constructor(
    private readonly trie: ChoiceTrie,
    private readonly promptLength: number,
    private readonly endTokens: readonly number[],
  ) {
    super();
  }

  override _call(inputIds: TokenIds, logits: Tensor): Tensor {
    for (let row = 0; row < inputIds.length; row++) {
      const generated = (inputIds[row] ?? []).slice(this.promptLength).map(Number);
      const { allowed, complete } = this.trie.next(generated);
      if (complete) for (const end of this.endTokens) allowed.add(end);
      const scores = rowScores(logits, row);
      for (let token = 0; token < scores.length; token++) if (!allowed.has(token)) scores[token] = -Infinity;
    }
    return logits;
  }
}

/**
 * The repetition penalty as transformers.js applies its own (every token of the input and of what was
 * written so far has its score divided), but for the tokens of the prompt's tool results, which an answer
 * copies from: a code, a number or a name in a result is not made less likely where the answer repeats it
 * (with transformers.js' own, a small model miscopied one word of a code). What the generation itself
 * writes is penalised wherever it came from. The prompt's share is counted once, not at every step.
 */
export class RepetitionPenaltyBesidesResults extends LogitsProcessor {
  private readonly promptLength: number;
  private readonly fromPrompt: ReadonlySet<number>;

  /**
   * @param penalty - the divisor (a multiplier for negative scores), as transformers.js' own.
   * @param promptIds - the prompt's token ids.
   * @param exempt - the token ids of its tool results.
   */
  constructor(
    private readonly penalty: number,
    promptIds: readonly number[],
    exempt: ReadonlySet<number>,
  ) {
    super();
    this.promptLength = promptIds.length;
    this.fromPrompt = new Set(promptIds.filter((id) => !exempt.has(id)));
  }

  override _call(inputIds: TokenIds, logits: Tensor): Tensor {
    for (let row = 0; row < inputIds.length; row++) {
      const scores = rowScores(logits, row);
      const penalise = (token: number) => {
        const score = scores[token];
        if (score !== undefined) scores[token] = score < 0 ? score * this.penalty : score / this.penalty;
      };
      for (const token of this.fromPrompt) penalise(token);
      for (const token of new Set((inputIds[row] ?? []).slice(this.promptLength).map(Number))) if (!this.fromPrompt.has(token)) penalise(token);
    }
    return logits;
  }
}

/** Top-p for sampled prose (transformers.js' own TopPLogitsWarper is not wired into generate). */
export class NucleusLogitsProcessor extends LogitsProcessor {
  constructor(private readonly topP: number) {
    super();
  }

  override _call(inputIds: TokenIds, logits: Tensor): Tensor {
    for (let row = 0; row < inputIds.length; row++) keepNucleus(rowScores(logits, row), this.topP);
    return logits;
  }
}

/** The generation's own processors, where it has any: none given leaves transformers.js' defaults as they are. */
export function withProcessors(processors: LogitsProcessor[]): { logits_processor?: LogitsProcessor[] } {
  return processors.length ? { logits_processor: processors } : {};
}
