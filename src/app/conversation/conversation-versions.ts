import type { Conversation, ConversationBranch, Turn, VersionSet } from '../state/app-state.ts';

// Versions are turns only: the model's history of whichever is shown is derived from its turns
// (conversation-history.ts), so cutting and switching keep no record of where a history was cut.

/** Where the version switcher of one user message stands: "2 of 3". */
export interface VersionPlace {
  index: number;
  count: number;
}

/** The versions kept at one message; older ones beyond this are dropped, so a long edit session cannot fill the browser's storage. */
export const MAX_VERSIONS = 20;

/** The branch of `conversation` from its user turn at `at` on, with the versions that belong to it. */
function branchFrom(conversation: Conversation, at: number): ConversationBranch {
  const nested = Object.fromEntries(Object.entries(conversation.versions ?? {}).filter(([key]) => Number(key) > at));
  return { turns: conversation.turns.slice(at), ...(Object.keys(nested).length ? { versions: nested } : {}) };
}

/** The versions of `conversation` that belong to what comes before position `at` (and at it). */
function versionsBefore(conversation: Conversation, at: number): Record<string, VersionSet> {
  return Object.fromEntries(Object.entries(conversation.versions ?? {}).filter(([key]) => Number(key) <= at));
}

function withVersions(conversation: Conversation, versions: Record<string, VersionSet>): Conversation {
  const { versions: _old, ...rest } = conversation;
  return Object.keys(versions).length ? { ...rest, versions } : rest;
}

/**
 * Cuts `conversation` back to just before its user turn `user`, keeping what was cut as a version
 * at that place: the edited message or the new answer becomes the last version there, and the
 * user can go back to the old one. Returns the conversation cut back.
 */
export function branchAt(conversation: Conversation, user: Turn): Conversation {
  const at = conversation.turns.indexOf(user);
  if (at < 0) return conversation;
  const kept = branchFrom(conversation, at);
  const set = conversation.versions?.[at];
  const others = [...(set?.others ?? []), kept].slice(-(MAX_VERSIONS - 1));
  const cut: Conversation = { ...conversation, turns: conversation.turns.slice(0, at) };
  return withVersions(cut, { ...versionsBefore(conversation, at - 1), [at]: { others, index: others.length } });
}

/** Where the versions at the user turn at position `at` stand, if it has any. */
export function versionPlace(conversation: Conversation, at: number): VersionPlace | undefined {
  const set = conversation.versions?.[at];
  return set?.others.length ? { index: set.index, count: set.others.length + 1 } : undefined;
}

/**
 * Shows another version at the user turn at position `at`: the one shown now is kept among the
 * others, in its place, and the chosen one comes back with the versions further down it.
 * Returns `undefined` when there is no such version.
 */
export function showVersion(conversation: Conversation, at: number, index: number): Conversation | undefined {
  const set = conversation.versions?.[at];
  if (!set || index === set.index || index < 0 || index > set.others.length) return undefined;
  const all = [...set.others];
  all.splice(set.index, 0, branchFrom(conversation, at));
  const [chosen] = all.splice(index, 1);
  if (!chosen || !conversation.turns[at]) return undefined;
  const shown: Conversation = { ...conversation, turns: [...conversation.turns.slice(0, at), ...chosen.turns] };
  return withVersions(shown, { ...versionsBefore(conversation, at - 1), [at]: { others: all, index }, ...(chosen.versions ?? {}) });
}

/** One message's switcher: where it stands, and which version (its place among all at the message) each step shows. */
export interface MessageVersionPlace extends VersionPlace {
  /** For each of the `count` places, the version to show (an index for {@link showVersion}). */
  targets: number[];
}

/**
 * The versions at the user message at position `at`, counted as the user sees them: the message's own
 * (the different texts it was sent with — edits) and the answers to the text shown (Regenerate). Going to
 * another text shows the latest answer it had. Either is undefined when there is only one.
 */
export function messageVersions(conversation: Conversation, at: number): { message?: MessageVersionPlace; answer?: MessageVersionPlace } {
  const set = conversation.versions?.[at];
  const shown = conversation.turns[at];
  if (!set?.others.length || !shown) return {};
  const texts = [...set.others.map((branch) => branch.turns[0]?.text ?? '')];
  texts.splice(set.index, 0, shown.text);
  const distinct = [...new Set(texts)];
  const latestWith = (text: string) => texts.lastIndexOf(text);
  const sameText = texts.flatMap((text, i) => (text === shown.text ? [i] : []));
  return {
    ...(distinct.length > 1 ? { message: { index: distinct.indexOf(shown.text), count: distinct.length, targets: distinct.map(latestWith) } } : {}),
    ...(sameText.length > 1 ? { answer: { index: sameText.indexOf(set.index), count: sameText.length, targets: sameText } } : {}),
  };
}
