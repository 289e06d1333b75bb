import { describe, expect, it } from 'vitest';
import { cachedEncoder, memoryToolVectorStore, type ToolVectorStore } from './tool-vectors.ts';
import { ToolIndex } from './tool-index.ts';

const lengthEmbedder = (calls: string[][]) => async (texts: readonly string[]) => {
  calls.push([...texts]);
  return texts.map((t) => [t.length, 1]);
};

describe('cachedEncoder', () => {
  it('embeds each text once per model: stored vectors are reused, only new or changed texts are embedded', async () => {
    const store = memoryToolVectorStore();
    const calls: string[][] = [];
    const first = cachedEncoder(lengthEmbedder(calls), { store, modelKey: 'm1' });
    await first.documents(['get weather: Weather now', 'send email: Send an email']);
    const second = cachedEncoder(lengthEmbedder(calls), { store, modelKey: 'm1' });
    const vectors = await second.documents(['get weather: Weather now', 'send email: Send an email to someone']);
    expect(calls).toEqual([['get weather: Weather now', 'send email: Send an email'], ['send email: Send an email to someone']]);
    expect(vectors[0]).toEqual(['get weather: Weather now'.length, 1]);
    expect(second.counts).toEqual({ computed: 1, reused: 1 });
    // Another model never reads the first one's vectors.
    const other = cachedEncoder(lengthEmbedder(calls), { store, modelKey: 'm2' });
    await other.documents(['get weather: Weather now']);
    expect(other.counts).toEqual({ computed: 1, reused: 0 });
  });

  it("puts the model's prefixes before documents and queries (E5-style), and keys by them", async () => {
    const calls: string[][] = [];
    const encoder = cachedEncoder(lengthEmbedder(calls), {
      store: memoryToolVectorStore(),
      modelKey: 'e5',
      queryPrefix: 'query: ',
      documentPrefix: 'passage: ',
    });
    await encoder.documents(['tool']);
    await encoder.query('hello');
    expect(calls).toEqual([['passage: tool'], ['query: hello']]);
  });

  it('computes the vectors anyway when the store fails (a blocked IndexedDB costs time, not the answer)', async () => {
    const broken: ToolVectorStore = { getMany: () => Promise.reject(new Error('blocked')), setMany: () => Promise.reject(new Error('blocked')) };
    const encoder = cachedEncoder(lengthEmbedder([]), { store: broken, modelKey: 'm' });
    expect(await encoder.documents(['a', 'bb'])).toEqual([
      [1, 1],
      [2, 1],
    ]);
  });
});

describe('ToolIndex with a failing encoder', () => {
  it('falls back to the lexical ranking and says why, once', async () => {
    let calls = 0;
    const index = new ToolIndex(
      [{ function: { name: 'set_lights', description: 'Turn lights on or off' } }, { function: { name: 'send_email', description: 'Send an email' } }],
      async () => {
        calls++;
        throw new Error('The tool-search model could not be loaded: offline');
      },
    );
    const first = await index.rank('turn the lights off');
    expect(first.hits[0]?.name).toBe('set_lights');
    expect(first.semanticError).toContain('offline');
    await index.rank('send an email');
    expect(index.semanticError).toContain('offline');
    expect(calls).toBeLessThanOrEqual(2);
  });
});
