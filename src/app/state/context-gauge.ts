import type { AppState } from './app-state.ts';
import { charsInMessage } from '../conversation/attachment-fence.ts';

/** How full the model's memory was at the last answer: its last generation's prompt and output, of the context budget. */
export function contextGauge(s: AppState): { used: number; budget: number } | undefined {
  const budget = s.model.context?.tokens;
  if (!budget || s.model.phase !== 'ready') return undefined;
  const last = s.conversation.turns.findLast((t) => t.role === 'assistant' && t.steps?.some((step) => step.kind === 'generation'));
  const generation = last?.steps?.findLast((step) => step.kind === 'generation');
  if (generation?.kind !== 'generation') return undefined;
  return { used: generation.promptTokens + generation.newTokens, budget };
}

/** Characters of text taken as a token, on the safe side (English runs near four): a file cut to fit is cut early, not late. */
const CHARS_PER_TOKEN = 3;

/**
 * Characters of attached text the next message may carry: what the model's memory has left after the
 * conversation so far, the answer's own room and what is already attached (before any answer, the whole
 * budget less the answer's room; before a model, 24,000 characters).
 */
export function attachmentRoom(s: AppState): number {
  const budget = s.model.context?.tokens;
  const attached = s.attachments.reduce((n, a) => n + charsInMessage(a), 0);
  if (!budget) return Math.max(0, 24_000 - attached);
  const used = contextGauge(s)?.used ?? 0;
  const tokens = budget - used - s.settings.maxNewTokens - 256;
  return Math.max(0, Math.min(Math.max(tokens, 0) * CHARS_PER_TOKEN, 120_000) - attached);
}
