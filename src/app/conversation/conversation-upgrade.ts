import type { ChatMessage, MemoryView, Step, ToolCallRecord } from '../../internal.ts';
import type { Attachment, Conversation, ConversationBranch, Turn, VersionSet } from '../state/app-state.ts';
import { memoryOfTurns } from './conversation-history.ts';

/** A turn as pages before this one stored it (and as a JSON export still carries it): a user turn marks where its message is in the history. */
export type LegacyTurn = Turn & { historyIndex?: number };

/** A version as it was stored beside a history. */
export interface LegacyBranch {
  turns: LegacyTurn[];
  history?: ChatMessage[];
  memory?: MemoryView;
  versions?: Record<string, { others: LegacyBranch[]; index: number }>;
}

/**
 * A conversation as pages before this one stored it, and as a JSON export carries it: the model's
 * history kept beside the turns, tied to them by each user turn's `historyIndex`.
 */
export interface LegacyConversation extends Omit<Conversation, 'turns' | 'versions'> {
  turns: LegacyTurn[];
  history?: ChatMessage[];
  memory?: MemoryView;
  versions?: Record<string, { others: LegacyBranch[]; index: number }>;
}

/** The fence markers a user message was sent with, in order. */
function fencesIn(content: string): string[] {
  return [...content.matchAll(/<<<ATTACHMENT-([0-9A-Za-z_-]{1,40})\n/g)].map((match) => match[1] ?? '');
}

function parsedArguments(value: unknown): Record<string, unknown> {
  if (typeof value === 'object' && value !== null && !Array.isArray(value)) return value as Record<string, unknown>;
  if (typeof value !== 'string') return {};
  try {
    const parsed: unknown = JSON.parse(value);
    return typeof parsed === 'object' && parsed !== null && !Array.isArray(parsed) ? (parsed as Record<string, unknown>) : {};
  } catch {
    return {};
  }
}

/**
 * The steps an answer saved before steps were its record stands for: each assistant message with calls
 * a round (its calls, with the results that follow, and the turn that wrote them), the last message
 * without calls the answer — `finished` only when the answer was (a stopped one keeps its text as shown).
 */
function stepsFromMessages(messages: readonly ChatMessage[], done: boolean): Step[] {
  const steps: Step[] = [];
  let round = 0;
  let answer: string | undefined;
  for (const [i, message] of messages.entries()) {
    if (message.role !== 'assistant') continue;
    if (!message.tool_calls?.length) {
      answer = message.content;
      continue;
    }
    round += 1;
    const results = new Map<string, string>();
    for (const next of messages.slice(i + 1)) {
      if (next.role !== 'tool') break;
      results.set(next.tool_call_id, next.content);
    }
    const calls = message.tool_calls.filter((call) => results.has(call.id));
    for (const call of calls) {
      const record: ToolCallRecord = {
        id: call.id,
        name: call.function.name,
        arguments: parsedArguments(call.function.arguments),
        source: 'inline',
        round,
        status: 'ok',
        result: results.get(call.id) ?? '',
        ms: 0,
      };
      steps.push({ kind: 'call', round, record });
    }
    steps.push({ kind: 'turn', round, text: message.content ?? '', callIds: calls.map((call) => call.id), split: false });
  }
  if (done && answer !== undefined) steps.push({ kind: 'finished', ms: 0, text: answer });
  return steps;
}

/**
 * Turns of one level (a conversation's, or a version's from its first message on) with what the history
 * beside them said: each answer's steps where it had none, each attachment's fence marker. `base` is
 * where `history` begins in the whole conversation's history (a version's own part begins at its message).
 */
