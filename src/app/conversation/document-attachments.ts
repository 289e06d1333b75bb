/**
 * Attached files too long for the model's context, as documents it searches: loaded with the first such file
 * (the passage cutter and the search index stay out of the page's first download).
 */
import { DocumentIndex, passagesOf, type SemanticEncoder } from '../../internal.ts';
import type { Attachment, Turn } from '../state/app-state.ts';
import { htmlDocumentText, isHtmlDocument } from './html-document.ts';

/** Characters of one document kept and indexed at most: a long book; past it the rest is cut, and the note says so. */
export const MAX_DOCUMENT_CHARS = 2_000_000;

/**
 * An attachment of a text too long to read whole: kept whole (to the bound) and indexed, the model searching it by
 * passage. An HTML document is indexed as the text a reader sees (its markup would fill the passages), where the
 * browser can parse it.
 */
export function indexedAttachment(input: { name: string; from: string; text: string }): Attachment {
  const readable =
    typeof DOMParser !== 'undefined' && isHtmlDocument(input.name, input.text)
      ? htmlDocumentText(input.text, (html) => new DOMParser().parseFromString(html, 'text/html'))
      : input.text;
  const text = readable.slice(0, MAX_DOCUMENT_CHARS);
  const passages = passagesOf({ name: input.name, text }).length;
  return {
    name: input.name,
    from: input.from,
    text,
    chars: text.length,
    ...(readable.length > text.length ? { cutFrom: readable.length } : {}),
    indexed: { passages },
  };
}

/** The documents of a conversation's messages, each under a name of its own (a second `notes.txt` is `notes.txt (2)`). */
function documentsOf(turns: readonly Turn[]): { name: string; text: string; fence: string }[] {
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

let cached: { key: string; semantic: SemanticEncoder | undefined; index: DocumentIndex } | undefined;

/**
 * The index of the documents attached to these turns, or undefined when there are none. The last one built is
 * kept: the next question of the same conversation searches it again without cutting anything anew. With the
 * sentence encoder the tool search loaded (`semantic`), passages rank by meaning too; once it is ready, the
 * index is built again with it.
 */
export function documentIndexOf(turns: readonly Turn[], semantic?: SemanticEncoder): DocumentIndex | undefined {
  const documents = documentsOf(turns);
  if (!documents.length) return undefined;
  const key = documents.map((d) => `${d.name}\u0000${d.fence}\u0000${d.text.length}`).join('\u0001');
  if (cached?.key === key && cached.semantic === semantic) return cached.index;
  const index = new DocumentIndex(semantic ? { semantic } : {});
  for (const { name, text } of documents) index.add({ name, text });
  cached = { key, semantic, index };
  return index;
}
