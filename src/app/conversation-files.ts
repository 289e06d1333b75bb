import type { ChatMessage } from '../index.ts';
import type { Conversation, Turn } from './app-state.ts';
import { titleFrom } from './format.ts';

/** What an export is saved as: a file name, its type, its text. */
export interface ConversationFile {
  filename: string;
  type: string;
  text: string;
}

/** The JSON export's marker, so an import can tell our files from any JSON. */
const FORMAT = 'nexus-chat/conversation';
const VERSION = 1;

/** Thrown when a file is not a conversation this page can read; the message says what is wrong. */
export class ConversationFileError extends Error {
  override readonly name = 'ConversationFileError';
}

const slug = (title: string) =>
  title
    .toLowerCase()
    .replace(/[^a-z0-9]+/g, '-')
    .replace(/^-+|-+$/g, '')
    .slice(0, 48) || 'conversation';

/** The whole conversation — what the user saw and what the model remembers — as JSON a later import restores exactly. */
export function conversationToJson(conversation: Conversation): ConversationFile {
  const text = JSON.stringify({ format: FORMAT, version: VERSION, conversation }, null, 2);
  return { filename: `${slug(conversation.title)}.json`, type: 'application/json', text };
}

/** The conversation as a readable Markdown document: a heading per speaker, answers as written, tool uses listed. */
export function conversationToMarkdown(conversation: Conversation): ConversationFile {
  const lines = [`# ${conversation.title}`, '', `_${new Date(conversation.createdAt).toISOString().slice(0, 10)} · Nexus Chat_`, ''];
  for (const turn of conversation.turns) {
    lines.push(turn.role === 'user' ? '## You' : '## Nexus', '');
    lines.push(turn.text.trim() || '_(no text)_', '');
    const calls = (turn.activity ?? []).filter((a) => a.kind === 'call');
    for (const call of calls) lines.push(`> used \`${call.name}(${JSON.stringify(call.arguments)})\``);
    if (calls.length) lines.push('');
    if (turn.note && turn.state !== 'done') lines.push(`> _${turn.note}_`, '');
  }
  return { filename: `${slug(conversation.title)}.md`, type: 'text/markdown', text: `${lines.join('\n').trimEnd()}\n` };
}

function isTurn(value: unknown): value is Turn {
  const turn = value as Partial<Turn>;
  return typeof turn === 'object' && turn !== null && (turn.role === 'user' || turn.role === 'assistant') && typeof turn.text === 'string' && typeof turn.id === 'string';
}

function isMessage(value: unknown): value is ChatMessage {
  const message = value as Partial<ChatMessage>;
  return typeof message === 'object' && message !== null && typeof message.role === 'string' && (typeof message.content === 'string' || message.content === undefined || message.content === null);
}

/** Reads a JSON export back. */
export function conversationFromJson(text: string): Conversation {
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch (error) {
    throw new ConversationFileError(`This file is not JSON (${(error as Error).message}). Import a .json file exported by Nexus Chat, or a .md export.`);
  }
  const file = parsed as { format?: unknown; conversation?: Partial<Conversation> };
  if (file?.format !== FORMAT || typeof file.conversation !== 'object' || file.conversation === null) {
    throw new ConversationFileError('This JSON file is not a Nexus Chat conversation export (it has no "format": "nexus-chat/conversation"). Import a file exported with "Export JSON".');
  }
  const c = file.conversation;
  if (!Array.isArray(c.turns) || !c.turns.every(isTurn)) throw new ConversationFileError('The conversation in this file has no readable turns: each needs an id, a role (user or assistant) and a text.');
  if (!Array.isArray(c.history) || !c.history.every(isMessage)) throw new ConversationFileError('The conversation in this file has no readable history for the model: each message needs a role and a content.');
  const now = new Date().toISOString();
  return {
    id: typeof c.id === 'string' ? c.id : '',
    title: typeof c.title === 'string' && c.title ? c.title : titleFrom(c.turns.find((t) => t.role === 'user')?.text ?? ''),
    createdAt: typeof c.createdAt === 'string' ? c.createdAt : now,
    updatedAt: typeof c.updatedAt === 'string' ? c.updatedAt : now,
    // An answer that was running when it was exported is shown as interrupted, never as still running.
    turns: c.turns.map((t) => (t.state === 'streaming' || t.state === 'stopping' ? { ...t, state: 'stopped' as const } : t)),
    history: c.history,
  };
}

/**
 * Reads a Markdown export back (`## You` / `## Nexus` sections). Only the words come back — tool
 * results and diagnostics are not in Markdown — and the model's memory is rebuilt from them.
 */
export function conversationFromMarkdown(text: string, newId: () => string): Conversation {
  const title = /^#\s+(.+)$/m.exec(text)?.[1]?.trim();
  const sections = text.split(/^##\s+(You|Nexus)\s*$/m);
  const turns: Turn[] = [];
  for (let i = 1; i + 1 < sections.length; i += 2) {
    const role = sections[i] === 'You' ? 'user' : 'assistant';
    const body = (sections[i + 1] ?? '')
      .split('\n')
      .filter((line) => !/^> used `/.test(line) && !/^> _.*_$/.test(line))
      .join('\n')
      .trim();
    turns.push({ id: newId(), role, text: body === '_(no text)_' ? '' : body, state: 'done' });
  }
  if (!turns.some((t) => t.role === 'user')) {
    throw new ConversationFileError('This Markdown file has no "## You" section: import a .md file exported by Nexus Chat, or a .json export.');
  }
  const history: ChatMessage[] = [];
  for (const turn of turns) {
    if (turn.role === 'user') turn.historyIndex = history.length;
    history.push({ role: turn.role, content: turn.text });
  }
  const now = new Date().toISOString();
  return { id: '', title: title || titleFrom(turns[0]?.text ?? ''), createdAt: now, updatedAt: now, turns, history };
}

/** Reads either export, chosen by the file's name or, failing that, its first character. */
export function readConversationFile(name: string, text: string, newId: () => string): Conversation {
  const json = /\.json$/i.test(name) || (!/\.(md|markdown)$/i.test(name) && text.trimStart().startsWith('{'));
  return json ? conversationFromJson(text) : conversationFromMarkdown(text, newId);
}
