import type { ConversationFile } from './conversation-files.ts';
import type { ConversationSearch } from './conversation-search.ts';
import { emptyConversation, type AppState, type Conversation, type ConversationSummary, type Turn } from '../state/app-state.ts';
import type { Persistence } from './persistence.ts';
import type { TabSync } from '../state/tab-sync.ts';
import type { ActionHandlers, ConversationAction } from '../state/app-actions.ts';
import type { SliceChange } from '../state/state-writers.ts';

/** Streamed text is saved at most this often, so an answer cut off by a closed tab is still there. */
const SAVE_EVERY_MS = 400;

/** What the conversation store needs of the page's store. */
export interface ConversationHost {
  /** The page's state as it is now. */
  state(): AppState;
  /** Writes this slice's own part of the page's state (see state-writers.ts). */
  set(change: SliceChange<'conversations'>): void;
  notify(text: string): void;
}

/** A fresh id (`randomUUID` exists only in secure contexts; a page opened over plain HTTP on a LAN address gets the fallback). */
export function newId(): string {
  return globalThis.crypto?.randomUUID?.() ?? `${Date.now().toString(36)}-${Math.random().toString(36).slice(2, 10)}`;
}

/**
 * The conversations part of the page's store: the open one and its saving, the saved list (open,
 * rename, delete with Undo, export, import) and a search index over them. State stays in the one
 * {@link AppState}; this part only changes its conversation fields.
 */
export class ConversationStore {
  /** The conversation deleted last, for Undo. */
  private deleted: Conversation | undefined;
  /** The latest search, so an earlier one that finishes later is not shown. */
  private pendingQuery = '';
  private saveTimer: ReturnType<typeof setTimeout> | undefined;
  /** The word index of the saved conversations: made, with its code, on the first search (it reads what is saved then). */
  private search: ConversationSearch | undefined;
  /** The open conversation's fields changed here since its last save: a save writes only these. */
  private dirty = new Set<keyof Conversation>();
  /**
   * The conversation an answer is being written in while the user reads another: it goes on here, saved
   * as it grows, and opens as it stands when the user goes back to it.
   */
  private background: Conversation | undefined;
  private backgroundTimer: ReturnType<typeof setTimeout> | undefined;

  /** The conversations slice's actions, which the store's one dispatch routes here (see app-actions.ts). */
  readonly actions: ActionHandlers<Exclude<ConversationAction, { type: 'newConversation' }>> = {
    selectConversation: ({ id }) => this.selectConversation(id),
    deleteConversation: ({ id }) => this.deleteConversation(id),
    undoDelete: () => this.undoDelete(),
    renameConversation: ({ id, title }) => this.renameConversation(id, title),
    setConversationInstructions: ({ text }) => this.setConversationInstructions(text),
    exportConversation: ({ id, format }) => this.exportConversation(id, format),
    exportAll: () => this.exportAll(),
    importConversation: (action) => this.importConversation(action.name, 'text' in action ? action.text : action.file),
    searchConversations: ({ query }) => this.searchConversations(query),
  };

  constructor(
    private readonly host: ConversationHost,
    private readonly persistence: Persistence,
    private readonly tabs?: TabSync,
  ) {}

  /**
   * Another tab saved a conversation: the list is read again, and the open conversation too when it
   * is that one and this tab is not answering in it (the tab that answers holds the conversation).
   */
  async changedElsewhere(id: string | undefined): Promise<void> {
    const conversations = await this.persistence.listConversations().catch(() => undefined);
    if (conversations) this.host.set({ conversations });
    const open = this.host.state().conversation;
    if (id === undefined || id !== open.id) return;
    const saved = await this.persistence.loadConversation(id).catch(() => undefined);
    if (!saved || saved.updatedAt === this.host.state().conversation.updatedAt) return;
    const { busy, queued } = this.host.state();
    if (busy || (queued && queued.waitingFor !== 'tab')) {
      // This tab answers here (or is about to): only what the other may change meanwhile (the name, the instructions) is taken.
      const { instructions: _mine, ...current } = this.host.state().conversation;
      this.host.set({ conversation: { ...current, title: saved.title, ...(saved.instructions ? { instructions: saved.instructions } : {}) } });
      return;
    }
    this.dirty.clear();
    this.host.set({ conversation: saved });
  }

  /**
   * The open conversation as stored now, made the open one if another tab changed it; call holding
   * its lock, before adding to it.
   */
  async reloadOpen(): Promise<void> {
    const open = this.host.state().conversation;
    const saved = await this.persistence.loadConversation(open.id).catch(() => undefined);
    if (!saved || saved.updatedAt === open.updatedAt) return;
    await this.saveNow();
    const fresh = (await this.persistence.loadConversation(open.id).catch(() => undefined)) ?? saved;
    this.dirty.clear();
    this.host.set({ conversation: fresh });
  }

