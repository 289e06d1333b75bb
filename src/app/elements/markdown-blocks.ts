/** Bounds on how much of an answer is rendered as Markdown; past them it is shown as plain text. */
export const MARKDOWN_LIMITS = {
  /** Characters of an answer rendered as Markdown; the rest is plain text. */
  maxChars: 48_000,
  /** Characters of one block (between blank lines) parsed as Markdown. */
  maxBlockChars: 16_000,
  /** Nesting (list items, quotes, indentation) one line may have. */
  maxDepth: 12,
  /**
   * Emphasis and strike-through delimiters (`*`, `_`, `~`) one block may hold outside code: the
   * parser's cost grows with the square of unmatched ones (2,400 took 400 ms, 21,000 took 29 s).
   */
  maxDelimiters: 500,
} as const;

/** One block of an answer and how it is shown. */
export interface MarkdownBlock {
  text: string;
  /** Markdown, or plain text because it is too long or too deeply nested to parse safely. */
  kind: 'markdown' | 'plain';
}

const FENCE = /^ {0,3}(`{3,}|~{3,})/;
const NESTING = /^[ \t]*(?:(?:[-*+]|\d{1,9}[.)])(?=[ \t]|$)|>)[ \t]*/;

/**
 * How deeply a line is nested: its list markers and quote marks (`- - > 1. x` is four) plus its
 * indentation in steps of two spaces (a tab is four).
 * @param line - one line of Markdown.
 */
export function nestingDepth(line: string): number {
  let depth = 0;
  let rest = line;
  let indent = 0;
  for (const c of line) {
    if (c === ' ') indent += 1;
    else if (c === '\t') indent += 4;
    else break;
  }
  for (let match = NESTING.exec(rest); match && match[0].length > 0 && depth < 1000; match = NESTING.exec(rest)) {
    depth += 1;
    rest = rest.slice(match[0].length);
  }
  return depth + Math.floor(indent / 2);
}

/**
 * Splits an answer into blocks that render on their own: at a blank line followed by a line that
 * starts at the margin, never inside a fenced code block (so a list item's indented continuation
 * stays with it). Then applies {@link MARKDOWN_LIMITS}: a block too long or too deeply nested, and
 * everything past the character budget, is plain text.
 *
 * Rendering block by block is also what makes streaming cheap: every block but the last is finished,
 * and its rendering is reused while tokens arrive.
 *
 * @param text - the answer's Markdown.
 * @param limits - the bounds (default {@link MARKDOWN_LIMITS}).
 *
 * @remarks Security: model output is untrusted. Threat: an answer written to freeze or crash the tab
 * (64 KB of pathological Markdown took seconds to parse; 8 KB of nested list items overflowed the
 * parser's stack).
 */
export function planMarkdown(
  text: string,
  limits: { maxChars: number; maxBlockChars: number; maxDepth: number; maxDelimiters: number } = MARKDOWN_LIMITS,
): MarkdownBlock[] {
  const lines = text.split('\n');
  const blocks: string[] = [];
  let current: string[] = [];
  let fence: string | undefined;
  let blankBefore = false;
  for (const line of lines) {
    const opener = FENCE.exec(line)?.[1];
    if (fence === undefined && blankBefore && current.length > 0 && line !== '' && !/^[ \t]/.test(line)) {
      blocks.push(current.join('\n'));
      current = [];
    }
    current.push(line);
    if (opener !== undefined) {
      if (fence === undefined) fence = opener;
      else if (opener[0] === fence[0] && opener.length >= fence.length) fence = undefined;
    }
    blankBefore = line.trim() === '';
  }
  if (current.length > 0) blocks.push(current.join('\n'));

  let used = 0;
  return blocks.map((block) => {
    used += block.length;
    const tooDeep = block.split('\n').some((line) => nestingDepth(line) > limits.maxDepth);
    const plain = used > limits.maxChars || block.length > limits.maxBlockChars || tooDeep || delimiters(block) > limits.maxDelimiters;
    return { text: block, kind: plain ? 'plain' : 'markdown' };
  });
}

/** The emphasis delimiters of a block, outside fenced code (whose text is never parsed for them). */
function delimiters(block: string): number {
  let count = 0;
  let fence: string | undefined;
  for (const line of block.split('\n')) {
    const opener = FENCE.exec(line)?.[1];
    if (opener !== undefined) {
      if (fence === undefined) fence = opener;
      else if (opener[0] === fence[0] && opener.length >= fence.length) fence = undefined;
      continue;
    }
    if (fence !== undefined) continue;
    for (const c of line) if (c === '*' || c === '_' || c === '~') count++;
  }
  return count;
}
