import { describe, expect, it, vi } from 'vitest';
import { NexusChat } from '../../internal.ts';
import { ScriptedEngine, type ScriptedOutput } from '../../testing/index.ts';
import { when } from '../../testing/script-matchers.ts';
import { DelegatingEngine } from '../../testing/delegating-engine.ts';
import type { GenerateOptions, GenerateResult } from '../../engine/engine.ts';
import { emptyConversation, type Conversation } from './app-state.ts';
import { AppStore } from './app-store.ts';
import { memoryPersistence, mergeConversation } from '../conversation/persistence.ts';
import { localTabSyncs, type TabMessage } from './tab-sync.ts';

/** No tools: every answer here is prose, so the scripts stay one output per message. */
const NO_TOOLS = 'data:text/javascript,';

/** A scripted model that waits for `hold` before each generation: an answer that takes as long as the test needs. */
class HeldEngine extends DelegatingEngine {
  hold: Promise<void> = Promise.resolve();
  readonly prompts: string[] = [];
  constructor(script: ScriptedOutput[]) {
    super(new ScriptedEngine(script, { model: 'scripted', device: 'wasm', dtype: 'q4' }));
  }
  override async generate(prompt: string, options: GenerateOptions): Promise<GenerateResult> {
    this.prompts.push(prompt);
    await this.hold;
    return super.generate(prompt, options);
  }
}

/** Two tabs of one browser: one storage, one channel, each its own model. */
function twoTabs(scriptA: ScriptedOutput[], scriptB: ScriptedOutput[]) {
  const storage = new Map<string, unknown>();
  const tabSync = localTabSyncs();
  const tab = (engine: HeldEngine) => {
    const store = new AppStore({
      persistence: memoryPersistence(storage),
      tabs: tabSync(),
      opener: {
        runtime: async () => ({ runtime: 'browser', webgpu: false, shaderF16: false }),
        open: async () => ({
          chat: NexusChat.withEngine(engine),
          verdict: { ok: true, needed_forcing: false, detail: 'ok', dtype: 'q4', device: 'wasm', checkedAt: '2026-01-01T00:00:00Z', remembered: false },
        }),
        search: () => Promise.reject(new Error('not reached')),
        recheck: () => Promise.reject(new Error('not reached')),
      },
      toolsUrl: NO_TOOLS,
      origin: 'http://localhost',
      research: () => ({ status: async () => ({ available: false, detail: 'off' }), ask: () => Promise.reject(new Error('off')) }),
    });
    return { store, engine, persistence: memoryPersistence(storage) };
  };
  return { a: tab(new HeldEngine(scriptA)), b: tab(new HeldEngine(scriptB)), storage };
}

/**
 * Tab `from` starts answering `text` and holds there (its model waits), with the conversation saved
 * and in tab `to`'s list: the moment another tab acts on a conversation being answered.
 */
async function answeringIn(from: ReturnType<typeof twoTabs>['a'], to: ReturnType<typeof twoTabs>['b'], text: string) {
  let release = () => {};
  from.engine.hold = new Promise<void>((resolve) => (release = resolve));
  const sent = from.store.dispatch({ type: 'send', text });
  await vi.waitFor(() => expect(from.engine.prompts).toHaveLength(1));
  await from.store.saveNow();
  const id = from.store.state.conversation.id;
  await vi.waitFor(() => expect(to.store.state.conversations.map((c) => c.id)).toContain(id));
  return { id, sent, release };
}

const userTexts = (conversation: Conversation | undefined) => conversation?.turns.filter((t) => t.role === 'user').map((t) => t.text);

