import type { Conversation, Turn } from '../state/app-state.ts';
import { checkImportedConversation, ConversationFileError, hiddenInAnyVersion, IMPORT_LIMITS } from './conversation-schema.ts';
import { upgradeConversation, type LegacyConversation } from './conversation-upgrade.ts';
import { checkStoredConversation, storedShape } from './stored-conversation.ts';
import { titleFrom } from '../format.ts';
import { answerView } from './answer-view.ts';

/** What an export is saved as: a file name, its type, its text. */
export interface ConversationFile {
  filename: string;
  type: string;
  text: string;
}

/** The JSON export's marker, so an import can tell our files from any JSON. */
const FORMAT = 'nexus-chat/conversation';
/** The marker of a file holding every conversation ("Export all"). */
const ALL_FORMAT = 'nexus-chat/conversations';
/** The file format written: version 2 holds the conversation as the page keeps it, every answer its steps. */
const VERSION = 2;
/** The versions an import reads: 1 (answers as their views, the model's history beside the turns) is converted. */
const READS = [1, 2];
/** Conversations one "Export all" file may bring back. */
const MAX_CONVERSATIONS = 2_000;

export { ConversationFileError };

const slug = (title: string) =>
  title
    .toLowerCase()
    .replace(/[^a-z0-9]+/g, '-')
    .replace(/^-+|-+$/g, '')
    .slice(0, 48) || 'conversation';

/**
 * The whole conversation as JSON a later import restores exactly: as the page keeps it (version 2), every
 * answer its steps (generations' raw text capped as kept), every version of every message.
 */
export function conversationToJson(conversation: Conversation): ConversationFile {
  const text = JSON.stringify({ format: FORMAT, version: VERSION, conversation: storedShape(conversation) }, null, 2);
  return { filename: `${slug(conversation.title)}.json`, type: 'application/json', text };
}

/**
 * Every conversation in one JSON file, each as {@link conversationToJson} writes it; an import brings each
 * back as a conversation of its own, checked as a single file is.
 */
export function conversationsToJson(conversations: readonly Conversation[], now = new Date()): ConversationFile {
  const text = JSON.stringify({ format: ALL_FORMAT, version: VERSION, conversations: conversations.map(storedShape) }, null, 2);
  return { filename: `nexus-chat-conversations-${now.toISOString().slice(0, 10)}.json`, type: 'application/json', text };
}

/** One tool use as the Markdown export lists it: what happened to it, not just that it was asked for. */
function callLine(call: { name: string; arguments: unknown; status: string }): string {
  const written = `\`${call.name}(${JSON.stringify(call.arguments)})\``;
  if (call.status === 'ok' || call.status === 'duplicate') return `used ${written}`;
  if (call.status === 'refused') return `refused ${written} (not run)`;
  return `tried ${written}, which failed (${call.status})`;
}

/** The conversation as a readable Markdown document: a heading per speaker, answers as written, tool uses listed. */
export function conversationToMarkdown(conversation: Conversation): ConversationFile {
  const lines = [`# ${fullTitle(conversation)}`, '', `_${new Date(conversation.createdAt).toISOString().slice(0, 10)} · Nexus Chat_`, ''];
  for (const turn of conversation.turns) {
    lines.push(turn.role === 'user' ? '## You' : '## Nexus', '');
    lines.push(turn.text.trim() || '_(no text)_', '');
    const calls = answerView(turn).activity.filter((a) => a.kind === 'call');
    for (const call of calls) lines.push(`> ${callLine(call)}`);
    if (calls.length) lines.push('');
    if (turn.note && turn.state !== 'done') lines.push(`> _${turn.note}_`, '');
  }
  return { filename: `${slug(conversation.title)}.md`, type: 'text/markdown', text: `${lines.join('\n').trimEnd()}\n` };
}

/**
 * The title a document gets: the list's title, or, where the list cut the first message short (a title
 * made from it ends in "…"), that message's first line in full (up to 200 characters).
 */
function fullTitle(conversation: Conversation): string {
  const { title } = conversation;
  const first =
    conversation.turns
      .find((t) => t.role === 'user')
      ?.text.replace(/\s+/g, ' ')
      .trim() ?? '';
  if (!title.endsWith('…') || !first.startsWith(title.slice(0, -1))) return title;
  return first.length > 200 ? `${first.slice(0, 199)}…` : first;
}

/** An imported conversation, and what the import changed that the user should hear about. */
export interface ImportedConversation {
  conversation: Conversation;
  /** Said after the import: e.g. that the model's memory was rebuilt from what the conversation shows. */
  notes: string[];
}

/**
 * Reads a JSON export back: checked against the conversation schema (turn kinds, fields, sizes;
 * see `checkImportedConversation`). When the file's history for the model — the shown version's or
 * any other version's — holds anything its turns do not show (a system message, a user message, a tool
 * result…), no history of the file is used: every version's memory is rebuilt from its visible turns,
 * and a note says so.
 *
 * @throws ConversationFileError naming what is wrong.
 */
