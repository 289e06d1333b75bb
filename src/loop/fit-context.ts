import type { ChatMessage } from '../engine/engine.ts';
import { NexusError, registerErrorClass } from '../shared/errors.ts';

/**
 * The part of a stored conversation the model sees. Indices are into the conversation as it is
 * stored (a reply's `messages`: without the system prompt). Messages before `from` are no longer in the
 * model's memory; tool results before `shortenBefore` are shown shortened. Both only grow, turn
 * after turn, so the prompt's prefix — and the KV cache computed for it — stays the same until the
 * budget is reached again.
 */
export interface MemoryView {
  from: number;
  shortenBefore: number;
}

/** The whole conversation, nothing dropped or shortened. */
export const FULL_MEMORY: MemoryView = Object.freeze({ from: 0, shortenBefore: 0 });

/** How much of an old tool result stays when it is shortened to make room. */
export const SHORTENED_RESULT_CHARS = 400;

/** Thrown before any generation when a prompt cannot fit the model's context budget even with every older message dropped. */
export class ContextOverflowError extends NexusError {
  override readonly name = 'ContextOverflowError';
  /** Tokens the smallest prompt would need. */
  readonly promptTokens: number;
  /** Tokens a prompt may take (the context budget minus what is kept for the answer). */
  readonly budgetTokens: number;

  /**
   * @param message - the sizes and what to do, in words.
   * @param sizes - the same as numbers.
   */
  constructor(message: string, sizes: { promptTokens: number; budgetTokens: number }) {
    super(message);
    this.promptTokens = sizes.promptTokens;
    this.budgetTokens = sizes.budgetTokens;
  }
}

registerErrorClass(ContextOverflowError, 'ContextOverflowError');

/** An old tool result, cut to its start with a note of how much went: the model still sees what it called and roughly what came back. */
export function shortenResult(content: string): string {
  if (content.length <= SHORTENED_RESULT_CHARS) return content;
  return `${content.slice(0, SHORTENED_RESULT_CHARS)}… [shortened to make room: ${SHORTENED_RESULT_CHARS} of ${content.length} characters]`;
}

/** The history as the model sees it through `view`. */
export function historyInView(history: readonly ChatMessage[], view: MemoryView): ChatMessage[] {
  return history.slice(view.from).map((message, i) => {
    const index = view.from + i;
    if (message.role !== 'tool' || index >= view.shortenBefore) return message;
    const content = shortenResult(message.content);
    return content === message.content ? message : { ...message, content };
  });
}

/** Where each block before `end` starts, from `from` on: a user message and everything up to the next one. */
function blockStarts(messages: readonly ChatMessage[], from: number, end: number): number[] {
  const starts = [from];
  for (let i = from + 1; i < end; i++) if (messages[i]?.role === 'user') starts.push(i);
  return from < end ? starts : [];
}

/** Whether a tool result in view before `end` would change if shortened now. */
function canShorten(messages: readonly ChatMessage[], view: MemoryView, end: number): boolean {
  for (let i = Math.max(view.from, view.shortenBefore); i < end; i++) {
    const message = messages[i];
    if (message?.role === 'tool' && shortenResult(message.content) !== message.content) return true;
  }
  return false;
}

/**
 * The next, smaller view to try when a prompt does not fit: first the old tool results shortened
 * (those before `current`, where the answer being given starts), then the oldest half of the
 * remaining old blocks dropped (as llama.cpp keeps its first tokens and discards half of the rest,
 * so one trim buys room for many turns), and only then the current answer's own tool results
 * shortened. Undefined when nothing is left to take away: the question and the current answer are
 * never dropped.
 * @param messages - the stored conversation, the current question and answer included.
 * @param view - the view that did not fit.
 * @param current - where the current question starts (default: after everything).
 */
export function smallerView(messages: readonly ChatMessage[], view: MemoryView, current = messages.length): MemoryView | undefined {
  if (canShorten(messages, view, current)) return { from: view.from, shortenBefore: Math.max(view.shortenBefore, current) };
  const starts = blockStarts(messages, view.from, current);
  if (starts.length > 0) {
    const from = starts[Math.ceil(starts.length / 2)] ?? current;
    return { from, shortenBefore: Math.max(view.shortenBefore, from) };
  }
  if (canShorten(messages, view, messages.length)) return { from: view.from, shortenBefore: messages.length };
  return undefined;
}

/** The messages a view leaves out of the model's memory, and the tool results it shortens: for the step that records it. */
export function viewCounts(history: readonly ChatMessage[], view: MemoryView): { dropped: number; shortened: number } {
  let shortened = 0;
  for (let i = view.from; i < Math.min(view.shortenBefore, history.length); i++) {
    const message = history[i];
    if (message?.role === 'tool' && shortenResult(message.content) !== message.content) shortened++;
  }
  return { dropped: Math.min(view.from, history.length), shortened };
}