describe('mergeConversation', () => {
  const stored: Conversation = {
    ...emptyConversation('c1'),
    title: 'Renamed in the other tab',
    instructions: 'Answer in French.',
    turns: [{ id: 't1', role: 'user', text: 'Hello', state: 'done' }],
  };
  const mine: Conversation = {
    ...stored,
    title: 'Old title',
    instructions: undefined,
    turns: [...stored.turns, { id: 't2', role: 'assistant', text: 'Hi', state: 'done' }],
  };

  it('writes only the fields a save names, and keeps the rest as stored', () => {
    const merged = mergeConversation(stored, mine, ['turns']);
    expect(merged.turns).toHaveLength(2);
    expect(merged.title).toBe('Renamed in the other tab');
    expect(merged.instructions).toBe('Answer in French.');
  });

  it('removes a named field the save lacks, and takes the whole save for a new conversation or no fields', () => {
    expect(mergeConversation(stored, mine, ['instructions']).instructions).toBeUndefined();
    expect('instructions' in mergeConversation(stored, mine, ['instructions'])).toBe(false);
    expect(mergeConversation(undefined, mine, ['turns'])).toBe(mine);
    expect(mergeConversation(stored, mine)).toBe(mine);
  });
});

describe('localTabSyncs', () => {
  it('tells the other tabs, never the one that posted, and runs one answer per conversation at a time', async () => {
    const tabs = localTabSyncs();
    const [one, two, three] = [tabs(), tabs(), tabs()];
    const heard: Record<string, TabMessage[]> = { one: [], two: [], three: [] };
    one.subscribe((m) => heard.one?.push(m));
    two.subscribe((m) => heard.two?.push(m));
    three.subscribe((m) => heard.three?.push(m));
    one.post({ kind: 'conversation', id: 'c1' });
    await Promise.resolve();
    expect(heard).toEqual({ one: [], two: [{ kind: 'conversation', id: 'c1' }], three: [{ kind: 'conversation', id: 'c1' }] });

    const order: string[] = [];
    let release = () => {};
    const first = one.withConversation('c1', { onWait: () => order.push('one waited') }, () =>
      new Promise<void>((resolve) => (release = resolve)).then(() => order.push('one done')),
    );
    expect(await two.isAnswering('c1')).toBe(true);
    expect(await two.isAnswering('c2')).toBe(false);
    const second = two.withConversation('c1', { onWait: () => order.push('two waited') }, async () => order.push('two ran'));
    const elsewhere = three.withConversation('c2', { onWait: () => order.push('three waited') }, async () => order.push('three ran'));
    await elsewhere;
    release();
    await Promise.all([first, second]);
    expect(order).toEqual(['two waited', 'three ran', 'one done', 'two ran']);
    expect(await one.isAnswering('c1')).toBe(false);
  });

  it('gives up a wait when its signal aborts: the work never runs, and the next waiter still waits for the holder', async () => {
    const tabs = localTabSyncs();
    const [one, two, three] = [tabs(), tabs(), tabs()];
    const order: string[] = [];
    let release = () => {};
    const holding = one.withConversation('c1', {}, () => new Promise<void>((resolve) => (release = resolve)).then(() => order.push('one done')));
    const controller = new AbortController();
    const given = two.withConversation('c1', { signal: controller.signal }, async () => order.push('two ran'));
    const third = three.withConversation('c1', {}, async () => order.push('three ran'));
    controller.abort(new Error('taken back'));
    await expect(given).rejects.toThrow('taken back');
    await Promise.resolve();
    expect(order).toEqual([]);
    release();
    await Promise.all([holding, third]);
    expect(order).toEqual(['one done', 'three ran']);
    await expect(two.withConversation('c1', { signal: controller.signal }, async () => 1)).rejects.toThrow('taken back');
  });
});

