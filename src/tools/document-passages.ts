/**
 * A long document as passages a search can return: paragraphs packed to about a target size, each with
 * where it stands (lines, and pages where the text marks them) and the heading it sits under, so a passage
 * read alone still says what it is about and a citation can point at it.
 */

/** One passage of a document, as {@link passagesOf} cuts it. */
export interface DocumentPassage {
  /** The document's name (a file's name, an MCP resource's). */
  readonly document: string;
  /** Its place among the document's passages, from 0. */
  readonly index: number;
  readonly text: string;
  /**
   * What the passage sits under: the Markdown headings above it (`Server › Factory › logger`), or a table's
   * header row, which a row alone does not repeat.
   */
  readonly heading?: string;
  /** Its first and last line, from 1. */
  readonly lines: readonly [number, number];
  /** Its first and last page, from 1, where the text marks pages with form feeds (as PDF text is joined here). */
  readonly pages?: readonly [number, number];
}

/** How {@link passagesOf} cuts. */
export interface PassageOptions {
  /** Characters a passage aims for (default 900): whole paragraphs are packed up to it; a longer one is cut at sentence ends. */
  targetChars?: number;
}

/** Characters a passage aims for: a few paragraphs, small enough that several fit a small model's context beside the question. */
export const DEFAULT_PASSAGE_CHARS = 900;

interface Line {
  text: string;
  line: number;
  page: number;
}

/** A run of lines that belong together (a paragraph, a code block, a table's rows), with the heading above it. */
interface Block {
  lines: Line[];
  heading?: string;
}

