import { memoryOf, messagesOf, FULL_MEMORY, type ChatMessage, type MemoryView } from '../../internal.ts';
import type { Turn } from '../state/app-state.ts';
import { withAttachments } from './attachment-fence.ts';

/**
 * What a user turn sent the model: the words, then each attachment fenced as data with the marker it
 * was sent with, so the same message is rendered the same way on every later answer.
 */
export function userMessage(turn: Turn): ChatMessage {
  return { role: 'user', content: withAttachments(turn.text, turn.attachments ?? []) };
}

/**
 * What an answer added to the model's memory: its steps' turns (each round's calls with their results,
 * then the answer). An answer that was stopped or interrupted keeps the text the user saw, as the chat
 * does; one that failed keeps only its whole rounds.
 */
function answerMessages(turn: Turn): ChatMessage[] {
  const steps = turn.steps ?? [];
  const finished = steps.some((step) => step.kind === 'finished' || step.kind === 'handover');
  const partial = !finished && turn.state !== 'failed' ? turn.text.trim() : '';
  return [...messagesOf(steps), ...(partial ? [{ role: 'assistant' as const, content: partial }] : [])];
}

/**
 * The conversation as the model reads it: each user message, and what each answer's steps added. It is
 * derived, never stored, so what the page shows and what the model remembers cannot drift apart.
 */
export function historyOf(turns: readonly Turn[]): ChatMessage[] {
  return turns.flatMap((turn) => (turn.role === 'user' ? [userMessage(turn)] : answerMessages(turn)));
}

/** Messages per turn, by the turn object: a turn is replaced, never changed, so the page's renders count each once. */
const messageCounts = new WeakMap<Turn, number>();

/** Where each turn's messages begin in {@link historyOf} of the same turns. */
export function historyStarts(turns: readonly Turn[]): number[] {
  let at = 0;
  return turns.map((turn) => {
    const start = at;
    let count = messageCounts.get(turn);
    if (count === undefined) {
      count = turn.role === 'user' ? 1 : answerMessages(turn).length;
      messageCounts.set(turn, count);
    }
    at += count;
    return start;
  });
}

/**
 * Where the model's memory of the conversation begins once it outgrew the context budget: the last
 * answer's view that shrank it (a `memory` step), else all of it.
 */
export function memoryOfTurns(turns: readonly Turn[]): MemoryView {
  // The last answer that shrank the memory decides; reading back from the end finds it without folding every step.
  for (let i = turns.length - 1; i >= 0; i -= 1) {
    const steps = turns[i]?.steps;
    if (steps?.some((step) => step.kind === 'memory')) return memoryOf(steps, FULL_MEMORY);
  }
  return FULL_MEMORY;
}

/** The first user turn still in the model's memory when earlier ones have left it; undefined when all of it is there. */
export function firstRemembered(turns: readonly Turn[]): Turn | undefined {
  const { from } = memoryOfTurns(turns);
  if (from <= 0) return undefined;
  const starts = historyStarts(turns);
  return turns.find((turn, i) => turn.role === 'user' && (starts[i] ?? 0) >= from);
}
