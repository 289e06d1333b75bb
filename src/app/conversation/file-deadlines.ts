/**
 * How long each kind of work on a file from outside may take: the files' worker's jobs, and pdf.js opening and
 * reading a PDF. Generous for a long book or a large export on a slow machine, far short of a frozen page. One
 * table, read when each job starts, so a test page can shorten them all ({@link shortenFileDeadlines}) and feed
 * the worst case without waiting half a minute.
 */
export const FILE_DEADLINES_MS = {
  /** Reading one file's text as a document (an HTML file read as a reader sees it), and cutting it into passages. */
  readDocument: 30_000,
  /** Indexing all of one conversation's documents. */
  openIndex: 60_000,
  /** One search of them (time spent embedding in the model's worker is not counted). */
  searchIndex: 20_000,
  /** Reading an imported conversation file: parsed, checked and brought up to this version. */
  importConversations: 60_000,
  /** pdf.js opening a PDF and reading its pages. */
  pdf: 30_000,
};

/**
 * For a test page: every deadline at most `ms`, until the returned function puts them back.
 * @param ms - the shortened deadline.
 */
export function shortenFileDeadlines(ms: number): () => void {
  const before = { ...FILE_DEADLINES_MS };
  for (const key of Object.keys(FILE_DEADLINES_MS) as (keyof typeof FILE_DEADLINES_MS)[]) {
    FILE_DEADLINES_MS[key] = Math.min(FILE_DEADLINES_MS[key], ms);
  }
  return () => Object.assign(FILE_DEADLINES_MS, before);
}