/** A heading's opening: one to six `#` and a space. Its title is read without a regular expression (see {@link headingOf}). */
const HEADING_OPEN = /^#{1,6}\s/;
const FENCE = /^\s*(```|~~~)/;
/** Characters a heading keeps in a passage's trail: a title longer than this is cut, so no trail grows with the file. */
export const MAX_HEADING_CHARS = 200;

/**
 * A Markdown ATX heading's level and title, or nothing: the closing `#`s (after a space) and the spaces around
 * dropped, the title cut at {@link MAX_HEADING_CHARS}. Linear in the line, whatever it holds: a backtracking
 * pattern here took cubic time on a heading of 4,000 spaces and froze the tab (issue 67, M1).
 */
export function headingOf(text: string): { level: number; title: string } | undefined {
  if (!HEADING_OPEN.test(text)) return undefined;
  let level = 0;
  while (text[level] === '#') level += 1;
  let title = text.slice(level).trim();
  let end = title.length;
  while (end > 0 && title[end - 1] === '#') end -= 1;
  if (end === 0 || /\s/.test(title[end - 1] ?? '')) title = title.slice(0, end).trimEnd();
  if (!title) return undefined;
  return { level, title: title.length > MAX_HEADING_CHARS ? `${title.slice(0, MAX_HEADING_CHARS - 1)}…` : title };
}

/** The document's lines with their numbers and pages: a form feed starts a page (and ends a line). */
function linesOf(text: string): { lines: Line[]; paged: boolean } {
  const lines: Line[] = [];
  let page = 1;
  let paged = false;
  text.split(/\r\n|\r|\n/).forEach((raw, i) => {
    const parts = raw.split('\f');
    parts.forEach((part, j) => {
      if (j > 0) {
        page += 1;
        paged = true;
      }
      if (part.trim() || j === 0) lines.push({ text: part, line: i + 1, page });
    });
  });
  return { lines, paged };
}

/**
 * Whether the text is a table of delimited rows (CSV, TSV): most of its first lines split into the same
 * number of cells (two or more), so its first line is a header every passage should carry.
 */
function delimitedHeader(lines: readonly Line[]): string | undefined {
  const sample = lines.filter((l) => l.text.trim()).slice(0, 20);
  if (sample.length < 3) return undefined;
  for (const delimiter of [',', '\t', ';', '|']) {
    const counts = sample.map((l) => l.text.split(delimiter).length);
    const first = counts[0] ?? 0;
    if (first >= 2 && counts.filter((c) => c === first).length >= sample.length * 0.8) return sample[0]?.text.trim();
  }
  return undefined;
}

/** Paragraphs (lines apart by blank ones), code blocks kept whole, each with the Markdown headings it sits under. */
function blocksOf(lines: readonly Line[]): Block[] {
  const blocks: Block[] = [];
  const trail: string[] = [];
  // Joined once per heading, not once per paragraph: every block under it shares the one string.
  let joined = '';
  let current: Line[] = [];
  let inFence = false;
  const close = () => {
    if (current.length) blocks.push({ lines: current, ...(joined ? { heading: joined } : {}) });
    current = [];
  };
  for (const line of lines) {
    if (FENCE.test(line.text)) inFence = !inFence;
    const heading = inFence ? undefined : headingOf(line.text);
    if (heading) {
      close();
      trail.length = Math.min(trail.length, heading.level - 1);
      trail[heading.level - 1] = heading.title;
      joined = trail.filter(Boolean).join(' › ');
      // The heading line is the start of its section's first passage, so a search for its words finds it.
      current.push(line);
      continue;
    }
    if (!line.text.trim() && !inFence) {
      close();
      continue;
    }
    current.push(line);
  }
  close();
  return blocks;
}

/** Cuts a block longer than `max` into pieces at sentence ends or line ends, never mid-word unless a word is longer than `max`. */
function pieces(block: Block, max: number): Block[] {
  if (charsOf(block.lines) <= max) return [block];
  const out: Block[] = [];
  let current: Line[] = [];
  let size = 0;
  const flush = () => {
    if (current.length) out.push({ lines: current, ...(block.heading ? { heading: block.heading } : {}) });
    current = [];
    size = 0;
  };
  for (const line of block.lines) {
    for (const part of splitLong(line.text, max)) {
      if (size + part.length > max && current.length) flush();
      current.push({ ...line, text: part });
      size += part.length + 1;
    }
  }
  flush();
  return out;
}

/** A line longer than `max` in pieces: at sentence ends where there are some, else at spaces, else every `max` characters. */
function splitLong(text: string, max: number): string[] {
  if (text.length <= max) return [text];
  const sentences = text.match(/[^.!?]+(?:[.!?]+["')\]]*\s*|$)/g) ?? [text];
  const out: string[] = [];
  let current = '';
  for (const sentence of sentences) {
    if (current && current.length + sentence.length > max) {
      out.push(current.trim());
      current = '';
    }
    if (sentence.length > max) {
      for (let at = 0; at < sentence.length; at += max) out.push(sentence.slice(at, at + max).trim());
    } else current += sentence;
  }
  if (current.trim()) out.push(current.trim());
  return out.filter(Boolean);
}

const charsOf = (lines: readonly Line[]) => lines.reduce((n, l) => n + l.text.length + 1, 0);

/**
 * The document in passages: paragraphs packed in order to about `targetChars`, never across a Markdown
 * heading (a passage is one section's), a longer paragraph cut at sentence ends. Each passage keeps its
 * lines, its pages where form feeds mark them, and its heading trail; a delimited table's passages each
 * carry the header row. Empty for a text with nothing but blanks.
 */
export function passagesOf(document: { name: string; text: string }, options: PassageOptions = {}): DocumentPassage[] {
  const target = Math.max(200, options.targetChars ?? DEFAULT_PASSAGE_CHARS);
  const { lines, paged } = linesOf(document.text);
  const table = delimitedHeader(lines);
  const blocks = (table ? [{ lines: lines.filter((l) => l.text.trim()).slice(1), heading: table }] : blocksOf(lines)).flatMap((b) => pieces(b, target));
  const passages: DocumentPassage[] = [];
  let packed: Block | undefined;
  const emit = () => {
    if (!packed?.lines.length) return;
    const first = packed.lines[0] as Line;
    const last = packed.lines.at(-1) as Line;
    passages.push(
      Object.freeze({
        document: document.name,
        index: passages.length,
        text: joinLines(packed.lines),
        ...(packed.heading ? { heading: packed.heading } : {}),
        lines: Object.freeze([first.line, last.line] as const),
        ...(paged ? { pages: Object.freeze([first.page, last.page] as const) } : {}),
      }),
    );
    packed = undefined;
  };
  // Sizes kept as they grow, and lines appended in place: a passage of many one-word paragraphs costs linear work.
  let packedChars = 0;
  for (const block of blocks) {
    const size = charsOf(block.lines);
    const fits = packed && packed.heading === block.heading && packedChars + size <= target;
    if (!fits) emit();
    if (packed) {
      packed.lines.push({ text: '', line: 0, page: 0 }, ...block.lines);
      packedChars += size;
    } else {
      packed = { ...block, lines: [...block.lines] };
      packedChars = size;
    }
  }
  emit();
  return passages;
}

/** Lines back into text: a blank line between packed paragraphs (the marker lines packing adds), none within one. */
function joinLines(lines: readonly Line[]): string {
  return lines
    .map((l) => (l.line === 0 ? '' : l.text))
    .join('\n')
    .replace(/\n{3,}/g, '\n\n')
    .trim();
}

/** Where a passage stands, as a reader looks it up: `p. 12`, `pp. 12–13`, else `line 40` or `lines 40–52`. */
export function passageReference(passage: Pick<DocumentPassage, 'lines' | 'pages'>): string {
  const [from, to] = passage.pages ?? passage.lines;
  const unit = passage.pages ? ['p.', 'pp.'] : ['line', 'lines'];
  return from === to ? `${unit[0]} ${from}` : `${unit[1]} ${from}–${to}`;
}