describe('two tabs of the page', () => {
  it('keep both users’ settings: a temperature set in one and a theme in the other', async () => {
    const { a, b, storage } = twoTabs([], []);
    a.store.dispatch({ type: 'updateSettings', change: { temperature: 0.3 } });
    b.store.dispatch({ type: 'updateSettings', change: { theme: 'dark' } });
    await vi.waitFor(() => {
      expect(a.store.state.settings.theme).toBe('dark');
      expect(b.store.state.settings.temperature).toBe(0.3);
    });
    const saved = await memoryPersistence(storage).loadSettings();
    expect(saved).toMatchObject({ temperature: 0.3, theme: 'dark' });
  });

  it('show a conversation made in one in the other’s list, and answer in it one tab at a time, keeping both turns', async () => {
    const { a, b, storage } = twoTabs(
      [
        { when: when.userAsked('Hello'), output: 'Hi there.' },
        { when: when.userAsked('First question'), output: 'First answer.' },
      ],
      [{ when: when.userAsked('Second question'), output: 'Second answer.' }],
    );
    await a.store.dispatch({ type: 'loadModel', source: { url: 'http://localhost/models/x' } });
    await b.store.dispatch({ type: 'loadModel', source: { url: 'http://localhost/models/x' } });
    await a.store.dispatch({ type: 'send', text: 'Hello' });
    const id = a.store.state.conversation.id;
    await vi.waitFor(() => expect(b.store.state.conversations.map((c) => c.id)).toContain(id));
    await b.store.dispatch({ type: 'selectConversation', id });
    expect(userTexts(b.store.state.conversation)).toEqual(['Hello']);

    // Tab A answers slowly; tab B's message, sent meanwhile in the same conversation, waits and says so.
    let release = () => {};
    a.engine.hold = new Promise<void>((resolve) => (release = resolve));
    const sentA = a.store.dispatch({ type: 'send', text: 'First question' });
    await vi.waitFor(() => expect(a.engine.prompts.some((p) => p.includes('First question'))).toBe(true));
    const sentB = b.store.dispatch({ type: 'send', text: 'Second question' });
    await vi.waitFor(() => expect(b.store.state.queued).toEqual({ text: 'Second question', waitingFor: 'tab' }));
    expect(b.engine.prompts).toEqual([]);
    release();
    await Promise.all([sentA, sentB]);
    expect(b.store.state.queued).toBeUndefined();

    // B answered on the conversation as A left it: its model saw A's exchange.
    expect(b.engine.prompts.at(-1)).toContain('First answer.');
    const saved = await memoryPersistence(storage).loadConversation(id);
    expect(userTexts(saved)).toEqual(['Hello', 'First question', 'Second question']);
    expect(saved?.turns.filter((t) => t.role === 'assistant').map((t) => t.text)).toEqual(['Hi there.', 'First answer.', 'Second answer.']);
    // And A shows B's answer without a reload.
    await vi.waitFor(() => expect(userTexts(a.store.state.conversation)).toEqual(['Hello', 'First question', 'Second question']));
  });

  it('let the user take back a waiting message with Stop: nothing is sent, and the text goes back to the box', async () => {
    const { a, b, storage } = twoTabs([{ when: when.userAsked('Hello'), output: 'Hi there.' }], []);
    await a.store.dispatch({ type: 'loadModel', source: { url: 'http://localhost/models/x' } });
    await b.store.dispatch({ type: 'loadModel', source: { url: 'http://localhost/models/x' } });
    const { id, sent: sentA, release } = await answeringIn(a, b, 'Hello');
    await b.store.dispatch({ type: 'selectConversation', id });
    const sentB = b.store.dispatch({ type: 'send', text: 'Never mind' });
    await vi.waitFor(() => expect(b.store.state.queued?.waitingFor).toBe('tab'));
    // While it waits, a second Enter sends nothing twice.
    await b.store.dispatch({ type: 'send', text: 'Never mind' });
    b.store.dispatch({ type: 'stop' });
    await sentB;
    expect(b.store.state.queued).toBeUndefined();
    expect(b.store.state.returnedText).toBe('Never mind');
    release();
    await sentA;
    await a.store.saveNow();
    expect(userTexts(await memoryPersistence(storage).loadConversation(id))).toEqual(['Hello']);
    expect(b.engine.prompts).toEqual([]);
  });

  it('keep a rename made in one tab while the other answers in that conversation', async () => {
    const { a, b, storage } = twoTabs([{ when: when.userAsked('Hello'), output: 'Hi there.' }], []);
    await a.store.dispatch({ type: 'loadModel', source: { url: 'http://localhost/models/x' } });
    const { id, sent, release } = await answeringIn(a, b, 'Hello');
    await b.store.dispatch({ type: 'renameConversation', id, title: 'Greetings' });
    release();
    await sent;
    await a.store.saveNow();
    const saved = await memoryPersistence(storage).loadConversation(id);
    expect(saved?.title).toBe('Greetings');
    expect(saved?.turns.at(-1)?.text).toBe('Hi there.');
  });
});