  /** A message waits (for another tab, the model or its check): the open conversation stays open until it is in. */
  private occupied(): boolean {
    return this.host.state().queued !== undefined;
  }

  /**
   * The conversation the running answer writes in goes on in the background while another is open;
   * anything else open is simply left (it is saved as it changes).
   */
  private async leaveOpen(): Promise<void> {
    const open = this.host.state().conversation;
    if (this.host.state().answeringIn !== open.id) return;
    await this.saveNow();
    this.background = open;
  }

  /** The conversation `id` as this tab holds it now: the open one, or the one answering in the background. */
  held(id: string): Conversation | undefined {
    if (this.host.state().conversation.id === id) return this.host.state().conversation;
    return this.background?.id === id ? this.background : undefined;
  }

  /** The answer in the background ended: it is saved, and no longer held here. */
  async answerEnded(): Promise<void> {
    const background = this.background;
    this.background = undefined;
    clearTimeout(this.backgroundTimer);
    this.backgroundTimer = undefined;
    if (!background) return;
    try {
      this.host.set({ conversations: await this.persist(background, ['turns', 'updatedAt']) });
      this.announce(background.id);
    } catch (error) {
      this.host.notify(`Could not save “${background.title}”: ${(error as Error).message}`);
    }
  }

  /** Tells the other tabs what was saved. */
  private announce(id?: string): void {
    this.tabs?.post(id ? { kind: 'conversation', id } : { kind: 'conversations' });
  }

  /** Starts an empty conversation (saved once it has a message); an answer being written goes on in its own. */
  async newConversation(): Promise<void> {
    if (this.occupied()) return;
    await this.leaveOpen();
    this.dirty.clear();
    this.host.set({ conversation: emptyConversation(newId()) });
  }

  /** Opens a saved conversation; the model continues it with its full history. */
  async selectConversation(id: string): Promise<void> {
    if (this.occupied() || id === this.host.state().conversation.id) return;
    const background = this.background?.id === id ? this.background : undefined;
    await this.leaveOpen();
    if (background) {
      // Back to the conversation being answered: as it stands now, still being written.
      this.background = undefined;
      clearTimeout(this.backgroundTimer);
      this.backgroundTimer = undefined;
      this.dirty = new Set(['turns', 'updatedAt']);
      this.host.set({ conversation: background });
      return;
    }
    const saved = await this.persistence.loadConversation(id).catch(() => undefined);
    if (!saved) {
      this.host.notify('That conversation could not be read.');
      return;
    }
    // An answer another tab is writing is not interrupted: it is still being written.
    const conversation = (await this.tabs?.isAnswering(id)) ? saved : repairInterrupted(saved);
    this.dirty.clear();
    this.host.set({ conversation });
    if (conversation !== saved) {
      this.dirty = new Set(['turns', 'updatedAt']);
      await this.saveNow();
    }
  }

  /** Deletes a saved conversation (Undo brings it back); deleting the open one starts a new one. */
  async deleteConversation(id: string): Promise<void> {
    if (this.host.state().answeringIn === id) return;
    this.host.set({ listNote: undefined });
    // Another tab is writing an answer there: deleted here, its next save would bring it back.
    if (await this.tabs?.isAnswering(id)) {
      const title = this.host.state().conversations.find((c) => c.id === id)?.title ?? 'This conversation';
      const note = `“${title}” is being answered in another tab of Nexus Chat: delete it once that answer is done.`;
      this.host.set({ listNote: note });
      this.host.notify(note);
      return;
    }
    const { persistence } = this;
    const doomed = id === this.host.state().conversation.id ? this.host.state().conversation : await persistence.loadConversation(id).catch(() => undefined);
    this.search?.remove(id);
    const conversations = await persistence.deleteConversation(id).catch(() => this.host.state().conversations.filter((c) => c.id !== id));
    this.deleted = doomed;
    this.announce();
    this.host.set({ conversations, ...(doomed ? { undoDelete: { title: doomed.title } } : {}) });
    if (doomed) this.host.notify(`Deleted “${doomed.title}”.`);
    if (id === this.host.state().conversation.id) await this.newConversation();
  }

  /** Sets the open conversation's own instructions (empty removes them). Saved with the conversation. */
  setConversationInstructions(text: string): void {
    const { instructions: _old, ...conversation } = this.host.state().conversation;
    const trimmed = text.trim();
    this.setConversation(trimmed ? { ...conversation, instructions: trimmed } : conversation);
  }

