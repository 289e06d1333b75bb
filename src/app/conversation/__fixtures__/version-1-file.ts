/**
 * Version 1 conversation files, as pages before the steps were the file's record wrote them: for the
 * tests that import one (the page reads version 1 and converts it; it writes version 2).
 */
import type { Conversation, Turn, VersionSet } from '../../state/app-state.ts';
import { answerView } from '../answer-view.ts';
import { historyOf, historyStarts, memoryOfTurns } from '../conversation-history.ts';
import type { LegacyBranch, LegacyConversation, LegacyTurn } from '../conversation-upgrade.ts';

/** A conversation as a version 1 file held it: answers as their views, the model's history beside the turns. */
export function conversationToVersion1Json(conversation: Conversation): { text: string } {
  return { text: JSON.stringify({ format: 'nexus-chat/conversation', version: 1, conversation: fileShape(conversation) }, null, 2) };
}

/**
 * The conversation as a file holds it, in the format files have always had: each answer as what its
 * steps show (tool lines, diagnostics, metrics, drafts — the steps are the page's own record), and the
 * model's history beside the turns with each user turn's place in it, which an import checks against
 * what the turns show before it converts them back (conversation-upgrade.ts).
 */
function fileShape(conversation: Conversation): LegacyConversation {
  const viewed = (turn: Turn): LegacyTurn => {
    if (!turn.steps) return turn;
    const { steps: _steps, checking: _checking, ...rest } = turn;
    const view = answerView(turn);
    return { ...rest, activity: view.activity, diagnostics: view.diagnostics, drafts: view.drafts, ...(view.metrics ? { metrics: view.metrics } : {}) };
  };
  const level = (turns: readonly Turn[], versions: Record<string, VersionSet> | undefined) => {
    const starts = historyStarts(turns);
    const fileTurns = turns.map((turn, i) => (turn.role === 'user' ? { ...turn, historyIndex: starts[i] ?? 0 } : viewed(turn)));
    const fileVersions =
      versions &&
      Object.fromEntries(
        Object.entries(versions).map(([key, set]) => {
          const at = Number(key);
          const others = set.others.map((branch): LegacyBranch => {
            const whole = [...turns.slice(0, at), ...branch.turns];
            const inner = level(whole, branch.versions);
            const memory = memoryOfTurns(whole);
            return {
              turns: inner.turns.slice(at),
              history: historyOf(whole).slice(starts[at] ?? 0),
              ...(memory.from || memory.shortenBefore ? { memory } : {}),
              ...(inner.versions ? { versions: inner.versions } : {}),
            };
          });
          return [key, { others, index: set.index }];
        }),
      );
    return { turns: fileTurns, versions: fileVersions };
  };
  const { turns, versions } = level(conversation.turns, conversation.versions);
  const memory = memoryOfTurns(conversation.turns);
  return {
    ...conversation,
    turns,
    history: historyOf(conversation.turns),
    ...(memory.from || memory.shortenBefore ? { memory } : {}),
    ...(versions ? { versions } : {}),
  };
}

