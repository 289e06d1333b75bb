/**
 * The text of a PDF, through Mozilla's pdf.js (pdfjs-dist): loaded only when a PDF is attached, its
 * parser in a worker of its own from this origin (the page's policy allows no other).
 */
import { getDocument, GlobalWorkerOptions } from 'pdfjs-dist';
import workerUrl from 'pdfjs-dist/build/pdf.worker.min.mjs?url';

GlobalWorkerOptions.workerSrc = workerUrl;

/** Pages read from one PDF at most: a longer one is cut, and says so. */
const MAX_PAGES = 300;

/**
 * The text of each page, pages apart by a blank line; a PDF of scanned images has none (the caller says so).
 * @throws Error from pdf.js for a file that is not a PDF it can read (damaged, or with a password).
 */
export async function pdfText(data: Uint8Array): Promise<{ text: string; pages: number; readPages: number }> {
  // No fonts loaded: only the text is wanted.
  const task = getDocument({ data, disableFontFace: true, useSystemFonts: false });
  const document = await task.promise;
  try {
    const readPages = Math.min(document.numPages, MAX_PAGES);
    const pages: string[] = [];
    for (let n = 1; n <= readPages; n++) {
      const content = await (await document.getPage(n)).getTextContent();
      const line = content.items.map((item) => ('str' in item ? `${item.str}${item.hasEOL ? '\n' : ''}` : '')).join('');
      pages.push(line.replace(/[ \t]+\n/g, '\n').trim());
    }
    return { text: pages.filter(Boolean).join('\n\n'), pages: document.numPages, readPages };
  } finally {
    await task.destroy();
  }
}