function importConversationJson(text: string): ImportedConversation {
  checkFileSize(text);
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch (error) {
    throw new ConversationFileError(`This file is not JSON (${(error as Error).message}). Import a .json file exported by Nexus Chat, or a .md export.`);
  }
  const file = parsed as { format?: unknown; version?: unknown; conversation?: unknown };
  if (file?.format !== FORMAT || typeof file.conversation !== 'object' || file.conversation === null) {
    throw new ConversationFileError(
      'This JSON file is not a Nexus Chat conversation export (it has no "format": "nexus-chat/conversation"). Import a file exported with "Export JSON".',
    );
  }
  return checkedConversation(file.conversation, versionOf(file.version));
}

/** A file's format version, if this page reads it (a file without one is of the first). */
function versionOf(value: unknown): number {
  const version = value ?? 1;
  if (typeof version === 'number' && READS.includes(version)) return version;
  throw new ConversationFileError(
    `This file is of format version ${JSON.stringify(version)}, which this page does not read (it reads versions ${READS.join(' and ')}): it was made by a newer Nexus Chat, or changed. Update the page and import it again.`,
  );
}

/** A file's instructions for its conversation, said on import: they steer every answer and nobody sees them in the conversation. */
function instructionsNote(instructions: string | undefined): string[] {
  if (!instructions) return [];
  const shown = instructions.length > 160 ? `${instructions.slice(0, 160)}…` : instructions;
  return [
    `This file gives the model instructions for this conversation: “${shown}”. Read or remove them in Settings, under “This conversation's instructions”.`,
  ];
}

/**
 * One conversation of a file, checked. Version 2 is the page's own shape (`stored-conversation.ts`). Version 1
 * (see `checkImportedConversation`) is converted, its history trusted only when its turns show all of it.
 */
function checkedConversation(raw: unknown, version: number): ImportedConversation {
  const now = new Date().toISOString();
  if (version === 2) {
    const report = { hiddenResults: 0 };
    const c = checkStoredConversation(raw, report);
    const conversation: Conversation = {
      ...c,
      title: c.title || titleFrom(c.turns.find((t) => t.role === 'user')?.text ?? ''),
      createdAt: c.createdAt ?? now,
      updatedAt: c.updatedAt ?? now,
    };
    const hidden = report.hiddenResults
      ? [
          `The model's memory holds only what the conversation shows: the results of ${report.hiddenResults === 1 ? 'one search' : `${report.hiddenResults} searches`} (of the web or of attached files) that the file held were not kept, as the page shows a search by what it found, not by its result.`,
        ]
      : [];
    return { conversation, notes: [...hidden, ...instructionsNote(c.instructions)] };
  }
  const c = checkImportedConversation(raw);
  const checked: LegacyConversation = {
    ...c,
    title: c.title || titleFrom(c.turns.find((t) => t.role === 'user')?.text ?? ''),
    createdAt: c.createdAt ?? now,
    updatedAt: c.updatedAt ?? now,
  };
  const hidden = hiddenInAnyVersion(c);
  const instructions = instructionsNote(c.instructions);
  if (hidden === undefined) return { conversation: upgradeConversation(checked), notes: instructions };
  return {
    conversation: upgradeConversation(checked, { history: false }),
    notes: [`The model's memory was rebuilt from the messages the conversation shows: the file's own held text it does not show (${hidden}).`, ...instructions],
  };
}

/** Reads a JSON export back; see {@link importConversationJson}. */
export function conversationFromJson(text: string): Conversation {
  return importConversationJson(text).conversation;
}

/**
 * Reads a Markdown export back (`## You` / `## Nexus` sections). Only the words come back — tool
 * results and diagnostics are not in Markdown — and the model's memory is rebuilt from them.
 */
