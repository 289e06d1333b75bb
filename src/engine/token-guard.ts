import { hasOutsideMarks, OUTSIDE_END, OUTSIDE_START, RESULT_END, RESULT_START, withoutOutsideMarks } from '../shared/outside-text.ts';
import type { ChatMessage, ToolSchema } from './engine.ts';

/** Opens and closes a placeholder for a control token found in untrusted text (private-use characters). */
const OPEN = '\uE000';
const CLOSE = '\uE001';
const PLACEHOLDER = /\uE000(\d+)\uE001/g;
/** An outside span the loop marked in its own text (see `shared/outside-text.ts`). */
const MARKED_SPAN = /\uE002([^\uE002\uE003]*)\uE003/g;

function escapeRegExp(text: string): string {
  return text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
}

/** A prompt as it is encoded: its text without marks, and where the encoder must cut it. */
export interface GuardedPrompt {
  text: string;
  /** The tool results the prompt holds, as the model reads them: what an answer copies from. */
  results: string[];
  /**
   * Offsets in `text` the encoder must cut at, so that no control token that takes even one character
   * from outside text is read as one: the tokenizer reads those characters as ordinary text.
   */
  cuts: number[];
}

/**
 * Keeps text the loop did not write — tool results, pages read, MCP results and schemas (names and
 * keys included), the user's and imported messages, reasoning, call arguments, per-conversation and
 * server-given instructions — from producing a special or added token of the model's tokenizer. A
 * tokenizer turns `<|im_end|><|im_start|>system` anywhere in a prompt into real control tokens, so a
 * page could close its turn and open a system turn outside its fence.
 *
 * The guard works where the prompt is made, by construction: every field of every message but the
 * system message (whatever its name, keys included) and every tool schema whole is outside text; in the
 * system message and in text the loop adds after rendering, the loop marks outside spans itself
 * (`outside()`). While the template renders, control tokens in outside text are placeholders (so the
 * template never sees them); the rendered prompt then carries marks around them, and {@link split}
 * reads the cuts from the prompt alone when it is encoded. Nothing is remembered, so nothing expires.
 * Text without control tokens is left exactly as it is, and so is its tokenization.
 */
export class TokenGuard {
  /** Every control token, longest first, and the placeholder opener itself (so untrusted text cannot forge a placeholder). */
  private readonly pattern: RegExp;
  /** Every control token, longest first, for finding them in a prompt. */
  private readonly controls: RegExp | undefined;

  /** @param tokens every added token of the tokenizer (special or not), as text */
  constructor(private readonly tokens: readonly string[]) {
    const sorted = [...new Set(tokens.filter((t) => t.length > 1))].sort((a, b) => b.length - a.length);
    this.pattern = new RegExp([...sorted.map(escapeRegExp), OPEN].join('|'), 'g');
    this.controls = sorted.length ? new RegExp(sorted.map(escapeRegExp).join('|'), 'g') : undefined;
  }

  /** Outside `text` with every control token (and every placeholder opener) a placeholder, and any mark removed. */
  hide(text: string): string {
    return withoutOutsideMarks(text).replace(this.pattern, (token) => `${OPEN}${this.index(token)}${CLOSE}`);
  }

  /** The loop's own text with its marked outside spans hidden; the marks stay, so the span is cut from its neighbours. */
  hideMarked(text: string): string {
    return text.replace(MARKED_SPAN, (_, span: string) => `${OUTSIDE_START}${this.hide(span)}${OUTSIDE_END}`);
  }

  /** The rendered prompt with every placeholder its characters again, marked as outside text for {@link split}. */
  reveal(rendered: string): string {
    return rendered.replace(PLACEHOLDER, (_, index: string) => {
      const token = this.tokenAt(Number(index));
      return token.length > 1 ? `${OUTSIDE_START}${token}${OUTSIDE_END}` : token;
    });
  }

