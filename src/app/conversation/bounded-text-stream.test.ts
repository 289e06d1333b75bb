import { afterEach, describe, expect, it, vi } from 'vitest';
import { readTextStream, type TextChunk } from './bounded-text-stream.ts';

/** A page's text stream: `count` chunks of one item each, counting how many were pulled and whether it was cancelled. */
function pageStream(count: number, str: string, wait?: () => Promise<void>) {
  const seen = { pulled: 0, cancelled: false };
  const stream = new ReadableStream<TextChunk>({
    async pull(controller) {
      if (seen.pulled >= count) return controller.close();
      seen.pulled++;
      await wait?.();
      controller.enqueue({ items: [{ str, hasEOL: true }, { type: 'beginMarkedContent' }] });
    },
    cancel() {
      seen.cancelled = true;
    },
  });
  return { stream, seen };
}

afterEach(() => vi.useRealTimers());

describe('readTextStream (issue 52: a PDF read within a character bound and a deadline)', () => {
  it('reads a page whole when it fits', async () => {
    const { stream } = pageStream(3, 'line');
    await expect(readTextStream(stream, { room: 100, deadline: Number.POSITIVE_INFINITY })).resolves.toEqual({ text: 'line\nline\nline\n' });
  });

  it('stops at the character bound while it streams, and cancels the parser: an inflating page is not read to its end', async () => {
    const { stream, seen } = pageStream(1_000_000, 'A'.repeat(1000));
    const read = await readTextStream(stream, { room: 50_000, deadline: Number.POSITIVE_INFINITY });
    expect(read).toMatchObject({ cut: 'chars' });
    expect(read.text).toHaveLength(50_000);
    expect(seen.pulled).toBeLessThan(60);
    expect(seen.cancelled).toBe(true);
  });

  it('stops at the deadline, keeping what was read, even while the parser has not answered', async () => {
    vi.useFakeTimers();
    let clock = 0;
    const { stream, seen } = pageStream(10, 'slow', () => new Promise((resolve) => setTimeout(resolve, 20_000)));
    const reading = readTextStream(stream, { room: 1_000, deadline: 30_000, now: () => clock });
    clock = 20_000;
    await vi.advanceTimersByTimeAsync(20_000);
    clock = 30_000;
    await vi.advanceTimersByTimeAsync(10_000);
    await expect(reading).resolves.toEqual({ text: 'slow\n', cut: 'time' });
    expect(seen.cancelled).toBe(true);
  });
});