  /** Brings back the conversation deleted last. */
  async undoDelete(): Promise<void> {
    const conversation = this.deleted;
    this.deleted = undefined;
    this.host.set({ undoDelete: undefined });
    if (!conversation) return;
    const conversations = await this.persist(conversation).catch(() => this.host.state().conversations);
    this.host.set({ conversations });
    this.announce(conversation.id);
    this.host.notify(`Restored “${conversation.title}”.`);
  }

  /** Renames a conversation (an empty name keeps the old one). */
  async renameConversation(id: string, title: string): Promise<void> {
    const name = title.replace(/\s+/g, ' ').trim().slice(0, 120);
    if (!name) return;
    if (id === this.host.state().conversation.id) {
      this.setConversation({ ...this.host.state().conversation, title: name });
      await this.saveNow();
      return;
    }
    const saved = await this.persistence.loadConversation(id).catch(() => undefined);
    if (!saved) return;
    const conversations = await this.persist({ ...saved, title: name }, ['title']).catch(() => this.host.state().conversations);
    this.host.set({ conversations });
    this.announce(id);
  }

  /** A conversation as a file to save: JSON (restores exactly) or Markdown (to read). */
  async exportConversation(id: string, format: 'json' | 'markdown'): Promise<ConversationFile | undefined> {
    const conversation =
      id === this.host.state().conversation.id ? this.host.state().conversation : await this.persistence.loadConversation(id).catch(() => undefined);
    if (!conversation || conversation.turns.length === 0) return undefined;
    // Files are read and written rarely: their code loads when one is.
    const { conversationToJson, conversationToMarkdown } = await import('./conversation-files.ts');
    return format === 'json' ? conversationToJson(conversation) : conversationToMarkdown(conversation);
  }

  /** Every saved conversation in one file ("Export all"), the open one as it is now; undefined when there are none. */
  async exportAll(): Promise<ConversationFile | undefined> {
    const open = this.host.state().conversation;
    const read = await Promise.all(
      this.host
        .state()
        .conversations.map((summary) =>
          summary.id === open.id ? open : (this.held(summary.id) ?? this.persistence.loadConversation(summary.id).catch(() => undefined)),
        ),
    );
    const conversations = read.filter((c): c is Conversation => c !== undefined && c.turns.length > 0);
    if (conversations.length === 0) return undefined;
    const { conversationsToJson } = await import('./conversation-files.ts');
    return conversationsToJson(conversations);
  }

  /**
   * Imports an export — one conversation (JSON or Markdown), or every one ("Export all") — each as a new
   * saved conversation, and opens the first. A file that is not one is refused with a message that says
   * why; nothing is changed then.
   */
  async importConversation(name: string, given: string | { size: number; text(): Promise<string> }): Promise<void> {
    let imported: { conversation: Conversation; notes: string[] }[];
    const { importOutcome, sameConversation } = await import('./conversation-files.ts');
    try {
      const { fileWorker, MAX_IMPORT_CHARS } = await import('./file-worker.ts');
      // A file surely past the bound is not read into the page at all (UTF-8 takes at most 4 bytes a character).
      if (typeof given !== 'string' && given.size > MAX_IMPORT_CHARS * 4) {
        throw new Error(
          `it is larger than ${(MAX_IMPORT_CHARS * 4) / 1_000_000} MB, far more than any export of this page. Import an export of fewer conversations.`,
        );
      }
      const text = typeof given === 'string' ? given : await given.text();
      // Parsed, checked and brought up to this version in the files' worker: a file built to be slow is refused by its deadline.
      imported = await fileWorker().run<{ conversation: Conversation; notes: string[] }[]>('importConversations', { name, text });
    } catch (error) {
      this.host.notify(`Could not import ${name}: ${(error as Error).message}`);
      this.host.set({ importError: `Could not import ${name}: ${(error as Error).message}` });
      return;
    }
    // A conversation already here (the same file imported twice) is not added again: said, not duplicated.
    const fresh: typeof imported = [];
    const here: string[] = [];
    for (const entry of imported) {
      const same = await this.storedCopyOf(entry.conversation, sameConversation);
      if (same) here.push(same);
      else fresh.push(entry);
    }
    const saved = fresh.map(({ conversation }) => ({ ...conversation, id: newId() }));
    let conversations = this.host.state().conversations;
    // Oldest first, so the list keeps the file's order, newest on top.
    for (const conversation of [...saved].reverse()) conversations = await this.persist(conversation).catch(() => conversations);
    const outcome = importOutcome({ name, saved, here: here.length, inFile: imported.length, notes: fresh.flatMap(({ notes }) => notes) });
    // A file that brought nothing new says so where the import was asked for, not only to a screen reader.
    this.host.set({ conversations, importError: outcome.nothing });
    this.announce();
    this.host.notify(outcome.said);
    const open = saved[0]?.id ?? here[0];
    if (open) await this.selectConversation(open);
  }

