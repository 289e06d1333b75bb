import { piecesAt } from './token-guard.ts';

/** Turns text into token ids (no special tokens added) and ids back into text (special tokens kept). */
export interface TokenCodec {
  encode(text: string): number[];
  decode(ids: readonly number[]): string;
}

/** How the next generation should use the KV cache. */
export interface CachePlan {
  /** The prompt as token ids: the reused part of the transcript, then the new text encoded. */
  ids: number[];
  /** Leading tokens of `ids` whose KV is already in the cache and stays there (the cache is cut to this). */
  keep: number;
}

/**
 * The exact token ids a KV cache holds, with the text they decode to.
 *
 * transformers.js feeds `input_ids[past_length:]` without checking that the cached tokens are a
 * prefix of the new input, and a chat template re-renders history differently from how it was
 * generated — so a cache is only reused here for tokens proven identical. A new prompt is matched
 * against the transcript as text, at a token boundary, so the tokens the model generated itself
 * are reused as they are (re-tokenizing the same text can split it differently); only the text
 * after the shared prefix is encoded anew.
 */
export class TokenTranscript {
  /** Every token of the last sequence: prompt, then generated tokens. */
  private ids: number[] = [];
  /** `offsets[i]` is the length of the text of `ids[0..i)`. */
  private offsets: number[] = [0];
  private text = '';
  /** How many leading tokens of `ids` the cache holds (the last generated token is never fed back). */
  private cached = 0;
  /** Where the last prompt was cut apart so untrusted text stayed text ({@link TokenGuard}). */
  private cuts: readonly number[] = [];
  /** The length of the last prompt's text (its cuts say nothing of what was generated after it). */
  private promptLength = 0;

  constructor(private readonly codec: TokenCodec) {}

  /** Tokens whose KV the cache holds. */
  get cachedTokens(): number {
    return this.cached;
  }

  /**
   * Plans the prompt `prompt`: the longest prefix of the transcript whose text the prompt repeats
   * (ending on a token boundary) is reused; the rest of the prompt is encoded. At least one token
   * is always left to feed, because a generation needs an input.
   */
  plan(prompt: string, cuts: readonly number[] = []): CachePlan {
    // The same characters cut apart differently are different tokens: reuse stops before the first cut
    // that this prompt and the cached one do not share.
    const shared = Math.min(commonPrefixLength(this.text, prompt), firstDifferentCut(this.cuts, this.promptLength, cuts) - 1);
    let boundary = upperBoundIndex(this.offsets, Math.max(shared, 0));
    const reused = this.ids.slice(0, boundary);
    const start = this.offsets[boundary] ?? 0;
    const rest = prompt.slice(start);
    const ids = rest ? [...reused, ...piecesAt(rest, cuts, start).flatMap((piece) => this.codec.encode(piece))] : reused;
    boundary = Math.min(boundary, this.cached, ids.length - 1);
    return { ids, keep: Math.max(boundary, 0) };
  }

  /**
   * Records what the cache holds after a generation: `promptIds` then `generatedIds`, all of them
   * fed except the last generated token.
   */
  record(promptIds: readonly number[], generatedIds: readonly number[], prompt?: { length: number; cuts: readonly number[] }): void {
    const ids = [...promptIds, ...generatedIds];
    // What the last sequence and this one share is already decoded: only the rest is (at 1,000
    // tokens of context, decoding everything again cost tens of milliseconds per generation).
    let keep = commonIdPrefix(this.ids, ids);
    while (keep > 0 && !Number.isFinite(this.offsets[keep] ?? NaN)) keep--;
    const base = this.offsets[keep] ?? 0;
    const tail = textOffsets(ids.slice(keep), this.codec);
    this.text = this.text.slice(0, base) + tail.text;
    this.offsets = [...this.offsets.slice(0, keep + 1), ...tail.offsets.slice(1).map((offset) => offset + base)];
    this.ids = ids;
    this.cached = Math.max(ids.length - 1, 0);
    this.cuts = prompt?.cuts ?? [];
    this.promptLength = prompt?.length ?? 0;
  }

  /** Forgets everything (the caller disposes the cache). */
  clear(): void {
    this.ids = [];
    this.offsets = [0];
    this.text = '';
    this.cached = 0;
    this.cuts = [];
    this.promptLength = 0;
  }
}

/**
 * The first offset at which two prompts are cut differently, among the offsets the cached prompt's
 * cuts can speak for (before its length); Infinity when they agree.
 */
function firstDifferentCut(cached: readonly number[], cachedLength: number, next: readonly number[]): number {
  const a = new Set(cached);
  const b = new Set(next.filter((c) => c < cachedLength));
  let first = Number.POSITIVE_INFINITY;
  for (const c of a) if (!b.has(c)) first = Math.min(first, c);
  for (const c of b) if (!a.has(c)) first = Math.min(first, c);
  return first;
}

/** How many leading ids two sequences share. */
function commonIdPrefix(a: readonly number[], b: readonly number[]): number {
  const max = Math.min(a.length, b.length);
  let i = 0;
  while (i < max && a[i] === b[i]) i++;
  return i;
}

/** The length of the longest common prefix of two strings, in UTF-16 units. */
export function commonPrefixLength(a: string, b: string): number {
  const max = Math.min(a.length, b.length);
  let i = 0;
  while (i < max && a.charCodeAt(i) === b.charCodeAt(i)) i++;
  return i;
}

/**
 * The largest token index `i` whose text offset is known and at most `limit`. Offsets inside a
 * multi-byte character are NaN: a cache is never cut between the tokens of one character.
 */
function upperBoundIndex(offsets: readonly number[], limit: number): number {
  for (let i = offsets.length - 1; i > 0; i--) {
    const offset = offsets[i] ?? NaN;
    if (offset <= limit) return i;
  }
  return 0;
}

/**
 * The decoded text of `ids` and the text offset of every token boundary, decoding token by token
 * (linear) and checking the result against one whole decode; a tokenizer whose pieces do not simply
 * concatenate falls back to decoding growing prefixes.
 */
function textOffsets(ids: readonly number[], codec: TokenCodec): { text: string; offsets: number[] } {
  if (ids.length === 0) return { text: '', offsets: [0] };
  const offsets = [0];
  let text = '';
  let pending: number[] = [];
  for (const id of ids) {
    pending.push(id);
    const piece = codec.decode(pending);
    if (piece.endsWith('\uFFFD') && pending.length < 4) {
      offsets.push(NaN);
      continue;
    }
    text += piece;
    pending = [];
    offsets.push(text.length);
  }
  if (pending.length) text += codec.decode(pending);
  if (text === codec.decode(ids)) return { text, offsets };
  const exact = [0];
  for (let i = 1; i <= ids.length; i++) exact.push(codec.decode(ids.slice(0, i)).length);
  return { text: codec.decode(ids), offsets: exact };
}
