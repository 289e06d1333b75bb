/**
 * Reading an attached file into text: loaded when a file is first attached, not with the page (what
 * the picker offers is `attachable-files.ts`).
 */
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
    // The note goes first: a long text is cut to fit the model's memory from its end.
    return `${pdfNote(read)}${read.text}`;
  }
  const text = decodeText(bytes);
  // Text files hold no NUL characters; a binary file that happened to decode does.
  if (text === undefined || text.includes('\u0000')) throw new AttachmentFileError(`“${file.name}” is not a text file. ${what}`);
  return text.replace(/^\uFEFF/, '');
}

/** What the model (and the reader) is told of a PDF read in part: how much, and why it stopped. */
function pdfNote(read: { pages: number; readPages: number; cut?: 'chars' | 'time' }): string {
  const why = read.cut === 'chars' ? ': its text is longer than this page reads of one file' : read.cut === 'time' ? ': reading it took too long' : '';
  if (!why && read.readPages >= read.pages) return '';
  const part = read.cut && read.readPages > 0 ? `${read.readPages} of ${read.pages} pages, the last in part` : `${read.readPages} of ${read.pages} pages`;
  return `[read ${part}${why}]\n\n`;
}

/** Control bytes no text file holds (tab, line ends, form feed and escape aside): the mark of a binary file. */
const BINARY_BYTE = (byte: number) => byte < 0x09 || (byte > 0x0d && byte < 0x20 && byte !== 0x1b) || byte === 0x7f;

/**
 * A text file's characters: UTF-16 by its byte-order mark (Windows' "Unicode" text), else UTF-8, else — a
 * file that is not UTF-8 but holds no binary bytes — Windows-1252, as older spreadsheets export CSV.
 * Undefined for a file that is none of these.
 */
function decodeText(bytes: Uint8Array): string | undefined {
  if (bytes[0] === 0xff && bytes[1] === 0xfe) return new TextDecoder('utf-16le').decode(bytes);
  if (bytes[0] === 0xfe && bytes[1] === 0xff) return new TextDecoder('utf-16be').decode(bytes);
  try {
    return new TextDecoder('utf-8', { fatal: true }).decode(bytes);
  } catch {
    if (bytes.some(BINARY_BYTE)) return undefined;
    // Browsers decode the 0x80–0x9F row as Windows-1252 does; some runtimes read it as Latin-1 controls: mapped here.
    return new TextDecoder('windows-1252').decode(bytes).replace(/[\u0080-\u009f]/g, (c) => WINDOWS_1252_ROW_8_9[c.charCodeAt(0) - 0x80] ?? c);
  }
}

/** What Windows-1252 puts at bytes 0x80–0x9F (the WHATWG Encoding table; the five it leaves unassigned stay controls). */
const WINDOWS_1252_ROW_8_9 =
  '\u20ac\u0081\u201a\u0192\u201e\u2026\u2020\u2021\u02c6\u2030\u0160\u2039\u0152\u008d\u017d\u008f' +
  '\u0090\u2018\u2019\u201c\u201d\u2022\u2013\u2014\u02dc\u2122\u0161\u203a\u0153\u009d\u017e\u0178';
