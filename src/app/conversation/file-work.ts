/**
 * The work done on files from outside in the files' worker (`file-worker-entry.ts`): reading an attached file's
 * text as a document (an HTML file as the text a reader sees), cutting it into passages, one conversation's
 * passage index and its searches, and reading an imported conversation file. Nothing here runs on the page's main
 * thread; `file-worker.ts` bounds each job. What only one job needs (an HTML parser, the conversation file reader) loads when that job first runs.
 */
import { DocumentIndex, passagesOf, type HostCaller, type IndexedDocument, type PassageHit, type PassageSearchOptions } from '../../internal.ts';
import { htmlDocumentText, isHtmlDocument } from './html-document.ts';
import type { ImportedConversation } from './conversation-files.ts';

/** Characters of one document kept and indexed at most: a long book; past it the rest is cut, and the note says so. */
const MAX_DOCUMENT_CHARS = 2_000_000;

/** A file's text read as a document: what the model searches, how long it was, and how many passages it makes. */
export interface ReadDocument {
  text: string;
  /** Characters of its readable text before it was cut to {@link MAX_DOCUMENT_CHARS}. */
  readable: number;
  passages: number;
}

/** One document of a conversation's index. */
export interface NamedDocument {
  name: string;
  text: string;
}

let index: DocumentIndex | undefined;

/** The jobs the files' worker does, by kind. */
export const fileWork = {
  /**
   * A file's text as a document: an HTML file read as the text a reader sees (its markup would fill the
   * passages), cut to the bound, and counted in passages.
   */
  async readDocument(input: { name: string; text: string }): Promise<ReadDocument> {
    let readable = input.text;
    if (isHtmlDocument(input.name, input.text)) {
      // A DOM for workers (the browser's own parser is the page's only).
      const { DOMParser } = await import('linkedom/worker');
      readable = htmlDocumentText(input.text, (html) => new DOMParser().parseFromString(html, 'text/html') as unknown as Document);
    }
    const text = readable.slice(0, MAX_DOCUMENT_CHARS);
    return { text, readable: readable.length, passages: passagesOf({ name: input.name, text }).length };
  },

  /**
   * Builds the conversation's index of these documents (the worker keeps one: the conversation being answered).
   * With `semantic`, passages rank by meaning too, through the page's sentence encoder.
   */
  openIndex(input: { documents: NamedDocument[]; semantic: boolean }, host: HostCaller): IndexedDocument[] {
    const encoder = input.semantic
      ? {
          documents: (texts: readonly string[]) => host('embedDocuments', texts) as Promise<number[][]>,
          query: (text: string) => host('embedQuery', text) as Promise<number[]>,
          counts: { computed: 0, reused: 0 },
        }
      : undefined;
    index = new DocumentIndex(encoder ? { semantic: encoder } : {});
    for (const document of input.documents) index.add(document);
    return index.documents;
  },

  /** The passages of the open index that best answer a query. */
  searchIndex(input: { query: string; options: PassageSearchOptions }): Promise<PassageHit[]> {
    if (!index) throw new Error('No documents are open in this worker: open them first.');
    return index.search(input.query, input.options);
  },

  /** The conversations of an imported file (one export, or "Export all"), checked and brought up to this version. */
  async importConversations(input: { name: string; text: string }): Promise<ImportedConversation[]> {
    const { importConversationFiles } = await import('./conversation-files.ts');
    return importConversationFiles(input.name, input.text, () => crypto.randomUUID());
  },
};
