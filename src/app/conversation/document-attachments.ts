/**
 * Attached files too long for the model's context, as documents it searches. Reading, cutting and indexing them is
 * work on outside input: it runs in the files' worker (`file-worker.ts`), within a deadline and a size cap, so a
 * file built to be slow is refused by name while the page goes on answering (issue 67, M1).
 */
import type { BoundedWorker, IndexedDocument, PassageHit, PassageIndex, PassageSearchOptions, SemanticEncoder } from '../../internal.ts';
import type { Attachment, Turn } from '../state/app-state.ts';
import type { NamedDocument, ReadDocument } from './file-work.ts';
import { fileWorker, lendSentenceEncoder, type FileJob } from './file-worker.ts';

/**
 * An attachment of a text too long to read whole: kept whole (to the bound) and indexed, the model searching it by
 * passage. An HTML document is indexed as the text a reader sees.
 * @throws WorkLimitError for a file too long or too slow to read within the worker's bounds.
 */
export async function indexedAttachment(input: { name: string; from: string; text: string }): Promise<Attachment> {
  const read = await fileWorker().run<ReadDocument>('readDocument', { name: input.name, text: input.text });
  return {
    name: input.name,
    from: input.from,
    text: read.text,
    chars: read.text.length,
    ...(read.readable > read.text.length ? { cutFrom: read.readable } : {}),
    indexed: { passages: read.passages },
  };
}

/** The documents of a conversation's messages, each under a name of its own (a second `notes.txt` is `notes.txt (2)`). */
function documentsOf(turns: readonly Turn[]): (NamedDocument & { fence: string })[] {
  const seen = new Map<string, number>();
  return turns.flatMap((turn) =>
    (turn.attachments ?? []).flatMap((attachment) => {
      if (!attachment.indexed) return [];
      const count = (seen.get(attachment.name) ?? 0) + 1;
      seen.set(attachment.name, count);
      return [{ name: count > 1 ? `${attachment.name} (${count})` : attachment.name, text: attachment.text, fence: attachment.fence ?? '' }];
    }),
  );
}

/** The index the files' worker holds now (it holds one at a time). */
let opened: WorkerPassageIndex | undefined;

/**
 * One conversation's documents, indexed in the files' worker: what the answer's `search_attachments` searches.
 * Should the worker be ended (a search past its deadline) or hold another conversation's index, the next search
 * builds this one again first.
 */
class WorkerPassageIndex implements PassageIndex {
  private built = -1;
  documents: IndexedDocument[] = [];

  constructor(
    readonly worker: BoundedWorker<FileJob>,
    private readonly named: readonly NamedDocument[],
    private readonly semantic: SemanticEncoder | undefined,
  ) {}

  async search(query: string, options: PassageSearchOptions = {}): Promise<PassageHit[]> {
    lendSentenceEncoder(this.semantic);
    if (this.built !== this.worker.generation || opened !== this) await this.open();
    return this.worker.run<PassageHit[]>('searchIndex', { query, options });
  }

  /** (Re)builds this index in the worker. */
  async open(): Promise<void> {
    lendSentenceEncoder(this.semantic);
    opened = undefined;
    this.documents = await this.worker.run<IndexedDocument[]>('openIndex', { documents: this.named, semantic: this.semantic !== undefined });
    this.built = this.worker.generation;
    opened = this;
  }
}

let cached: { key: string; semantic: SemanticEncoder | undefined; index: WorkerPassageIndex } | undefined;

/**
 * The index of the documents attached to these turns, or undefined when there are none. The last one built is
 * kept: the next question of the same conversation searches it again without cutting anything anew. With the
 * sentence encoder the tool search loaded (`semantic`), passages rank by meaning too; once it is ready, the
 * index is built again with it.
 * @throws WorkLimitError for documents too long, or too slow, to index within the worker's bounds.
 */
export async function documentIndexOf(turns: readonly Turn[], semantic?: SemanticEncoder): Promise<PassageIndex | undefined> {
  const documents = documentsOf(turns);
  if (!documents.length) return undefined;
  const key = documents.map((d) => `${d.name}\u0000${d.fence}\u0000${d.text.length}`).join('\u0001');
  const worker = fileWorker();
  if (cached?.key === key && cached.semantic === semantic && cached.index.worker === worker) return cached.index;
  const index = new WorkerPassageIndex(
    worker,
    documents.map(({ name, text }) => ({ name, text })),
    semantic,
  );
  await index.open();
  cached = { key, semantic, index };
  return index;
}
