/** One family's reasoning block: how it opens and closes. */
interface ThinkingTags {
  readonly open: string;
  readonly close: string;
  /**
   * The close tag can come first, when the template opened the block in the prompt (Qwen3,
   * DeepSeek R1, Magistral): then it and everything before it was reasoning.
   */
  readonly orphanClose: boolean;
}

/**
 * Every reasoning syntax read here: `<think>` (Qwen3, DeepSeek R1, SmolLM3, LFM2.5 thinking),
 * `<thinking>`, Mistral/Magistral `[THINK]`, Gemma 4's thought channel, GPT-OSS's analysis
 * channel and Command R's thinking markers.
 */
export const THINKING_TAGS: readonly ThinkingTags[] = [
  { open: '<think>', close: '</think>', orphanClose: true },
  { open: '<thinking>', close: '</thinking>', orphanClose: true },
  { open: '[THINK]', close: '[/THINK]', orphanClose: true },
  { open: '<seed:think>', close: '</seed:think>', orphanClose: true },
  { open: '<|channel>thought', close: '<channel|>', orphanClose: false },
  { open: '<|channel|>analysis<|message|>', close: '<|end|>', orphanClose: false },
  { open: '<|START_THINKING|>', close: '<|END_THINKING|>', orphanClose: false },
];

/** The block a template opened in the prompt: it ends at whichever orphan-capable close tag comes first. */
const OPENED_IN_PROMPT: ThinkingTags = { open: '', close: '</think>', orphanClose: true };

/** Close tags that are removed alone when they stand outside a block (the others are another format's markup). */
const STRAY_CLOSES: readonly string[] = THINKING_TAGS.filter((t) => t.orphanClose).map((t) => t.close);
const OPENS: readonly string[] = THINKING_TAGS.map((t) => t.open);
const ALL_TAGS: readonly string[] = [...OPENS, ...STRAY_CLOSES];
const LONGEST = Math.max(...ALL_TAGS.map((t) => t.length));
const CANDIDATE = new RegExp(`[${[...new Set(ALL_TAGS.map((t) => t.charAt(0)))].map((c) => `\\${c}`).join('')}]`, 'g');
const SECOND_CHARS = new Set(ALL_TAGS.map((t) => t.charCodeAt(1)));

/**
 * The answer without the reasoning: removes every reasoning block (see {@link THINKING_TAGS}),
 * an unclosed one together with everything after it, and — when the first reasoning tag in the
 * text is a close tag such as `</think>` or `[/THINK]` — that tag and everything before it
 * (templates that open the thinking block in the prompt make the model start mid-thought). A
 * stray close tag later on is dropped alone. The result is trimmed.
 *
 * Calls are parsed after this, so a call the model only *considered* while thinking is never run.
 */
export function stripThinking(raw: string): string {
  return removeThinking(raw).trim();
}

/**
 * True when the first reasoning tag in `raw` is a close tag (`</think>`, `[/THINK]`, …): the
 * output began mid-thought, which a stream must be told up front (`startsInThinking`).
 * @param raw - a model's output.
 */
export function beginsInThinking(raw: string): boolean {
  const first = new TagFinder(raw, ALL_TAGS).next(0);
  return first !== undefined && STRAY_CLOSES.includes(first.tag);
}

/**
 * {@link stripThinking} without the final trim: the exact character stream the parser reads,
 * which the streaming filter reproduces chunk by chunk.
 */
export function removeThinking(raw: string): string {
  const finder = new TagFinder(raw, ALL_TAGS);
  let i = 0;
  const first = finder.next(0);
  if (first !== undefined && STRAY_CLOSES.includes(first.tag)) i = first.index + first.tag.length;
  let out = '';
  for (;;) {
    const hit = finder.next(i);
    if (hit === undefined) return out + raw.slice(i);
    out += raw.slice(i, hit.index);
    const pair = THINKING_TAGS.find((t) => t.open === hit.tag);
    if (pair === undefined) {
      i = hit.index + hit.tag.length;
      continue;
    }
    const end = raw.indexOf(pair.close, hit.index + pair.open.length);
    if (end < 0) return out;
    i = end + pair.close.length;
  }
}

/**
 * The reasoning itself: the text of every reasoning block {@link removeThinking} removes, in order,
 * blocks joined by a blank line (an unclosed block runs to the end; text before an orphan close tag
 * is reasoning too). Empty when the output holds none.
 * @param raw - a model's output.
 */
export function thinkingOf(raw: string): string {
  const finder = new TagFinder(raw, ALL_TAGS);
  const blocks: string[] = [];
  let i = 0;
  const first = finder.next(0);
  if (first !== undefined && STRAY_CLOSES.includes(first.tag)) {
    blocks.push(raw.slice(0, first.index));
    i = first.index + first.tag.length;
  }
  for (;;) {
    const hit = finder.next(i);
    if (hit === undefined) break;
    const pair = THINKING_TAGS.find((t) => t.open === hit.tag);
    if (pair === undefined) {
      i = hit.index + hit.tag.length;
      continue;
    }
    const start = hit.index + pair.open.length;
    const end = raw.indexOf(pair.close, start);
    blocks.push(raw.slice(start, end < 0 ? undefined : end));
    if (end < 0) break;
    i = end + pair.close.length;
  }
  return blocks
    .map((block) => block.trim())
    .filter(Boolean)
    .join('\n\n');
}

