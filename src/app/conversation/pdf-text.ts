/**
 * The text of a PDF, through Mozilla's pdf.js (pdfjs-dist): loaded only when a PDF is attached, its
 * parser in a worker of its own from this origin (the page's policy allows no other). The file is opened,
 * and its text read as it streams from that worker, within a character bound and one deadline (a small file
 * can inflate to tens of millions of characters, or take minutes to open or parse): past either, parsing stops
 * and the text read so far is kept, with why; a file that does not open in time is refused, saying so.
 */
import { getDocument, GlobalWorkerOptions, PDFWorker, VerbosityLevel } from 'pdfjs-dist';
import workerUrl from 'pdfjs-dist/build/pdf.worker.min.mjs?url';
import { byDeadline } from '../../internal.ts';
import { readTextStream, type TextChunk } from './bounded-text-stream.ts';
import { FILE_DEADLINES_MS } from './file-deadlines.ts';

GlobalWorkerOptions.workerSrc = workerUrl;

/** Pages read from one PDF at most: a longer one is cut, and says so. */
const MAX_PAGES = 300;

/** Characters of text taken from one PDF at most: far past what a conversation reads of it, small enough for the page. */
const MAX_PDF_CHARS = 2_000_000;

/** A PDF's text: how many pages it has and how many were read, and why reading stopped early, if it did. */
export interface PdfText {
  text: string;
  pages: number;
  readPages: number;
  cut?: 'chars' | 'time';
}

/**
 * The text of each page, pages apart by a blank line; a PDF of scanned images has none (the caller says so).
 * @throws Error from pdf.js for a file that is not a PDF it can read (damaged, or with a password).
 */
export async function pdfText(data: Uint8Array, now: () => number = Date.now): Promise<PdfText> {
  const allowed = FILE_DEADLINES_MS.pdf;
  const deadline = now() + allowed;
  // The parser's worker is this call's own, so it can be ended at once: pdf.js's own teardown waits for
  // the worker to answer, which a worker inflating a bomb does only when it is done.
  const worker = new PDFWorker({ verbosity: VerbosityLevel.ERRORS });
  // No fonts loaded: only the text is wanted. So pdf.js's warnings about fonts it did not load are noise in the
  // user's console (issue 68, P3): errors only.
  const task = getDocument({ data, worker, disableFontFace: true, useSystemFonts: false, verbosity: VerbosityLevel.ERRORS });
  try {
    // Opening is inside the deadline too: a small file can take tens of seconds and gigabytes before its first page
    // (issue 67, L8). Past it, the parser's worker is ended below.
    const document = await byDeadline(task.promise, deadline, now);
    if (!document) throw new Error(`it did not open within ${allowed / 1000} s`);
    const last = Math.min(document.numPages, MAX_PAGES);
    const pages: string[] = [];
    let length = 0;
    let readPages = 0;
    let cut: PdfText['cut'];
    for (let n = 1; n <= last && !cut; n++) {
      if (now() >= deadline) {
        cut = 'time';
        break;
      }
      const page = await byDeadline(document.getPage(n), deadline, now);
      if (!page) {
        cut = 'time';
        break;
      }
      const read = await readTextStream(page.streamTextContent() as ReadableStream<TextChunk>, { room: MAX_PDF_CHARS - length, deadline, now });
      const text = read.text.replace(/[ \t]+\n/g, '\n').trim();
      pages.push(text);
      length += text.length + 2;
      readPages = n;
      cut = read.cut;
    }
    return { text: pages.filter(Boolean).join('\n\n'), pages: document.numPages, readPages, ...(cut ? { cut } : {}) };
  } finally {
    task.destroy().catch(() => undefined);
    // Ends the parser's work where a page was cut short: the worker is terminated.
    worker.destroy();
  }
}
