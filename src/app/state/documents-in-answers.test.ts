import { beforeAll, describe, expect, it } from 'vitest';
import { inThreadWorker, NexusChat } from '../../internal.ts';
import { ScriptedEngine } from '../../testing/index.ts';
import { when } from '../../testing/script-matchers.ts';
import { answerView } from '../conversation/answer-view.ts';
import { attachmentWords } from '../conversation/attachment-fence.ts';
import { fileWork } from '../conversation/file-work.ts';
import { useFileWorker } from '../conversation/file-worker.ts';
import { memoryPersistence } from '../conversation/persistence.ts';
import { AppStore } from './app-store.ts';
import { emptyConversation } from './app-state.ts';

// Node has no Web Workers: the files' worker's own work, served in this thread over the same messages.
beforeAll(() => useFileWorker(() => inThreadWorker(fileWork)));

/** A staff handbook of about 160,000 characters: one fact worth asking for, deep in the middle, among filler sections. */
function handbook(): string {
  const section = (n: number) =>
    [
      `## Section ${n}: routine matters`,
      ...Array.from({ length: 12 }, (_, i) => `Paragraph ${i} of section ${n} describes routine office matters in some detail, and nothing else.`),
    ].join('\n\n');
  const sections = Array.from({ length: 140 }, (_, n) => section(n));
  sections.splice(60, 0, '## Holidays\n\nEvery employee has 27 days of paid holiday a year, plus public holidays.');
  return ['# Staff handbook', ...sections].join('\n\n');
}

const fileOf = (name: string, text: string) => {
  const bytes = new TextEncoder().encode(text);
  return { name, size: bytes.length, arrayBuffer: async () => bytes.buffer as ArrayBuffer };
};

/** The page's store over `chat`, a model loaded, no web and no tools. */
function storeOver(chat: NexusChat): AppStore {
  return new AppStore({
    persistence: memoryPersistence(),
    opener: {
      runtime: async () => ({ runtime: 'browser', webgpu: false, shaderF16: false }),
      open: async () => ({
        chat,
        verdict: { ok: true, needed_forcing: false, detail: 'ok', dtype: 'q4', device: 'wasm', checkedAt: '2026-01-01T00:00:00Z', remembered: false },
      }),
      search: () => Promise.reject(new Error('no')),
      recheck: () => Promise.reject(new Error('no')),
    },
    toolsUrl: 'data:text/javascript,',
    origin: 'http://localhost',
    research: () => ({ status: async () => ({ available: false, detail: 'off' }), ask: () => Promise.reject(new Error('off')) }),
  });
}