  /**
   * A prompt as it is encoded: the marks removed, and a cut in every control token that takes a character
   * from a marked span (one character into it, or where the span begins), so it is read as ordinary text.
   */
  split(prompt: string): GuardedPrompt {
    if (!hasOutsideMarks(prompt)) return { text: prompt, cuts: [], results: [] };
    const spans: [number, number][] = [];
    const results: string[] = [];
    let text = '';
    let open: number | undefined;
    let result: number | undefined;
    for (const char of prompt) {
      if (char === OUTSIDE_START) open ??= text.length;
      else if (char === OUTSIDE_END) {
        if (open !== undefined && open < text.length) spans.push([open, text.length]);
        open = undefined;
      } else if (char === RESULT_START) result ??= text.length;
      else if (char === RESULT_END) {
        if (result !== undefined) results.push(text.slice(result));
        result = undefined;
      } else text += char;
    }
    if (open !== undefined && open < text.length) spans.push([open, text.length]);
    const cuts = new Set<number>();
    if (this.controls && spans.length) {
      const controls = new RegExp(this.controls.source, 'g');
      // Matches come in order of their start, and spans in order without overlap: the spans that end before a match
      // are behind every later one too, so one pointer walks them (a message of 64,000 hidden tokens is 64,000 spans).
      let first = 0;
      for (let match = controls.exec(text); match; match = controls.exec(text)) {
        const start = match.index;
        const end = start + match[0].length;
        while (first < spans.length && (spans[first] as [number, number])[1] <= start) first += 1;
        const span = spans[first];
        if (span && span[0] < end) cuts.add(Math.max(start + 1, span[0]));
        // Overlapping occurrences too: the tokenizer may find one that starts inside this one.
        controls.lastIndex = start + 1;
      }
    }
    return { text, cuts: [...cuts].sort((a, b) => a - b), results };
  }

  /** A conversation with its outside text hidden: every field of every message but the role, and the system message's marked spans. */
  messages(messages: readonly ChatMessage[]): ChatMessage[] {
    return messages.map((m) => {
      if (m.role === 'system') return { ...m, content: this.hideMarked(m.content) };
      const hidden = Object.fromEntries(
        Object.entries(m).map(([key, value]) => (key === 'role' ? [key, value] : [this.hide(key), this.deep(value)])),
      ) as ChatMessage;
      // A tool result is marked where it sits in the prompt: the text the answer copies from.
      return hidden.role === 'tool' ? { ...hidden, content: `${RESULT_START}${hidden.content}${RESULT_END}` } : hidden;
    });
  }

  /** Tools hidden whole, names and keys included (an MCP server writes them). */
  tools(tools: readonly ToolSchema[] | undefined): ToolSchema[] | undefined {
    return tools?.map((t) => this.deep(t) as ToolSchema);
  }

  private deep(value: unknown): unknown {
    if (typeof value === 'string') return this.hide(value);
    if (Array.isArray(value)) return value.map((v) => this.deep(v));
    if (value && typeof value === 'object') return Object.fromEntries(Object.entries(value).map(([k, v]) => [this.hide(k), this.deep(v)]));
    return value;
  }

  private index(token: string): number {
    const at = this.tokens.indexOf(token);
    return at >= 0 ? at : this.tokens.length;
  }

  private tokenAt(index: number): string {
    return this.tokens[index] ?? OPEN;
  }
}

/** `text` (which starts at `offset` of its prompt) split at the cuts that fall inside it. */
export function piecesAt(text: string, cuts: readonly number[], offset = 0): string[] {
  const inside = cuts.map((c) => c - offset).filter((c) => c > 0 && c < text.length);
  if (!inside.length) return [text];
  const pieces: string[] = [];
  let from = 0;
  for (const cut of [...new Set(inside)].sort((a, b) => a - b)) {
    pieces.push(text.slice(from, cut));
    from = cut;
  }
  pieces.push(text.slice(from));
  return pieces;
}