/**
 * The earliest of several literals at or after a position, for positions that only grow:
 * each literal's next occurrence is cached and searched again only when it falls behind, which
 * keeps a whole pass linear.
 */
class TagFinder {
  private readonly next_: number[];

  constructor(
    private readonly text: string,
    private readonly tags: readonly string[],
  ) {
    this.next_ = tags.map((tag) => text.indexOf(tag));
  }

  next(from: number): { index: number; tag: string } | undefined {
    let best: { index: number; tag: string } | undefined;
    this.tags.forEach((tag, k) => {
      let at = this.next_[k] as number;
      if (at >= 0 && at < from) {
        at = this.text.indexOf(tag, from);
        this.next_[k] = at;
      }
      if (at >= 0 && (best === undefined || at < best.index)) best = { index: at, tag };
    });
    return best;
  }
}

/**
 * {@link removeThinking} for a stream: feed chunks, get back what lies outside reasoning.
 *
 * A chunk ending in what may be the start of a reasoning tag keeps that tail (at most one
 * character less than the longest tag) until the next chunk settles it, so a tag split at any
 * byte is still recognised. The one thing a stream cannot do is retract: an orphan `</think>`
 * shows that the text before it was reasoning only after that text has gone out, so a caller
 * whose prompt opened the thinking block says so with `startsInThinking`.
 */
export class ThinkingStripper {
  /** The block the stream is inside, or null. */
  private inside: ThinkingTags | null;
  private tail = '';
  /** Reasoning settled since the last {@link takeReasoning}: the text inside blocks, without their tags. */
  private thought = '';

  constructor(options: { startsInThinking?: boolean } = {}) {
    this.inside = options.startsInThinking === true ? OPENED_IN_PROMPT : null;
  }

  /** Characters held because they may start a reasoning tag, counted only outside reasoning (inside, nothing is ever shown). */
  get heldBack(): number {
    return this.inside !== null ? 0 : this.tail.length;
  }

  /** Whether the stream is inside a reasoning block right now. */
  get thinking(): boolean {
    return this.inside !== null;
  }

  /** Take the next chunk; returns the text outside reasoning that is settled now. */
  push(chunk: string): string {
    const text = this.tail + chunk;
    this.tail = '';
    let out = '';
    let i = 0;
    while (i < text.length) {
      if (this.inside !== null) {
        const closes = this.inside === OPENED_IN_PROMPT ? STRAY_CLOSES : [this.inside.close];
        let close = -1;
        let closeTag = '';
        for (const tag of closes) {
          const at = text.indexOf(tag, i);
          if (at >= 0 && (close < 0 || at < close)) {
            close = at;
            closeTag = tag;
          }
        }
        if (close < 0) {
          this.tail = keepPrefixTail(text, i, closes);
          this.thought += text.slice(i, text.length - this.tail.length);
          return out;
        }
        this.thought += text.slice(i, close);
        i = close + closeTag.length;
        this.inside = null;
        continue;
      }
      CANDIDATE.lastIndex = i;
      const hit = CANDIDATE.exec(text);
      if (hit === null) return out + text.slice(i);
      const at = hit.index;
      out += text.slice(i, at);
      // Most `<` and `[` open no reasoning tag: the second character says so without trying each tag.
      if (at + 1 < text.length && !SECOND_CHARS.has(text.charCodeAt(at + 1))) {
        out += text.charAt(at);
        i = at + 1;
        continue;
      }
      const open = THINKING_TAGS.find((t) => text.startsWith(t.open, at));
      if (open !== undefined) {
        this.inside = open;
        i = at + open.open.length;
        continue;
      }
      const stray = STRAY_CLOSES.find((close) => text.startsWith(close, at));
      if (stray !== undefined) {
        i = at + stray.length;
        continue;
      }
      if (ALL_TAGS.some((tag) => isProperPrefix(text, at, tag))) {
        this.tail = text.slice(at);
        return out;
      }
      out += text.charAt(at);
      i = at + 1;
    }
    return out;
  }

  /** The stream ended: a held partial tag was just text (or, inside reasoning, more reasoning). */
  end(): string {
    const rest = this.inside !== null ? '' : this.tail;
    if (this.inside !== null) this.thought += this.tail;
    this.tail = '';
    return rest;
  }

  /** The reasoning settled since the last call, as the model wrote it (for a caller that streams it). */
  takeReasoning(): string {
    const thought = this.thought;
    this.thought = '';
    return thought;
  }
}

/** `text` from `at` to its end is shorter than `tag` and could grow into it. */
function isProperPrefix(text: string, at: number, tag: string): boolean {
  const rest = text.length - at;
  return rest < tag.length && tag.startsWith(text.slice(at));
}

/** The shortest tail of `text[from..]` that could be the start of one of `tags` (empty when none). */
function keepPrefixTail(text: string, from: number, tags: readonly string[]): string {
  const longest = Math.max(...tags.map((t) => t.length)) - 1;
  for (let at = Math.max(from, text.length - longest); at < text.length; at++) {
    for (const tag of tags) if (isProperPrefix(text, at, tag)) return text.slice(at);
  }
  return '';
}

/** The longest reasoning tag: a stream holds back at most one character less than this. */
export const LONGEST_THINKING_TAG = LONGEST;