describe('documents as knowledge on the page (issue 54)', () => {
  it('indexes a file too long to read whole, answers from the passages with citations, and keeps every earlier turn in memory', async () => {
    const engine = new ScriptedEngine([
      { when: when.gate(), output: 'No' },
      { when: when.userAsked('Hello'), output: 'Hello! How can I help?' },
      { when: when.promptContains('And the holidays again?'), output: 'Still 27 days [1].' },
      { when: when.promptContains('27 days of paid holiday'), output: 'You get 27 days of paid holiday a year [1].' },
    ]);
    const store = storeOver(NexusChat.withEngine(engine));
    await store.dispatch({ type: 'loadModel', source: { url: 'http://localhost/models/x' } });
    await store.dispatch({ type: 'send', text: 'Hello' });

    const text = handbook();
    expect(text.length).toBeGreaterThan(150_000);
    await store.dispatch({ type: 'attachFiles', files: [fileOf('handbook.md', text)] });
    const [attached] = store.state.attachments;
    // Kept whole and indexed, not cut to 5 % of it; the chip says so in words.
    expect(attached).toMatchObject({ name: 'handbook.md', chars: text.length, indexed: { passages: expect.any(Number) } });
    expect(attached?.cutFrom).toBeUndefined();
    expect(attachmentWords(attached as NonNullable<typeof attached>)).toMatch(/^\d{3},\d{3} characters in \d+ passages · too long to read whole/);

    await store.dispatch({ type: 'send', text: 'How many holiday days do I get?' });
    const answer = store.state.conversation.turns.at(-1);
    expect(answer).toMatchObject({ state: 'done', text: 'You get 27 days of paid holiday a year [1].' });
    const view = answerView(answer as NonNullable<typeof answer>);
    // Numbered as the web's sources are, each with its file and place; the one the answer cites holds the fact.
    expect(view.sources[0]).toEqual(expect.objectContaining({ n: 1, title: expect.stringMatching(/^handbook\.md, lines \d+–\d+$/) }));
    const lines =
      /lines (\d+)–(\d+)/
        .exec(view.sources[0]?.title ?? '')
        ?.slice(1)
        .map(Number) ?? [];
    expect(
      text
        .split('\n')
        .slice((lines[0] ?? 1) - 1, lines[1])
        .join('\n'),
    ).toContain('27 days of paid holiday');
    expect(view.activity).toMatchObject([{ kind: 'passages', ok: true, query: 'How many holiday days do I get?' }]);
    const { passagesOf } = await import('../elements/passages-line.ts');
    const found = passagesOf((view.activity[0] as { details: Record<string, unknown> }).details);
    expect(found.documents).toEqual([{ name: 'handbook.md', passages: attached?.indexed?.passages }]);
    expect(found.read[0]).toMatchObject({ n: 1, document: 'handbook.md', reference: expect.stringMatching(/^lines \d+–\d+$/) });
    // The model read passages, not the file: the prompt holds the first exchange and the passage, and is small.
    const prompt = engine.generations.at(-1)?.prompt ?? '';
    expect(prompt).toContain('Hello! How can I help?');
    expect(prompt).not.toContain('Paragraph 11 of section 139');
    expect(prompt.length).toBeLessThan(12_000);
    expect(answer?.steps?.some((step) => step.kind === 'memory')).toBe(false);

    // The next question searches the same document again, without attaching it again.
    await store.dispatch({ type: 'send', text: 'And the holidays again?' });
    const again = store.state.conversation.turns.at(-1);
    expect(again?.note).toBeUndefined();
    expect(again?.text).toBe('Still 27 days [1].');
    expect(answerView(again as NonNullable<typeof again>).activity).toMatchObject([{ kind: 'passages', query: 'And the holidays again?' }]);
    expect(engine.generations.at(-1)?.prompt).toContain('Every employee has 27 days');
  });

  it('sends a message written while its file is still being read with the file, saying it waits (issue 68, P2.1)', async () => {
    const engine = new ScriptedEngine([
      { when: when.gate(), output: 'No' },
      { when: when.promptContains('27 days of paid holiday'), output: 'You get 27 days of paid holiday a year [1].' },
    ]);
    const store = storeOver(NexusChat.withEngine(engine));
    await store.dispatch({ type: 'loadModel', source: { url: 'http://localhost/models/x' } });
    // A file whose bytes arrive only when the test says: the user presses Send before it is read.
    let arrive: () => void = () => undefined;
    const bytes = new TextEncoder().encode(handbook());
    const slow = {
      name: 'handbook.md',
      size: bytes.length,
      arrayBuffer: () => new Promise<ArrayBuffer>((resolve) => (arrive = () => resolve(bytes.buffer as ArrayBuffer))),
    };
    const attaching = store.dispatch({ type: 'attachFiles', files: [slow] });
    expect(store.state.attachmentsReading).toEqual(['handbook.md']);
    const sending = store.dispatch({ type: 'send', text: 'How many holiday days do I get?' });
    await new Promise((resolve) => setTimeout(resolve, 0));
    expect(store.state.queued).toEqual({ text: 'How many holiday days do I get?', waitingFor: 'files' });
    expect(store.state.conversation.turns).toEqual([]);
    arrive();
    await Promise.all([attaching, sending]);
    const [question, answer] = store.state.conversation.turns;
    expect(question?.attachments?.map((a) => a.name)).toEqual(['handbook.md']);
    expect(answer).toMatchObject({ state: 'done', text: 'You get 27 days of paid holiday a year [1].' });
    // Nothing is left to ride along with the next message.
    expect(store.state.attachments).toEqual([]);
    expect(store.state.attachmentsReading).toBeUndefined();
  });

  it('ranks passages by meaning too once the tool search has loaded its sentence encoder: a question with none of their words finds them', async () => {
    const engine = new ScriptedEngine([
      { when: when.gate(), output: 'No' },
      { when: when.promptContains('27 days of paid holiday'), output: 'You get 27 days [1].' },
      { when: () => true, output: 'Nothing found.', repeat: true },
    ]);
    const chat = NexusChat.withEngine(engine);
    // The encoder a ready tool search lends (tool-selection.test.ts shows the facade's side): time off is one topic.
    const vector = (t: string) => [/holiday|vacation|leave/i.test(t) ? 1 : 0.01, 0.05];
    const encoder = {
      documents: async (texts: readonly string[]) => texts.map(vector),
      query: async (t: string) => vector(t),
      counts: { computed: 0, reused: 0 },
    };
    Object.defineProperty(chat, 'sentenceEncoder', { get: () => encoder });
    const store = storeOver(chat);
    await store.dispatch({ type: 'loadModel', source: { url: 'http://localhost/models/x' } });
    await store.dispatch({ type: 'attachFiles', files: [fileOf('handbook.md', handbook())] });
    await store.dispatch({ type: 'send', text: 'Vacation allowance?' });
    expect(store.state.conversation.turns.at(-1)?.text).toBe('You get 27 days [1].');
  });
});

describe('an HTML file too long to read whole', () => {
  it("is indexed as the text a reader sees, headings kept, in the files' worker", async () => {
    const store = storeOver(NexusChat.withEngine(new ScriptedEngine([{ when: () => true, output: 'Fine.', repeat: true }])));
    await store.dispatch({ type: 'loadModel', source: { url: 'http://localhost/models/x' } });
    const markdown = handbook();
    const html = `<!doctype html><html><head><title>Staff handbook</title><script>track()</script></head><body>${markdown
      .split('\n\n')
      .map((block) =>
        block.startsWith('## ') ? `<h2>${block.slice(3)}</h2>` : block.startsWith('# ') ? `<h1>${block.slice(2)}</h1>` : `<p class="para">${block}</p>`,
      )
      .join('\n')}</body></html>`;
    await store.dispatch({ type: 'attachFiles', files: [fileOf('handbook.html', html)] });
    const [attached] = store.state.attachments;
    expect(attached?.indexed).toBeDefined();
    expect(attached?.text).not.toMatch(/<p|class=|track\(\)/);
    expect(attached?.text).toContain('## Holidays\n\nEvery employee has 27 days of paid holiday a year');
  });
});

describe('an indexed document in a conversation file', () => {
  it('comes back from export and import still indexed, whole, and searched by passage', async () => {
    const { conversationToJson, conversationFromJson } = await import('../conversation/conversation-files.ts');
    const text = handbook();
    const conversation = {
      ...emptyConversation('c1'),
      turns: [
        {
          id: 'u1',
          role: 'user' as const,
          text: 'Read this',
          state: 'done' as const,
          attachments: [{ name: 'handbook.md', from: 'a file on this device', text, chars: text.length, fence: 'abc123', indexed: { passages: 282 } }],
        },
      ],
    };
    const back = conversationFromJson(conversationToJson(conversation).text);
    expect(back?.turns[0]?.attachments?.[0]).toEqual(conversation.turns[0]?.attachments[0]);
  });
});