function turnsWithSteps(turns: readonly LegacyTurn[], history: readonly ChatMessage[] | undefined, base: number): Turn[] {
  // A user turn says where its message is; one that does not (a file written by hand, an older page) is
  // matched by order when the history has one user message per user turn.
  const userTurns = turns.filter((turn) => turn.role === 'user');
  const userMessages = (history ?? []).flatMap((message, i) => (message.role === 'user' ? [i] : []));
  const byOrder = userTurns.length === userMessages.length;
  const place = (turn: LegacyTurn | undefined): number | undefined => {
    if (!history || turn?.role !== 'user') return undefined;
    const local = turn.historyIndex === undefined ? (byOrder ? userMessages[userTurns.indexOf(turn)] : undefined) : turn.historyIndex - base;
    return local !== undefined && history[local]?.role === 'user' ? local : undefined;
  };
  return turns.map(({ historyIndex: _index, ...turn }, i) => {
    if (turn.role === 'user') {
      const at = place(turns[i]);
      const fences = at === undefined ? [] : fencesIn(history?.[at]?.content ?? '');
      const attachments = turn.attachments?.map((attachment: Attachment, n) =>
        attachment.fence || !fences[n] ? attachment : { ...attachment, fence: fences[n] },
      );
      return attachments ? { ...turn, attachments } : turn;
    }
    if (turn.steps) return turn;
    const start = place(turns[i - 1]);
    const end = turns.slice(i + 1).find((t) => place(t) !== undefined);
    const messages =
      start === undefined || !history
        ? turn.text.trim()
          ? [{ role: 'assistant' as const, content: turn.text.trim() }]
          : []
        : history.slice(start + 1, end ? place(end) : history.length);
    return { ...turn, steps: stepsFromMessages(messages, turn.state === 'done') };
  });
}

/** The last answer of `turns` carries the memory view that was stored beside them, when their steps do not already give it. */
function withMemory(turns: Turn[], memory: MemoryView | undefined): Turn[] {
  if (!memory || (memory.from <= 0 && memory.shortenBefore <= 0)) return turns;
  const derived = memoryOfTurns(turns);
  if (derived.from === memory.from && derived.shortenBefore === memory.shortenBefore) return turns;
  const last = turns.findLastIndex((turn) => turn.role === 'assistant');
  const answer = turns[last];
  if (!answer) return turns;
  const step: Step = { kind: 'memory', round: 0, ...memory, dropped: 0, shortened: 0, promptTokens: 0, budgetTokens: 0 };
  return turns.map((turn, i) => (i === last ? { ...answer, steps: [...(answer.steps ?? []), step] } : turn));
}

/**
 * A conversation as the page keeps it today: every answer's steps are its record, and the model's
 * history is derived from them. A conversation saved before (a history beside the turns, user turns
 * pointing into it) is converted: each answer's part of the history becomes its steps, each
 * attachment keeps the fence it was sent with, the memory view goes with the last answer. One already
 * converted comes back as it is (the stale history of a conversation saved in both shapes is ignored).
 *
 * @param stored - a conversation from storage or a checked import; `history: false` ignores its history
 *   (an import whose history holds what its turns do not show: each answer is then its text alone).
 */
export function upgradeConversation(stored: LegacyConversation, options: { history?: boolean } = {}): Conversation {
  const useHistory = options.history !== false;
  const { history, memory, versions, ...rest } = stored;
  const level = (turns: readonly LegacyTurn[], levelHistory: readonly ChatMessage[] | undefined, base: number, levelMemory: MemoryView | undefined): Turn[] =>
    withMemory(turnsWithSteps(turns, useHistory ? levelHistory : undefined, base), useHistory ? levelMemory : undefined);
  const upgradeVersions = (shown: readonly LegacyTurn[], sets: LegacyConversation['versions']): Record<string, VersionSet> | undefined => {
    if (!sets) return undefined;
    return Object.fromEntries(
      Object.entries(sets).map(([key, set]) => {
        const at = Number(key);
        const base = shown[at]?.historyIndex ?? 0;
        const others = set.others.map((branch): ConversationBranch => {
          // A version's history begins at its message, as do the user turns' places in it.
          const turns = level(branch.turns, branch.history, base, branch.memory);
          const nested = upgradeVersions([...shown.slice(0, at), ...branch.turns], branch.versions);
          return { turns, ...(nested ? { versions: nested } : {}) };
        });
        return [key, { others, index: set.index }];
      }),
    );
  };
  const upgradedVersions = upgradeVersions(stored.turns, versions);
  return { ...rest, turns: level(stored.turns, history, 0, memory), ...(upgradedVersions ? { versions: upgradedVersions } : {}) };
}