function conversationFromMarkdown(text: string, newId: () => string): Conversation {
  const title = /^#\s+(.+)$/m.exec(text)?.[1]?.trim();
  const sections = text.split(/^##\s+(You|Nexus)\s*$/m);
  const turns: Turn[] = [];
  for (let i = 1; i + 1 < sections.length; i += 2) {
    const role = sections[i] === 'You' ? 'user' : 'assistant';
    const body = (sections[i + 1] ?? '')
      .split('\n')
      .filter((line) => !/^> (?:used|refused|tried) `/.test(line) && !/^> _.*_$/.test(line))
      .join('\n')
      .trim();
    turns.push({ id: newId(), role, text: body === '_(no text)_' ? '' : body, state: 'done' });
  }
  if (!turns.some((t) => t.role === 'user')) {
    throw new ConversationFileError('This Markdown file has no "## You" section: import a .md file exported by Nexus Chat, or a .json export.');
  }
  const now = new Date().toISOString();
  // Only the words come back: each answer's record is its text.
  return upgradeConversation({ id: '', title: title || titleFrom(turns[0]?.text ?? ''), createdAt: now, updatedAt: now, turns });
}

/** Refuses a file far larger than any export, before it is parsed. */
function checkFileSize(text: string): void {
  if (text.length <= IMPORT_LIMITS.fileChars) return;
  throw new ConversationFileError(`This file is larger than ${IMPORT_LIMITS.fileChars / 1_000_000} million characters; a conversation export is far smaller.`);
}

/**
 * Reads any export — one conversation (JSON or Markdown) or "Export all" — as the conversations it holds,
 * each with its import's notes. A conversation of an "Export all" file that fails its check is refused
 * by name (its place and title); the whole file is then refused, so nothing is half imported.
 *
 * @throws ConversationFileError naming what is wrong.
 */
export function importConversationFiles(name: string, text: string, newId: () => string): ImportedConversation[] {
  if (!/\.(md|markdown)$/i.test(name) && text.trimStart().startsWith('{') && text.includes(`"${ALL_FORMAT}"`)) {
    checkFileSize(text);
    let parsed: { format?: unknown; version?: unknown; conversations?: unknown };
    try {
      parsed = JSON.parse(text) as typeof parsed;
    } catch (error) {
      throw new ConversationFileError(`This file is not JSON (${(error as Error).message}). Import a .json file exported by Nexus Chat.`);
    }
    if (parsed?.format === ALL_FORMAT) {
      if (!Array.isArray(parsed.conversations) || parsed.conversations.length === 0)
        throw new ConversationFileError('This "Export all" file holds no conversations.');
      if (parsed.conversations.length > MAX_CONVERSATIONS) {
        throw new ConversationFileError(`This file holds more than ${MAX_CONVERSATIONS.toLocaleString('en-US')} conversations; import a smaller export.`);
      }
      const version = versionOf(parsed.version);
      return parsed.conversations.map((raw: unknown, i: number) => {
        try {
          return checkedConversation(raw, version);
        } catch (error) {
          const title = typeof (raw as { title?: unknown })?.title === 'string' ? ` (“${String((raw as { title: string }).title).slice(0, 80)}”)` : '';
          throw new ConversationFileError(`Conversation ${i + 1}${title}: ${(error as Error).message}`);
        }
      });
    }
  }
  return [importConversationFile(name, text, newId)];
}

/** Reads either export, chosen by the file's name or, failing that, its first character, with the import's notes. */
export function importConversationFile(name: string, text: string, newId: () => string): ImportedConversation {
  const json = /\.json$/i.test(name) || (!/\.(md|markdown)$/i.test(name) && text.trimStart().startsWith('{'));
  if (json) return importConversationJson(text);
  // A file of another kind is named as such, not blamed for a missing section it was never meant to have.
  const extension = /\.([^./\\]+)$/.exec(name)?.[1];
  if (extension && !/^(md|markdown)$/i.test(extension) && !/^\s*## (You|Nexus)\b/m.test(text)) {
    throw new ConversationFileError(`“${name}” is a .${extension} file: Nexus Chat imports the .json or .md files it exports.`);
  }
  checkFileSize(text);
  return { conversation: conversationFromMarkdown(text, newId), notes: [] };
}

/** Reads either export; see {@link importConversationFile}. */
export function readConversationFile(name: string, text: string, newId: () => string): Conversation {
  return importConversationFile(name, text, newId).conversation;
}

/** Whether two conversations are the same one: the same start, title and messages (an export imported back). */
export function sameConversation(a: Conversation, b: Conversation): boolean {
  const words = (c: Conversation) => JSON.stringify([c.title, c.createdAt, c.turns.map((turn) => [turn.role, turn.text])]);
  return words(a) === words(b);
}

/**
 * What an import says: what it added, and what it did not add because it was already here (issue 54: a file
 * imported twice used to duplicate every conversation, silently). `nothing` is set when nothing was added.
 */
export function importOutcome(o: { name: string; saved: readonly Conversation[]; here: number; inFile: number; notes: readonly string[] }): {
  said: string;
  nothing?: string;
} {
  const [first] = o.saved;
  const were = (n: number) => (n === 1 ? 'was' : 'were');
  if (!first) {
    const nothing = `Nothing imported from ${o.name}: ${o.inFile === 1 ? 'this conversation is' : `all ${o.here} conversations are`} already here.`;
    return { said: nothing, nothing };
  }
  const added = o.saved.length === 1 ? `Imported “${first.title}”.` : `Imported ${o.saved.length} conversations.`;
  const skipped = o.here ? `${o.here} ${were(o.here)} already here and ${were(o.here)} not imported again.` : '';
  return { said: [added, skipped, ...o.notes].filter(Boolean).join(' ') };
}
