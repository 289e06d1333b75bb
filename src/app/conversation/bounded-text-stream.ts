/** A piece of a page's text as pdf.js streams it (`page.streamTextContent()`). */
export interface TextChunk {
  items: readonly ({ str: string; hasEOL?: boolean } | object)[];
}

/** What {@link readTextStream} stops at. */
export interface TextBounds {
  /** Characters still wanted. */
  room: number;
  /** When reading must end (a clock reading, as `now` gives). */
  deadline: number;
  /** The clock (default `Date.now`). */
  now?: () => number;
}

/** One page's text, and why it was cut short, if it was. */
export interface StreamedText {
  text: string;
  cut?: 'chars' | 'time';
}

/**
 * Reads a page's text as it streams, stopping (and cancelling the stream, which stops the parser) at
 * `room` characters or at the deadline, whichever comes first. A PDF's text can be far larger than its
 * file: a compressed content stream of 200 KB can inflate to tens of millions of characters, so the
 * bound applies while reading, not after.
 *
 * @param stream - the page's text content stream.
 * @param bounds - characters still wanted, and the deadline.
 */
export async function readTextStream(stream: ReadableStream<TextChunk>, bounds: TextBounds): Promise<StreamedText> {
  const now = bounds.now ?? Date.now;
  const reader = stream.getReader();
  let text = '';
  let timer: ReturnType<typeof setTimeout> | undefined;
  const stop = async (cut: 'chars' | 'time'): Promise<StreamedText> => {
    // Not awaited: a parser busy in a long page answers a cancel only when it is done (the caller ends it).
    reader.cancel().catch(() => undefined);
    return { text, cut };
  };
  try {
    for (;;) {
      const left = bounds.deadline - now();
      if (left <= 0) return await stop('time');
      const next = await Promise.race([
        reader.read(),
        new Promise<'late'>((resolve) => {
          timer = setTimeout(() => resolve('late'), left);
        }),
      ]);
      clearTimeout(timer);
      if (next === 'late') return await stop('time');
      if (next.done) return { text };
      for (const item of next.value.items) {
        if (!('str' in item)) continue;
        text += `${item.str}${item.hasEOL ? '\n' : ''}`;
        if (text.length >= bounds.room) {
          text = text.slice(0, bounds.room);
          return await stop('chars');
        }
      }
    }
  } finally {
    clearTimeout(timer);
  }
}
