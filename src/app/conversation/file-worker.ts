/**
 * The page's one way to work on a file from outside (an attached document, an imported conversation file): in the
 * files' worker, one job at a time, each within a deadline and a size cap (issue 67, M1). A file built to be slow
 * ends its worker with a refusal that names the bound, while the page goes on answering; the next job starts a
 * fresh worker.
 */
import { BoundedWorker, type SemanticEncoder, type WorkBounds, type WorkPort } from '../../internal.ts';
import { IMPORT_LIMITS } from './conversation-schema.ts';
import { FILE_DEADLINES_MS } from './file-deadlines.ts';
import type { NamedDocument } from './file-work.ts';

/** Characters one file's text may have to be read as a document: what the largest file attached (25 MB) decodes to. */
const MAX_READ_CHARS = 25 * 1024 * 1024;
/** Characters of all of one conversation's documents, indexed together. */
const MAX_INDEX_CHARS = 16_000_000;
/** Characters of a conversation file imported at most: the importer's own bound. */
export const MAX_IMPORT_CHARS = IMPORT_LIMITS.fileChars;

const textChars = (input: { text: string }) => input.text.length;

/** One job's bounds, its deadline read from the one table (`file-deadlines.ts`) when the job starts. */
function bounds<Input>(job: keyof typeof FILE_DEADLINES_MS, what: string, maxInputChars: number, charsOf: (input: Input) => number): WorkBounds<Input> {
  return {
    what,
    get deadlineMs() {
      return FILE_DEADLINES_MS[job];
    },
    maxInputChars,
    charsOf,
  };
}

const FILE_WORK_BOUNDS = {
  readDocument: bounds('readDocument', 'reading the file', MAX_READ_CHARS, textChars),
  openIndex: bounds('openIndex', 'indexing the attached files', MAX_INDEX_CHARS, (input: { documents: NamedDocument[] }) =>
    input.documents.reduce((sum, d) => sum + d.text.length, 0),
  ),
  searchIndex: bounds('searchIndex', 'searching the attached files', 10_000, (input: { query: string }) => input.query.length),
  importConversations: bounds('importConversations', 'reading the conversation file', MAX_IMPORT_CHARS, textChars),
};

/** A job of the files' worker. */
export type FileJob = keyof typeof FILE_WORK_BOUNDS;

/** Starts the files' worker: a module worker of this origin, unless {@link useFileWorker} said otherwise. */
let startWorker = (): WorkPort => {
  if (typeof Worker !== 'function') throw new Error('This runtime has no Web Workers to read files in: call useFileWorker first.');
  return new Worker(new URL('./file-worker-entry.ts', import.meta.url), { type: 'module', name: 'nexus-files' }) as unknown as WorkPort;
};

let shared: BoundedWorker<FileJob> | undefined;
/** The sentence encoder the worker's passage index ranks by meaning with (it lives in the model's worker; the page relays). */
let encoder: SemanticEncoder | undefined;

/**
 * Where the files' worker comes from, for a runtime without Web Workers (Node, where the app's state is tested:
 * `useFileWorker(() => inThreadWorker(fileWork))`). The next job starts it.
 */
export function useFileWorker(start: () => WorkPort): void {
  startWorker = start;
  shared?.dispose();
  shared = undefined;
}

/** Lends the files' worker the sentence encoder its passage searches rank by meaning with (undefined: by words alone). */
export function lendSentenceEncoder(semantic: SemanticEncoder | undefined): void {
  encoder = semantic;
}

const noEncoder = () => Promise.reject(new Error('No sentence encoder is loaded.'));

/** The files' worker, started with its first job. */
export function fileWorker(): BoundedWorker<FileJob> {
  shared ??= new BoundedWorker<FileJob>({
    start: () => startWorker(),
    bounds: FILE_WORK_BOUNDS,
    host: {
      embedDocuments: (texts: readonly string[]) => (encoder ? encoder.documents(texts) : noEncoder()),
      embedQuery: (text: string) => (encoder ? encoder.query(text) : noEncoder()),
    },
  });
  return shared;
}