  /** The id of a saved conversation `same` as `conversation`, if there is one (only those of its title are read). */
  private async storedCopyOf(conversation: Conversation, same: (a: Conversation, b: Conversation) => boolean): Promise<string | undefined> {
    for (const summary of this.host.state().conversations) {
      if (summary.title !== conversation.title) continue;
      const stored = await this.persistence.loadConversation(summary.id).catch(() => undefined);
      if (stored && same(stored, conversation)) return summary.id;
    }
    return undefined;
  }

  /** Finds the saved conversations whose title or text has every word of `query` (an empty query ends the search). */
  async searchConversations(query: string): Promise<void> {
    this.pendingQuery = query;
    if (!query.trim()) {
      this.host.set({ conversationSearch: undefined });
      return;
    }
    if (!this.search) {
      const { ConversationSearch } = await import('./conversation-search.ts');
      this.search ??= new ConversationSearch((id) => this.persistence.loadConversation(id));
    }
    const matches = await this.search.search(query, this.host.state().conversations, this.host.state().conversation);
    // A newer search may have started while the index was first built: only the latest is shown.
    if (this.pendingQuery !== query) return;
    this.host.set({ conversationSearch: { query, matches } });
  }

  /** Replaces the open conversation (stamped now) and saves it soon: the fields that changed, not the whole. */
  setConversation(conversation: Conversation): void {
    const before = this.host.state().conversation;
    const next = { ...conversation, updatedAt: new Date().toISOString() };
    if (before.id !== next.id) this.dirty.clear();
    for (const key of new Set([...Object.keys(before), ...Object.keys(next)]) as Set<keyof Conversation>) {
      if (before[key] !== next[key]) this.dirty.add(key);
    }
    this.host.set({ conversation: next });
    this.scheduleSave();
  }

  /** Changes one turn — of the open conversation, or of the one answering in the background — and saves it soon. */
  updateTurn(id: string, change: (turn: Turn) => Partial<Turn>): void {
    const background = this.background;
    if (background?.turns.some((turn) => turn.id === id)) {
      const turns = background.turns.map((turn) => (turn.id === id ? { ...turn, ...change(turn) } : turn));
      this.background = { ...background, turns, updatedAt: new Date().toISOString() };
      this.backgroundTimer ??= setTimeout(() => {
        this.backgroundTimer = undefined;
        const current = this.background;
        if (current)
          void this.persist(current, ['turns', 'updatedAt']).then(
            (conversations) => this.host.set({ conversations }),
            () => undefined,
          );
      }, SAVE_EVERY_MS);
      return;
    }
    const conversation = this.host.state().conversation;
    // A turn of neither (a late log line of an answer in a conversation since closed): nothing to change or save.
    if (!conversation.turns.some((turn) => turn.id === id)) return;
    const turns = conversation.turns.map((turn) => (turn.id === id ? { ...turn, ...change(turn) } : turn));
    this.setConversation({ ...conversation, turns });
  }

  /** Saves the open conversation within {@link SAVE_EVERY_MS}, once however often it is asked. */
  scheduleSave(): void {
    this.saveTimer ??= setTimeout(() => void this.saveNow(), SAVE_EVERY_MS);
  }

  /** Saves a conversation (or some of its fields) and keeps the search index current; resolves with the saved list. */
  private persist(conversation: Conversation, fields?: readonly (keyof Conversation)[]): Promise<ConversationSummary[]> {
    this.search?.update(conversation);
    return this.persistence.saveConversation(conversation, fields);
  }

  /** Saves the open conversation now (empty ones are not kept). */
  async saveNow(): Promise<void> {
    clearTimeout(this.saveTimer);
    this.saveTimer = undefined;
    const conversation = this.host.state().conversation;
    if (conversation.turns.length === 0 || this.dirty.size === 0) return;
    const fields = [...this.dirty];
    this.dirty.clear();
    try {
      this.host.set({ conversations: await this.persist(conversation, fields) });
      this.announce(conversation.id);
    } catch (error) {
      this.host.notify(`Could not save the conversation: ${(error as Error).message}`);
    }
  }
}

/**
 * A conversation saved while an answer was being written (the tab closed or reloaded) is shown the
 * way an interrupted `chat()` leaves one: the answer is marked as stopped, and the model remembers the
 * question and the visible text already written (its history is derived from the turns).
 */
export function repairInterrupted(conversation: Conversation): Conversation {
  const last = conversation.turns.at(-1);
  if (last?.role !== 'assistant' || (last.state !== 'streaming' && last.state !== 'stopping')) return conversation;
  const interrupted: Turn = { ...last, state: 'stopped', note: 'Interrupted: the page was closed while this answer was being written.' };
  return { ...conversation, turns: [...conversation.turns.slice(0, -1), interrupted] };
}
