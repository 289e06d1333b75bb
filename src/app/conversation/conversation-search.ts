import type MiniSearch from 'minisearch';
import type { Conversation, ConversationSummary } from '../state/app-state.ts';

interface Indexed {
  id: string;
  title: string;
  text: string;
}

function document(conversation: Conversation): Indexed {
  return { id: conversation.id, title: conversation.title, text: conversation.turns.map((t) => t.text).join('\n') };
}

/**
 * A word index of the saved conversations (titles and text), so a search is one lookup instead of
 * reading every conversation from IndexedDB. Built on the first search from what is saved (each
 * conversation read once), then kept current by the store as conversations are saved, renamed,
 * imported and deleted. Every word of a query must match, as a word or the start of one. The index's
 * code loads with the first search: a visit that never searches never fetches it.
 */
export class ConversationSearch {
  private index: MiniSearch<Indexed> | undefined;

  /**
   * Conversations saved since the last search, indexed when the next one runs: a streamed answer is
   * saved several times a second, and re-indexing its whole text on each save would be wasted work.
   */
  private readonly changed = new Map<string, Conversation>();

  /** @param read - reads a saved conversation (undefined when it cannot be read). */
  constructor(private readonly read: (id: string) => Promise<Conversation | undefined>) {}

  /** Notes a conversation as it is now; the next search indexes it. */
  update(conversation: Conversation): void {
    this.changed.set(conversation.id, conversation);
  }

  /** Forgets a deleted conversation. */
  remove(id: string): void {
    this.changed.delete(id);
    if (this.index?.has(id)) this.index.discard(id);
  }

  private static put(index: MiniSearch<Indexed>, conversation: Conversation): void {
    if (index.has(conversation.id)) index.replace(document(conversation));
    else index.add(document(conversation));
  }

  private async loaded(): Promise<MiniSearch<Indexed>> {
    if (this.index) return this.index;
    const { default: Index } = await import('minisearch');
    this.index ??= new Index<Indexed>({ fields: ['title', 'text'], storeFields: [], searchOptions: { combineWith: 'AND', prefix: true } });
    return this.index;
  }

  /** The conversations of `saved` (and the open one) that match every word of `query`, in `saved`'s order. */
  async search(query: string, saved: readonly ConversationSummary[], open: Conversation): Promise<ConversationSummary[]> {
    const index = await this.loaded();
    for (const conversation of this.changed.values()) ConversationSearch.put(index, conversation);
    this.changed.clear();
    for (const summary of saved) {
      if (summary.id === open.id || index.has(summary.id)) continue;
      const conversation = await this.read(summary.id).catch(() => undefined);
      // An unreadable conversation is still found by its title.
      ConversationSearch.put(
        index,
        conversation ?? { id: summary.id, title: summary.title, turns: [], createdAt: summary.updatedAt, updatedAt: summary.updatedAt },
      );
    }
    if (open.turns.length > 0) ConversationSearch.put(index, open);
    const hits = new Set(index.search(query).map((hit) => hit.id as string));
    return saved.filter((summary) => hits.has(summary.id));
  }
}
