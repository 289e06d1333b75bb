import { describe, expect, it } from 'vitest';
import { emptyConversation, type Conversation, type Turn } from '../state/app-state.ts';
import { historyOf, memoryOfTurns } from './conversation-history.ts';
import { MAX_VERSIONS, branchAt, messageVersions, showVersion, versionPlace } from './conversation-versions.ts';

let ids = 0;
/** A conversation of exchanges (question, answer), each answer with the step that finished it. */
function conversationOf(...exchanges: [string, string][]): Conversation {
  const turns: Turn[] = [];
  for (const [question, answer] of exchanges) {
    turns.push({ id: `t${ids++}`, role: 'user', text: question, state: 'done' });
    turns.push({ id: `t${ids++}`, role: 'assistant', text: answer, state: 'done', steps: [{ kind: 'finished', ms: 1, text: answer }] });
  }
  return { ...emptyConversation('c'), turns };
}

/** What `branchAt` leaves plus a new exchange, as the page does after an edit or Regenerate. */
function answerAgain(conversation: Conversation, at: number, question: string, answer: string): Conversation {
  const user = conversation.turns[at];
  if (!user) throw new Error(`no turn at ${at}`);
  const cut = branchAt(conversation, user);
  return { ...cut, turns: [...cut.turns, ...conversationOf([question, answer]).turns] };
}

const texts = (c: Conversation) => c.turns.map((t) => t.text);
/** What the model would remember of the conversation shown: derived from its turns. */
const said = (c: Conversation) => historyOf(c.turns).map((m) => m.content);

describe('conversation versions (issue 30, P3: a way back from Regenerate and edits)', () => {
  it('keeps what an edit replaced, and switches both ways with the model history alongside', () => {
    const start = conversationOf(['A?', 'a'], ['B?', 'b']);
    const edited = answerAgain(start, 2, 'B2?', 'b2');
    expect(texts(edited)).toEqual(['A?', 'a', 'B2?', 'b2']);
    expect(versionPlace(edited, 2)).toEqual({ index: 1, count: 2 });
    expect(versionPlace(edited, 0)).toBeUndefined();
    const back = showVersion(edited, 2, 0);
    expect(back && texts(back)).toEqual(['A?', 'a', 'B?', 'b']);
    expect(back && said(back)).toEqual(['A?', 'a', 'B?', 'b']);
    expect(back && versionPlace(back, 2)).toEqual({ index: 0, count: 2 });
    const forth = back && showVersion(back, 2, 1);
    expect(forth && said(forth)).toEqual(['A?', 'a', 'B2?', 'b2']);
    // Showing the version already shown, or one that does not exist, is refused.
    expect(showVersion(edited, 2, 1)).toBeUndefined();
    expect(showVersion(edited, 2, 5)).toBeUndefined();
    expect(showVersion(edited, 0, 0)).toBeUndefined();
  });

  it('carries the versions further down a branch with it', () => {
    const start = conversationOf(['A?', 'a'], ['B?', 'b']);
    // B is answered again (b → b2), then A is edited: the first branch at A holds B's versions.
    const regenerated = answerAgain(start, 2, 'B?', 'b2');
    const edited = answerAgain(regenerated, 0, 'A2?', 'a2');
    expect(texts(edited)).toEqual(['A2?', 'a2']);
    expect(versionPlace(edited, 2)).toBeUndefined();
    const back = showVersion(edited, 0, 0);
    expect(back && texts(back)).toEqual(['A?', 'a', 'B?', 'b2']);
    expect(back && versionPlace(back, 2)).toEqual({ index: 1, count: 2 });
    const older = back && showVersion(back, 2, 0);
    expect(older && texts(older)).toEqual(['A?', 'a', 'B?', 'b']);
  });

  it('keeps the memory view of each version, as the steps of its answers record it', () => {
    const start = conversationOf(['A?', 'a'], ['B?', 'b']);
    const last = start.turns[3];
    if (!last?.steps) throw new Error('no answer');
    const shrunk = { kind: 'memory', round: 1, from: 2, shortenBefore: 2, dropped: 2, shortened: 0, promptTokens: 900, budgetTokens: 800 } as const;
    const remembered = { ...start, turns: [...start.turns.slice(0, 3), { ...last, steps: [shrunk, ...last.steps] }] };
    expect(memoryOfTurns(remembered.turns)).toEqual({ from: 2, shortenBefore: 2 });
    const edited = answerAgain(remembered, 0, 'A2?', 'a2');
    expect(memoryOfTurns(edited.turns)).toEqual({ from: 0, shortenBefore: 0 });
    const back = showVersion(edited, 0, 0);
    expect(back && memoryOfTurns(back.turns)).toEqual({ from: 2, shortenBefore: 2 });
  });

  it(`keeps at most ${MAX_VERSIONS} versions at one message, dropping the oldest`, () => {
    let conversation = conversationOf(['A?', 'a0']);
    for (let i = 1; i <= MAX_VERSIONS + 5; i++) conversation = answerAgain(conversation, 0, 'A?', `a${i}`);
    expect(versionPlace(conversation, 0)).toEqual({ index: MAX_VERSIONS - 1, count: MAX_VERSIONS });
    const oldest = showVersion(conversation, 0, 0);
    expect(oldest && texts(oldest)).toEqual(['A?', 'a6']);
  });

  it('counts versions per message as the user sees them: edits by the message, answers again by the answer (issue 44)', () => {
    const start = conversationOf(['A?', 'a1']);
    const again = answerAgain(start, 0, 'A?', 'a2');
    const edited = answerAgain(again, 0, 'B?', 'b1');
    const both = answerAgain(edited, 0, 'B?', 'b2');
    // Four versions at the message: two texts, two answers to the one shown.
    expect(versionPlace(both, 0)).toEqual({ index: 3, count: 4 });
    expect(messageVersions(both, 0)).toEqual({ message: { index: 1, count: 2, targets: [1, 3] }, answer: { index: 1, count: 2, targets: [2, 3] } });
    // Back to the first text: its latest answer, with its own answer count.
    const first = showVersion(both, 0, 1);
    expect(first && texts(first)).toEqual(['A?', 'a2']);
    expect(first && messageVersions(first, 0)).toEqual({ message: { index: 0, count: 2, targets: [1, 3] }, answer: { index: 1, count: 2, targets: [0, 1] } });
    // Only answered again: no switcher by the message.
    expect(messageVersions(again, 0)).toEqual({ answer: { index: 1, count: 2, targets: [0, 1] } });
  });
});
