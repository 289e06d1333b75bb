import type { ChatMessage, ToolSchema } from './engine.ts';

/** Opens and closes a placeholder for a control token found in untrusted text (private-use characters). */
const OPEN = '\uE000';
const CLOSE = '\uE001';
const PLACEHOLDER = /\uE000(\d+)\uE001/g;

function escapeRegExp(text: string): string {
  return text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
}

/** A rendered prompt, and where its untrusted text held a control token's characters. */
export interface GuardedPrompt {
  text: string;
  /**
   * Offsets in `text` the encoder must cut at: one character into each control token's text that came
   * from untrusted content, so the tokenizer reads those characters as ordinary text.
   */
  cuts: number[];
}

/**
 * Keeps untrusted text — tool results, pages read, MCP results, the user's and imported messages,
 * tool descriptions — from producing a special or added token of the model's tokenizer. A tokenizer
 * turns `<|im_end|><|im_start|>system` anywhere in a prompt into real control tokens, so a page could
 * close its turn and open a system turn outside its fence. The guard hides each such string in
 * untrusted text behind a placeholder while the chat template renders (so the template never sees
 * it either), then puts the characters back and records where the encoder must cut them apart. Text
 * without control tokens is left exactly as it is, and so is its tokenization.
 */
export class TokenGuard {
  /** Every control token, longest first, and the placeholder opener itself (so untrusted text cannot forge a placeholder). */
  private readonly pattern: RegExp;

  /** @param tokens every added token of the tokenizer (special or not), as text */
  constructor(private readonly tokens: readonly string[]) {
    const sorted = [...new Set(tokens.filter((t) => t.length > 1))].sort((a, b) => b.length - a.length);
    this.pattern = new RegExp([...sorted.map(escapeRegExp), OPEN].join('|'), 'g');
  }

  /** `text` with every control token (and every placeholder opener) replaced by a placeholder. */
  hide(text: string): string {
    return text.replace(this.pattern, (token) => `${OPEN}${this.index(token)}${CLOSE}`);
  }

  /** The rendered prompt with every placeholder turned back into its characters, and where to cut them. */
  reveal(rendered: string): GuardedPrompt {
    const cuts: number[] = [];
    let text = '';
    let last = 0;
    for (const match of rendered.matchAll(PLACEHOLDER)) {
      const token = this.tokenAt(Number(match[1]));
      text += rendered.slice(last, match.index);
      if (token.length > 1) cuts.push(text.length + 1);
      text += token;
      last = (match.index ?? 0) + match[0].length;
    }
    return { text: text + rendered.slice(last), cuts };
  }

  /** Untrusted parts of a conversation hidden: every message's text but the system prompt, and the arguments of calls. */
  messages(messages: readonly ChatMessage[]): ChatMessage[] {
    return messages.map((m) => {
      if (m.role === 'system') return m;
      const content = this.hide(m.content);
      if (m.role !== 'assistant' || !m.tool_calls?.length) return content === m.content ? m : { ...m, content };
      const tool_calls = m.tool_calls.map((c) => ({
        ...c,
        function: { ...c.function, arguments: this.deep(c.function.arguments) as Record<string, unknown> },
      }));
      return { ...m, content, tool_calls };
    });
  }

  /** Tools with their descriptions hidden (an MCP server writes them). */
  tools(tools: readonly ToolSchema[] | undefined): ToolSchema[] | undefined {
    return tools?.map((t) => this.deep(t) as ToolSchema);
  }

  private deep(value: unknown): unknown {
    if (typeof value === 'string') return this.hide(value);
    if (Array.isArray(value)) return value.map((v) => this.deep(v));
    if (value && typeof value === 'object') return Object.fromEntries(Object.entries(value).map(([k, v]) => [k, this.deep(v)]));
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
