/** What the composer's Attach takes: text of any kind (plain, Markdown, code, CSV, JSON…) and PDF. */
export const ATTACHABLE_FILES =
  '.txt,.md,.markdown,.csv,.tsv,.json,.jsonl,.xml,.html,.htm,.css,.js,.mjs,.cjs,.ts,.tsx,.jsx,.py,.rb,.go,.rs,.java,.kt,.swift,.c,.h,.cpp,.hpp,.cs,.php,.sh,.yaml,.yml,.toml,.ini,.sql,.log,.tex,.pdf,text/*,application/pdf';

/** Bytes of one file read at most: a conversation's attachments are text, and a larger file is not read into the page. */
export const MAX_FILE_BYTES = 25 * 1024 * 1024;

/** A file that cannot be attached: the message names it and says what can be. */
export class AttachmentFileError extends Error {
  override readonly name = 'AttachmentFileError';
}

/** What Attach needs of a file (a `File` has it). */
interface FileLike {
  name: string;
  size: number;
  arrayBuffer(): Promise<ArrayBuffer>;
}

const isPdf = (name: string, bytes: Uint8Array) => /\.pdf$/i.test(name) || new TextDecoder().decode(bytes.subarray(0, 5)) === '%PDF-';

/**
 * The text a file gives the model: a text file as it is (UTF-8), a PDF's text through pdf.js (loaded only
 * then), with a note when a long PDF was read in part.
 * @throws AttachmentFileError for a file that is neither (an image, an archive…), too large, or a PDF with no text.
 */
export async function textOfFile(file: FileLike): Promise<string> {
  const what = 'Attach text (plain, Markdown, code, CSV, JSON) or a PDF.';
  if (file.size > MAX_FILE_BYTES) throw new AttachmentFileError(`“${file.name}” is larger than ${MAX_FILE_BYTES / 1024 / 1024} MB. ${what}`);
  const bytes = new Uint8Array(await file.arrayBuffer());
  if (isPdf(file.name, bytes)) {
    const { pdfText } = await import('./pdf-text.ts');
    let read: Awaited<ReturnType<typeof pdfText>>;
    try {
      read = await pdfText(bytes);
    } catch (error) {
      throw new AttachmentFileError(`“${file.name}” could not be read as a PDF (${(error as Error).message}). ${what}`);
    }
    if (!read.text.trim()) throw new AttachmentFileError(`“${file.name}” has no text to read (a scan of images?). Attach a PDF with text, or paste the text.`);
    return read.readPages < read.pages ? `${read.text}\n\n[read ${read.readPages} of ${read.pages} pages]` : read.text;
  }
  let text: string;
  try {
    text = new TextDecoder('utf-8', { fatal: true }).decode(bytes);
  } catch {
    throw new AttachmentFileError(`“${file.name}” is not a text file. ${what}`);
  }
  // Text files hold no NUL characters; a binary file that happened to decode does.
  if (text.includes('\u0000')) throw new AttachmentFileError(`“${file.name}” is not a text file. ${what}`);
  return text.replace(/^\uFEFF/, '');
}
