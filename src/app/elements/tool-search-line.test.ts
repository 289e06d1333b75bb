import { describe, expect, it } from 'vitest';
import { describeToolSearch } from './tool-search-line.ts';

const vectors = { computed: 12, reused: 0 };
const info = { model: 'Xenova/all-MiniLM-L6-v2', dtype: 'q8', dimensions: 384, loadMs: 2140, bytes: 23_000_000 };
/** What a user should not have to read: repository ids, quantization names, vector sizes, option names. */
const API_WORDS = /Xenova|MiniLM|\/|q8|dimension|embed|semantic|toolSelection|lexical/i;

describe('the Tools panel line about finding tools by meaning (issue 30, P3)', () => {
  it('says what it does and what it cost, in words, at every state', () => {
    const lines = [
      describeToolSearch({ state: 'loading', model: info.model, vectors }),
      describeToolSearch({ state: 'loading', model: info.model, progress: { loaded: 3_200_000, total: 23_000_000 }, vectors }),
      describeToolSearch({ state: 'ready', model: info.model, info, vectors: { computed: 4, reused: 12 } }),
      describeToolSearch({
        state: 'failed',
        model: info.model,
        error: 'The tool-search model Xenova/all-MiniLM-L6-v2 (q8) could not be loaded: offline.',
        vectors,
      }),
    ];
    for (const line of lines) expect(line?.text).not.toMatch(API_WORDS);
    expect(lines[1]?.text).toBe('Downloading the helper model that picks tools by meaning · 3.1 MB of 21.9 MB');
    expect(lines[2]?.text).toBe(
      'Each question gets the tools closest to its meaning (a 22 MB helper model, ready in 2.1 s) · 12 tool descriptions kept from an earlier visit.',
    );
    // The failure's own words stay available behind "Why", and the line says what happens instead.
    expect(lines[3]).toMatchObject({ failed: true, why: expect.stringContaining('offline') });
    expect(lines[3]?.text).toContain('share its words');
  });

  it('says nothing while the search is off or not needed yet', () => {
    expect(describeToolSearch(undefined)).toBeUndefined();
    expect(describeToolSearch({ state: 'off', vectors })).toBeUndefined();
    expect(describeToolSearch({ state: 'idle', vectors })).toBeUndefined();
  });
});
