const OPEN = '<think>';
const CLOSE = '</think>';

/**
 * The answer without the reasoning: removes every `<think>…</think>` block, an unclosed
 * `<think>` together with everything after it, and — when the first thinking tag in the text is
 * a `</think>` — that tag and everything before it (templates that open the thinking block in
 * the prompt make the model start mid-thought). A stray `</think>` later on is dropped alone.
 * The result is trimmed.
 *
 * Calls are parsed after this, so a call the model only *considered* while thinking is never run.
 */
export function stripThinking(raw: string): string {
  return removeThinking(raw).trim();
}

/**
 * {@link stripThinking} without the final trim: the exact character stream the parser reads,
 * which the streaming filter reproduces chunk by chunk.
 */
export function removeThinking(raw: string): string {
  let i = 0;
  let nextOpen = raw.indexOf(OPEN);
  let nextClose = raw.indexOf(CLOSE);
  if (nextClose >= 0 && (nextOpen < 0 || nextClose < nextOpen)) {
    i = nextClose + CLOSE.length;
  }
  let out = '';
  for (;;) {
    // Each search runs only when the cached hit fell behind `i`, keeping the whole pass linear.
    if (nextOpen >= 0 && nextOpen < i) nextOpen = raw.indexOf(OPEN, i);
    if (nextClose >= 0 && nextClose < i) nextClose = raw.indexOf(CLOSE, i);
    if (nextOpen < 0 && nextClose < 0) return out + raw.slice(i);
    if (nextClose >= 0 && (nextOpen < 0 || nextClose < nextOpen)) {
      out += raw.slice(i, nextClose);
      i = nextClose + CLOSE.length;
      continue;
    }
    out += raw.slice(i, nextOpen);
    const end = raw.indexOf(CLOSE, nextOpen + OPEN.length);
    if (end < 0) return out;
    i = end + CLOSE.length;
  }
}

/**
 * {@link removeThinking} for a stream: feed chunks, get back what lies outside thinking.
 *
 * A chunk ending in what may be the start of `<think>` or `</think>` keeps that tail (at most
 * seven characters) until the next chunk settles it, so a tag split at any byte is still
 * recognised. The one thing a stream cannot do is retract: an orphan `</think>` shows that the
 * text before it was reasoning only after that text has gone out, so a caller whose prompt
 * opened the thinking block says so with `startsInThinking`.
 */
export class ThinkingStripper {
  private inside: boolean;
  private tail = '';

  constructor(options: { startsInThinking?: boolean } = {}) {
    this.inside = options.startsInThinking ?? false;
  }

  /** Characters held because they may start a thinking tag, counted only outside thinking (inside, nothing is ever shown). */
  get heldBack(): number {
    return this.inside ? 0 : this.tail.length;
  }

  /** Whether the stream is inside a thinking block right now. */
  get thinking(): boolean {
    return this.inside;
  }

  /** Take the next chunk; returns the text outside thinking that is settled now. */
  push(chunk: string): string {
    const text = this.tail + chunk;
    this.tail = '';
    let out = '';
    let i = 0;
    while (i < text.length) {
      if (this.inside) {
        const close = text.indexOf(CLOSE, i);
        if (close < 0) {
          this.tail = keepPrefixTail(text, i, [CLOSE]);
          return out;
        }
        this.inside = false;
        i = close + CLOSE.length;
        continue;
      }
      const lt = text.indexOf('<', i);
      if (lt < 0) return out + text.slice(i);
      out += text.slice(i, lt);
      if (text.startsWith(OPEN, lt)) {
        this.inside = true;
        i = lt + OPEN.length;
      } else if (text.startsWith(CLOSE, lt)) {
        i = lt + CLOSE.length;
      } else if (isProperPrefix(text, lt, OPEN) || isProperPrefix(text, lt, CLOSE)) {
        this.tail = text.slice(lt);
        return out;
      } else {
        out += '<';
        i = lt + 1;
      }
    }
    return out;
  }

  /** The stream ended: a held partial tag was just text (or, inside thinking, nothing). */
  end(): string {
    const rest = this.inside ? '' : this.tail;
    this.tail = '';
    return rest;
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
