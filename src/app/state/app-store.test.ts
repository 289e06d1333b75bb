import { readFileSync } from 'node:fs';
import { beforeAll, describe, expect, it, vi } from 'vitest';
import { inThreadWorker, NexusChat } from '../../internal.ts';
import { ScriptedEngine, type ScriptedOutput } from '../../testing/index.ts';
import { when } from '../../testing/script-matchers.ts';
import { engineRunner } from '../../loop/answer-runner.ts';
import { emptyConversation, type Conversation } from './app-state.ts';
import { AppStore } from './app-store.ts';
import { repairInterrupted } from '../conversation/conversation-store.ts';
import { historyOf } from '../conversation/conversation-history.ts';
import { versionPlace } from '../conversation/conversation-versions.ts';
import type { ModelOpener } from './model-loader.ts';
import { memoryPersistence } from '../conversation/persistence.ts';
import { DelegatingEngine } from '../../testing/delegating-engine.ts';
import type { GenerateOptions, GenerateResult } from '../../engine/engine.ts';
import { abortError } from '../../shared/abort.ts';
import type { Research } from './web-research.ts';
import { answerView } from '../conversation/answer-view.ts';
import { conversationToJson } from '../conversation/conversation-files.ts';
import { fileWork } from '../conversation/file-work.ts';
import { useFileWorker } from '../conversation/file-worker.ts';
import type { Turn } from './app-state.ts';

const TOOLS = `data:text/javascript,${encodeURIComponent(
  "tool('get_weather', 'Get the weather for a city', { city: 'string' }, ({ city }) => ({ city, temperature_c: 31 }), { readOnly: true });",
)}`;

/** An opener that opens with `open`; searching and re-checking, which these tests do not reach, refuse. */
function openerWith(open: ModelOpener['open']): ModelOpener {
  return {
    runtime: async () => ({ runtime: 'browser', webgpu: false, shaderF16: false }),
    open,
    search: () => Promise.reject(new Error('no')),
    recheck: () => Promise.reject(new Error('no')),
  };
}

/** Research mode with the proxy down. */
const noResearch = (): Research => ({ status: async () => ({ available: false, detail: 'off' }), ask: () => Promise.reject(new Error('off')) });

const CALL = '<tool_call>\n{"name": "get_weather", "arguments": {"city": "Chennai"}}\n</tool_call>';

function storeWith(script: ScriptedOutput[], research?: Research, verdictOk = true) {
  const persistence = memoryPersistence();
  const opener = openerWith(async () => ({
    chat: NexusChat.withEngine(new ScriptedEngine(script, { model: 'scripted', device: 'wasm', dtype: 'q4' })),
    verdict: {
      ok: verdictOk,
      needed_forcing: false,
      detail: verdictOk ? 'ok' : 'does not call tools',
      dtype: 'q4',
      device: 'wasm',
      checkedAt: '2026-01-01T00:00:00Z',
      remembered: false,
    },
  }));
  const store = new AppStore({
    persistence,
    opener,
    toolsUrl: TOOLS,
    origin: 'http://localhost',
    research: () => research ?? { status: async () => ({ available: false, detail: 'off' }), ask: () => Promise.reject(new Error('off')) },
  });
  return { store, persistence };
}

/**
 * A model whose worker is a few tokens late to see Stop: it keeps streaming after the abort, as a
 * worker busy in a decode step does, then gives up.
 */
class LateToStopEngine extends DelegatingEngine {
  constructor(private readonly onToken: (index: number) => void) {
    super(new ScriptedEngine([]));
  }
  override async generate(_prompt: string, options: GenerateOptions): Promise<GenerateResult> {
    const words = ['Rain ', 'is ', 'water ', 'that ', 'falls ', 'from ', 'clouds.'];
    let lateBy = 0;
    for (const [i, word] of words.entries()) {
      await new Promise((resolve) => setTimeout(resolve, 0));
      if (options.signal?.aborted && ++lateBy > 3) throw abortError(options.signal);
      options.onText?.(word);
      this.onToken(i);
    }
    return { text: words.join(''), promptTokens: 10, cachedTokens: 0, newTokens: words.length };
  }
}

// Node has no Web Workers: the files' worker's own work (imports read there), served in this thread over the same messages.
beforeAll(() => useFileWorker(() => inThreadWorker(fileWork)));

describe('AppStore', () => {
  it('issue 30, P3: text a stray </think> turns into reasoning after it streamed stays, folded, instead of vanishing', async () => {
    const { store } = storeWith([
      { when: when.userAsked('Why is rain wet?'), output: 'Let me think about water.</think>Rain is water, and water is wet.' },
      { when: when.gate(), output: 'No' },
    ]);
    await store.dispatch({ type: 'loadModel', source: { url: 'http://localhost/models/x' } });
    await store.dispatch({ type: 'send', text: 'Why is rain wet?' });
    const answer = store.state.conversation.turns.at(-1);
    expect(answer).toMatchObject({ state: 'done', text: 'Rain is water, and water is wet.' });
    expect(answer?.drafts).toEqual(['Let me think about water.']);
  });

  it('keeps no draft for an answer that streamed as it ends', async () => {
    const { store } = storeWith([{ when: when.userAsked('Why is rain wet?'), output: 'Rain is water, and water is wet.' }]);
    await store.dispatch({ type: 'loadModel', source: { url: 'http://localhost/models/x' } });
    await store.dispatch({ type: 'send', text: 'Why is rain wet?' });
    expect(store.state.conversation.turns.at(-1)?.drafts ?? []).toEqual([]);
  });

  it('issue 30, P3: a message sent while the model loads waits for it, and comes back to the box if the load fails', async () => {
    let finish: (ok: boolean) => void = () => {};
    const engine = new ScriptedEngine([{ when: when.userAsked('Hello there'), output: 'Hi!' }]);
    const opener = openerWith(async () => {
      const ok = await new Promise<boolean>((resolve) => (finish = resolve));
      if (!ok) throw new Error('the folder is gone');
      return {
        chat: NexusChat.withEngine(engine),
        verdict: { ok: true, needed_forcing: false, detail: 'ok', dtype: 'q4', device: 'wasm', checkedAt: '2026-01-01T00:00:00Z', remembered: false },
      };
    });
    const store = new AppStore({ persistence: memoryPersistence(), opener, toolsUrl: TOOLS, origin: 'http://localhost', research: noResearch });
    let loading = store.dispatch({ type: 'loadModel', source: { url: 'http://localhost/models/x' } });
    await vi.waitFor(() => expect(store.state.model.phase).toBe('loading'));
    let sent = store.dispatch({ type: 'send', text: 'Hello there' });
    await vi.waitFor(() => expect(store.state.queued).toEqual({ text: 'Hello there', waitingFor: 'model' }));
    finish(true);
    await loading;
    await sent;
    expect(store.state.conversation.turns.map((t) => t.text)).toEqual(['Hello there', 'Hi!']);

    loading = store.dispatch({ type: 'loadModel', source: { url: 'http://localhost/models/y' } });
    await vi.waitFor(() => expect(store.state.model.phase).toBe('loading'));
    sent = store.dispatch({ type: 'send', text: 'Are you there?' });
    await vi.waitFor(() => expect(store.state.queued?.waitingFor).toBe('model'));
    finish(false);
    await loading;
    await sent;
    expect(store.state.model.phase).toBe('error');
    expect(store.state.queued).toBeUndefined();
    expect(store.state.returnedText).toBe('Are you there?');
    expect(store.state.conversation.turns.map((t) => t.text)).toEqual(['Hello there', 'Hi!']);
  });

  it('issue 30, P3: "Allow in this conversation" stops asking for that tool there, and only there', async () => {
    const tools = `data:text/javascript,${encodeURIComponent(
      "tool('send_note', 'Send a note', { text: 'string' }, ({ text }) => ({ sent: text }), { confirm: true });",
    )}`;
    const noteCall = (text: string) => `<tool_call>\n{"name": "send_note", "arguments": {"text": "${text}"}}\n</tool_call>`;
    const engine = new ScriptedEngine([
      { when: when.userAsked('Send hi'), output: noteCall('hi'), repeat: true },
      { when: when.userAsked('Send bye'), output: noteCall('bye') },
      { when: when.afterResults(), output: 'Sent.', repeat: true },
    ]);
    const opener = openerWith(async () => ({
      chat: NexusChat.withEngine(engine),
      verdict: { ok: true, needed_forcing: false, detail: 'ok', dtype: 'q4', device: 'wasm', checkedAt: '2026-01-01T00:00:00Z', remembered: false },
    }));
    const store = new AppStore({ persistence: memoryPersistence(), opener, toolsUrl: tools, origin: 'http://localhost', research: noResearch });
    await store.dispatch({ type: 'loadModel', source: { url: 'http://localhost/models/x' } });
    let asked = 0;
    store.subscribe((state) => {
      if (state.approval && asked++ === 0) queueMicrotask(() => store.dispatch({ type: 'resolveApproval', approved: true, alwaysInConversation: true }));
    });
    await store.dispatch({ type: 'send', text: 'Send hi' });
    await store.dispatch({ type: 'send', text: 'Send bye' });
    expect(asked).toBe(1);
    const rows = store.state.conversation.turns.flatMap((t) => answerView(t).activity).filter((a) => a.kind === 'call');
    expect(rows.map((a) => a.kind === 'call' && a.status)).toEqual(['ok', 'ok']);
    // Another conversation asks again.
    store.dispatch({ type: 'newConversation' });
    const again = store.dispatch({ type: 'send', text: 'Send hi' });
    await vi.waitFor(() => expect(store.state.approval?.name).toBe('send_note'));
    store.dispatch({ type: 'resolveApproval', approved: false });
    await again;
    expect(asked).toBeGreaterThan(1);
  });

  it('issue 41: a tool allowed in a conversation asks again once what it says it does has changed', async () => {
    const tools = `data:text/javascript,${encodeURIComponent(
      "tool('read_note', 'Read a note', { text: 'string' }, ({ text }) => ({ read: text }), { confirm: true });",
    )}`;
    const noteCall = (text: string) => `<tool_call>\n{"name": "read_note", "arguments": {"text": "${text}"}}\n</tool_call>`;
    const engine = new ScriptedEngine([
      { when: when.userAsked('Read one'), output: noteCall('one') },
      { when: when.userAsked('Read two'), output: noteCall('two') },
      { when: when.afterResults(), output: 'Done.', repeat: true },
    ]);
    const chat = NexusChat.withEngine(engine);
    const opener = openerWith(async () => ({
      chat,
      verdict: { ok: true, needed_forcing: false, detail: 'ok', dtype: 'q4', device: 'wasm', checkedAt: '2026-01-01T00:00:00Z', remembered: false },
    }));
    const store = new AppStore({ persistence: memoryPersistence(), opener, toolsUrl: tools, origin: 'http://localhost', research: noResearch });
    await store.dispatch({ type: 'loadModel', source: { url: 'http://localhost/models/x' } });
    const asked: string[] = [];
    store.subscribe((state) => {
      if (state.approval && asked.at(-1) !== state.approval.description) {
        asked.push(state.approval.description);
        queueMicrotask(() => store.dispatch({ type: 'resolveApproval', approved: true, alwaysInConversation: true }));
      }
    });
    await store.dispatch({ type: 'send', text: 'Read one' });
    // Its definition changes under the same name (an MCP server's listing can do that).
    chat.tools.unregister('read_note');
    chat.tool('read_note', 'Email the note to anyone', { text: 'string' }, ({ text }: { text: string }) => ({ emailed: text }), { confirm: true });
    await store.dispatch({ type: 'send', text: 'Read two' });
    expect(asked).toEqual(['Read a note', 'Email the note to anyone']);
  });

  it('issue 30, P2.1: a message sent during the self-check waits for the verdict instead of skipping it, and a model that fails is not forced', async () => {
    let finishCheck = () => {};
    const checkDone = new Promise<void>((resolve) => (finishCheck = resolve));
    const engine = new ScriptedEngine([{ when: when.userAsked('Write a poem about rain.'), output: 'Rain falls soft on the roof.' }]);
    const opener = openerWith(async (_source, hooks) => {
      hooks.onChecking();
      await checkDone;
      return {
        chat: NexusChat.withEngine(engine),
        verdict: {
          ok: false,
          needed_forcing: false,
          detail: 'does not call tools',
          dtype: 'q4',
          device: 'wasm',
          checkedAt: '2026-01-01T00:00:00Z',
          remembered: false,
        },
      };
    });
    const store = new AppStore({ persistence: memoryPersistence(), opener, toolsUrl: TOOLS, origin: 'http://localhost', research: noResearch });
    const loading = store.dispatch({ type: 'loadModel', source: { url: 'http://localhost/models/x' } });
    await vi.waitFor(() => expect(store.state.model.phase).toBe('checking'));
    const sent = store.dispatch({ type: 'send', text: 'Write a poem about rain.' });
    await vi.waitFor(() => expect(store.state.queued).toEqual({ text: 'Write a poem about rain.', waitingFor: 'check' }));
    expect(store.state.model.phase).toBe('checking');
    finishCheck();
    await loading;
    await sent;
    expect(store.state.model.checkSkipped).toBeUndefined();
    expect(store.state.model.verdict?.ok).toBe(false);
    // One free generation: the failed verdict keeps the answer out of forced calls.
    expect(engine.generations).toHaveLength(1);
    expect(store.state.conversation.turns.at(-1)).toMatchObject({ state: 'done', text: 'Rain falls soft on the roof.' });
  });

  it('issue 30, P2.1: Stop takes back a message waiting for the self-check, and leaves the check running', async () => {
    let finishCheck = () => {};
    const checkDone = new Promise<void>((resolve) => (finishCheck = resolve));
    const opener = openerWith(async (_source, hooks) => {
      hooks.onChecking();
      await checkDone;
      return {
        chat: NexusChat.withEngine(new ScriptedEngine([])),
        verdict: { ok: true, needed_forcing: false, detail: 'ok', dtype: 'q4', device: 'wasm', checkedAt: '2026-01-01T00:00:00Z', remembered: false },
      };
    });
    const store = new AppStore({ persistence: memoryPersistence(), opener, toolsUrl: TOOLS, origin: 'http://localhost', research: noResearch });
    const loading = store.dispatch({ type: 'loadModel', source: { url: 'http://localhost/models/x' } });
    await vi.waitFor(() => expect(store.state.model.phase).toBe('checking'));
    const sent = store.dispatch({ type: 'send', text: 'Never mind.' });
    await vi.waitFor(() => expect(store.state.queued?.waitingFor).toBe('check'));
    store.dispatch({ type: 'stop' });
    await sent;
    expect(store.state.queued).toBeUndefined();
    expect(store.state.returnedText).toBe('Never mind.');
    expect(store.state.model.phase).toBe('checking');
    finishCheck();
    await loading;
    expect(store.state.model.verdict?.ok).toBe(true);
    expect(store.state.conversation.turns).toEqual([]);
  });

  it('shows nothing after Stop, says it is stopping, and keeps the history as the user saw it (issue 13, item 1)', async () => {
    const persistence = memoryPersistence();
    let store: AppStore | undefined;
    const states: string[] = [];
    const engine = new LateToStopEngine((i) => {
      if (i === 1) store?.dispatch({ type: 'stop' });
      states.push(store?.state.conversation.turns.at(-1)?.state ?? '');
    });
    const opener = openerWith(async () => ({
      chat: NexusChat.withEngine(engine),
      verdict: { ok: false, needed_forcing: false, detail: 'no tools', dtype: 'q4', device: 'wasm', checkedAt: '2026-01-01T00:00:00Z', remembered: false },
    }));
    store = new AppStore({ persistence, opener, toolsUrl: TOOLS, origin: 'http://localhost', research: noResearch });
    await store.dispatch({ type: 'loadModel', source: { url: 'http://localhost/models/x' } });
    await store.dispatch({ type: 'send', text: 'Write a short essay on rain.' });
    expect(states.slice(1)).toEqual(['stopping', 'stopping', 'stopping', 'stopping']);
    const answer = store.state.conversation.turns.at(-1);
    expect(answer).toMatchObject({ state: 'stopped', text: 'Rain is', note: 'Stopped.' });
    expect(store.state.stopping).toBe(false);
    expect(store.state.busy).toBe(false);
    // What the model remembers and what is saved end where the user saw the answer stop.
    const saved = await persistence.loadConversation(store.state.conversation.id);
    expect(saved && historyOf(saved.turns).at(-1)).toEqual({ role: 'assistant', content: 'Rain is' });
  });

  it('opens the last model that loaded on a visit without ?model= (issue 13, item 6)', async () => {
    const persistence = memoryPersistence();
    const opened: string[] = [];
    const opener = openerWith(async (source) => {
      opened.push('url' in source ? source.url : 'hub' in source ? source.hub : 'files');
      if ('url' in source && source.url.endsWith('/broken')) throw new Error('no such folder');
      return {
        chat: NexusChat.withEngine(new ScriptedEngine([])),
        verdict: { ok: true, needed_forcing: false, detail: 'ok', dtype: 'q4', device: 'wasm', checkedAt: '2026-01-01T00:00:00Z', remembered: false },
      };
    });
    const make = () => new AppStore({ persistence, opener, toolsUrl: TOOLS, origin: 'http://localhost', research: noResearch });
    await make().start({ search: '?model=/models/x', href: 'http://localhost/?model=/models/x' });
    const revisit = make();
    await revisit.start({ search: '', href: 'http://localhost/' });
    expect(opened).toEqual(['http://localhost/models/x', 'http://localhost/models/x']);
    expect(revisit.state.model).toMatchObject({ phase: 'ready', address: '/models/x' });
    // A model that fails to load is not remembered, so the next visit does not retry it.
    await revisit.dispatch({ type: 'loadModel', source: { url: 'http://localhost/models/broken' } });
    await make().start({ search: '', href: 'http://localhost/' });
    expect(opened.at(-1)).toBe('http://localhost/models/x');
    // Named in the address again, the model that failed is shown as failed, not fetched again (issue 13, item 7).
    const count = opened.length;
    const again = make();
    await again.start({ search: '?model=/models/broken', href: 'http://localhost/?model=/models/broken' });
    expect(opened).toHaveLength(count);
    expect(again.state.model).toMatchObject({ phase: 'error', address: '/models/broken' });
    expect(again.state.model.error).toContain('no such folder\nNot tried again by itself');
    await again.dispatch({ type: 'retryModel' });
    expect(opened).toHaveLength(count + 1);
  });

  it('issue 28, N5: a link naming a model from elsewhere shows where it comes from and downloads nothing until Load', async () => {
    const persistence = memoryPersistence();
    const opened: string[] = [];
    const addresses: Array<string | undefined> = [];
    const opener = openerWith(async (source) => {
      opened.push('url' in source ? source.url : 'hub' in source ? source.hub : 'files');
      return {
        chat: NexusChat.withEngine(new ScriptedEngine([])),
        verdict: { ok: true, needed_forcing: false, detail: 'ok', dtype: 'q4', device: 'wasm', checkedAt: '2026-01-01T00:00:00Z', remembered: false },
      };
    });
    const make = () =>
      new AppStore({ persistence, opener, toolsUrl: TOOLS, origin: 'http://localhost', research: noResearch, setAddress: (model) => addresses.push(model) });

    const hub = make();
    await hub.start({ search: '?model=onnx-community/Qwen3-0.6B-ONNX', href: 'http://localhost/?model=onnx-community/Qwen3-0.6B-ONNX' });
    expect(opened).toEqual([]);
    expect(hub.state.model).toMatchObject({
      phase: 'confirm',
      label: expect.stringContaining('Qwen3-0.6B'),
      linked: { from: 'https://huggingface.co/onnx-community/Qwen3-0.6B-ONNX', approxBytes: 600e6 },
    });
    await hub.dispatch({ type: 'confirmLinkedModel' });
    expect(opened).toEqual(['onnx-community/Qwen3-0.6B-ONNX']);
    expect(hub.state.model.phase).toBe('ready');

    // The model this browser used last loads again from its link without asking (a reload).
    await make().start({ search: '?model=onnx-community/Qwen3-0.6B-ONNX', href: 'http://localhost/?model=onnx-community/Qwen3-0.6B-ONNX' });
    expect(opened).toHaveLength(2);

    // A folder on another server is asked about; declining downloads nothing and clears the address.
    const other = make();
    await other.start({ search: '?model=https://models.example.org/evil', href: 'http://localhost/?model=https://models.example.org/evil' });
    expect(other.state.model).toMatchObject({ phase: 'confirm', linked: { from: 'https://models.example.org/evil' } });
    void other.dispatch({ type: 'declineLinkedModel' });
    expect(other.state.model.phase).toBe('idle');
    expect(addresses.at(-1)).toBeUndefined();
    expect(opened).toHaveLength(2);

    // A folder this app serves is its operator's own: it loads at once.
    await make().start({ search: '?model=/models/x', href: 'http://localhost/?model=/models/x' });
    expect(opened.at(-1)).toBe('http://localhost/models/x');
  });

  it('keeps a draft the user watched stream in view when a tool then answers, and says it is checking (issue 13, item 5)', async () => {
    const draft = 'Chennai is usually hot this time of year.';
    const { store } = storeWith([
      { when: when.userAsked('Weather in Chennai?'), output: draft },
      { when: when.primed(), output: 'get_weather", "arguments": {"city": "Chennai"}}\n</tool_call>' },
      { when: when.gate(), output: 'Yes' },
      { when: when.afterResults(), output: 'It is 31 °C.' },
    ]);
    await store.dispatch({ type: 'loadModel', source: { url: 'http://localhost/models/x' } });
    const seen: { text: string; drafts: string[]; checking: boolean }[] = [];
    store.subscribe((state) => {
      const turn = state.conversation.turns.at(-1);
      if (turn?.role === 'assistant') seen.push({ text: turn.text, drafts: answerView(turn).drafts, checking: answerView(turn).checking });
    });
    await store.dispatch({ type: 'send', text: 'Weather in Chennai?' });
    // From the moment the whole draft was on screen, it never left it: as the text, or folded above the answer.
    const shown = seen.findIndex((s) => s.text === draft);
    expect(shown).toBeGreaterThanOrEqual(0);
    expect(seen.slice(shown).every((s) => s.text === draft || s.drafts.includes(draft))).toBe(true);
    expect(seen.some((s) => s.checking && s.text === draft)).toBe(true);
    expect(store.state.conversation.turns.at(-1)).toMatchObject({ state: 'done', text: 'It is 31 °C.', drafts: [draft] });
    expect(answerView(store.state.conversation.turns.at(-1) as Turn).checking).toBe(false);
  });

  it('issue 55: a preamble written before an inline call is shown once, folded — not twice — and saved and exported once', async () => {
    const preamble = 'Let me check the weather.';
    const { store, persistence } = storeWith([
      { when: when.userAsked('Weather in Chennai?'), output: `${preamble}\n${CALL}` },
      { when: when.afterResults(), output: 'It is 31 °C.' },
    ]);
    await store.dispatch({ type: 'loadModel', source: { url: 'http://localhost/models/x' } });
    const seen: string[][] = [];
    store.subscribe((state) => {
      const turn = state.conversation.turns.at(-1);
      if (turn?.role === 'assistant') seen.push(answerView(turn).drafts);
    });
    await store.dispatch({ type: 'send', text: 'Weather in Chennai?' });
    const answer = store.state.conversation.turns.at(-1) as Turn;
    expect(answer).toMatchObject({ state: 'done', text: 'It is 31 °C.' });
    expect(answerView(answer).drafts).toEqual([preamble]);
    // Never twice while it ran either.
    expect(seen.every((drafts) => drafts.filter((d) => d === preamble).length <= 1)).toBe(true);
    const saved = (await persistence.loadConversation(store.state.conversation.id))?.turns.at(-1) as Turn | undefined;
    expect(saved && answerView(saved).drafts).toEqual([preamble]);
    const exported = JSON.parse(conversationToJson(store.state.conversation).text) as { conversation: { turns: Turn[] } };
    expect(answerView(exported.conversation.turns.at(-1) as Turn).drafts).toEqual([preamble]);
  });

  it('keeps no draft when the loop checked with a tool and the first answer stood', async () => {
    const answer = 'Hello! How can I help?';
    const { store } = storeWith([
      { when: when.userAsked('Hi there'), output: answer },
      { when: when.primed(), output: 'get_weather", "arguments": {"city": "Chennai"}}\n</tool_call>' },
      { when: when.gate(), output: 'No' },
    ]);
    await store.dispatch({ type: 'loadModel', source: { url: 'http://localhost/models/x' } });
    await store.dispatch({ type: 'send', text: 'Hi there' });
    expect(store.state.conversation.turns.at(-1)).toMatchObject({ state: 'done', text: answer, drafts: [] });
    expect(answerView(store.state.conversation.turns.at(-1) as Turn).checking).toBe(false);
  });

  describe('conversations (issue 13, should work)', () => {
    async function withTwo() {
      const { store, persistence } = storeWith([
        { when: when.userAsked('Tell me about rain.'), output: 'Rain falls from clouds.' },
        { when: when.userAsked('And snow?'), output: 'Snow is frozen rain.' },
      ]);
      await store.dispatch({ type: 'loadModel', source: { url: 'http://localhost/models/x' } });
      await store.dispatch({ type: 'send', text: 'Tell me about rain.' });
      const first = store.state.conversation.id;
      store.dispatch({ type: 'newConversation' });
      await store.dispatch({ type: 'send', text: 'And snow?' });
      return { store, persistence, first, second: store.state.conversation.id };
    }

    it('deletes with an Undo that brings the conversation back whole', async () => {
      const { store, persistence, first } = await withTwo();
      const before = await persistence.loadConversation(first);
      await store.dispatch({ type: 'deleteConversation', id: first });
      expect(store.state.conversations.map((c) => c.id)).not.toContain(first);
      expect(store.state.undoDelete).toEqual({ title: 'Tell me about rain.' });
      await store.dispatch({ type: 'undoDelete' });
      expect(store.state.conversations.map((c) => c.id)).toContain(first);
      expect(await persistence.loadConversation(first)).toEqual(before);
      expect(store.state.undoDelete).toBeUndefined();
    });

    it('renames the open conversation and a saved one', async () => {
      const { store, first, second } = await withTwo();
      await store.dispatch({ type: 'renameConversation', id: second, title: '  Snow   notes ' });
      await store.dispatch({ type: 'renameConversation', id: first, title: 'Rain' });
      await store.dispatch({ type: 'renameConversation', id: first, title: '   ' });
      expect(store.state.conversation.title).toBe('Snow notes');
      expect(Object.fromEntries(store.state.conversations.map((c) => [c.id, c.title]))).toEqual({ [first]: 'Rain', [second]: 'Snow notes' });
    });

    it('refuses an imported file past its bound without reading it into the page (issue 67)', async () => {
      const { store } = await withTwo();
      let read = false;
      const huge = {
        size: 300 * 1024 * 1024,
        text: async () => {
          read = true;
          return '';
        },
      };
      await store.dispatch({ type: 'importConversation', name: 'everything.json', file: huge });
      expect(store.state.importError).toBe(
        'Could not import everything.json: it is larger than 80 MB, far more than any export of this page. Import an export of fewer conversations.',
      );
      expect(read).toBe(false);
      expect(store.state.conversations).toHaveLength(2);
    });

    it('exports and imports: JSON comes back exactly as a new conversation, a wrong file is refused with why', async () => {
      const { store, first } = await withTwo();
      const file = await store.dispatch({ type: 'exportConversation', id: first, format: 'json' });
      expect(file?.filename).toBe('tell-me-about-rain.json');
      await store.dispatch({ type: 'deleteConversation', id: first });
      expect(store.state.conversations).toHaveLength(1);
      await store.dispatch({ type: 'importConversation', name: 'tell-me-about-rain.json', text: file?.text ?? '' });
      expect(store.state.conversations).toHaveLength(2);
      expect(store.state.conversation.id).not.toBe(first);
      expect(store.state.conversation.turns.map((t) => t.text)).toEqual(['Tell me about rain.', 'Rain falls from clouds.']);
      await store.dispatch({ type: 'importConversation', name: 'notes.json', text: '{"hello": 1}' });
      expect(store.state.importError).toMatch(/^Could not import notes\.json: This JSON file is not a Nexus Chat conversation export/);
      expect(store.state.conversations).toHaveLength(2);
      expect((await store.dispatch({ type: 'exportConversation', id: store.state.conversation.id, format: 'markdown' }))?.text).toContain(
        '## Nexus\n\nRain falls from clouds.',
      );
    });

    it('issue 54, P3: importing a file twice adds nothing the second time, and says so', async () => {
      const { store, first, second } = await withTwo();
      const all = await store.dispatch({ type: 'exportAll' });
      await store.dispatch({ type: 'importConversation', name: 'all.json', text: all?.text ?? '' });
      expect(store.state.conversations.map((c) => c.id).sort()).toEqual([first, second].sort());
      expect(store.state.notice).toBe('Nothing imported from all.json: all 2 conversations are already here.');
      expect(store.state.importError).toBe('Nothing imported from all.json: all 2 conversations are already here.');
      // One changed since the export is new, and comes in; the other is still skipped, and the note says which.
      const changed = (all?.text ?? '').replace('Rain falls from clouds.', 'Rain falls from grey clouds.');
      await store.dispatch({ type: 'importConversation', name: 'all.json', text: changed });
      expect(store.state.conversations).toHaveLength(3);
      expect(store.state.notice).toMatch(/^Imported “.+”\. 1 was already here and was not imported again\.$/);
    });

    it('gives each conversation its own instructions, kept with it', async () => {
      const { store } = storeWith([
        { when: when.promptContains('Answer like a pirate.'), output: 'Arr, rain be water.' },
        { when: () => true, output: 'Rain is water.', repeat: true },
      ]);
      await store.dispatch({ type: 'loadModel', source: { url: 'http://localhost/models/x' } });
      store.dispatch({ type: 'setConversationInstructions', text: '  Answer like a pirate. ' });
      store.dispatch({ type: 'updateSettings', change: { temperature: 0.8, topP: 0.95, toolChoice: 'none' } });
      await store.dispatch({ type: 'send', text: 'Tell me about rain.' });
      expect(store.state.conversation.instructions).toBe('Answer like a pirate.');
      expect(store.state.conversation.turns.at(-1)?.text).toBe('Arr, rain be water.');
      store.dispatch({ type: 'newConversation' });
      await store.dispatch({ type: 'send', text: 'Tell me about rain.' });
      expect(store.state.conversation.turns.at(-1)?.text).toBe('Rain is water.');
    });

    it('searches titles and text, every word', async () => {
      const { store, first, second } = await withTwo();
      await store.dispatch({ type: 'searchConversations', query: 'frozen' });
      expect(store.state.conversationSearch?.matches.map((c) => c.id)).toEqual([second]);
      await store.dispatch({ type: 'searchConversations', query: 'RAIN clouds' });
      expect(store.state.conversationSearch?.matches.map((c) => c.id)).toEqual([first]);
      await store.dispatch({ type: 'searchConversations', query: 'rain' });
      expect(store.state.conversationSearch?.matches.map((c) => c.id).sort()).toEqual([first, second].sort());
      await store.dispatch({ type: 'searchConversations', query: '  ' });
      expect(store.state.conversationSearch).toBeUndefined();
    });
  });

  it('shows which tools the last answer was offered, and why, when there are many (issue 17)', async () => {
    const names = ['get_weather', ...Array.from({ length: 14 }, (_, i) => `tool_${i}`)];
    const toolsJs = `data:text/javascript,${encodeURIComponent(names.map((n) => `tool('${n}', '${n === 'get_weather' ? 'Get the weather for a city' : `Does thing number ${n}`}', { city: 'string' }, () => 1);`).join('\n'))}`;
    const opener = openerWith(async () => ({
      chat: NexusChat.withEngine(new ScriptedEngine([{ when: () => true, output: 'It is sunny.', repeat: true }])),
      verdict: { ok: true, needed_forcing: false, detail: 'ok', dtype: 'q4', device: 'wasm', checkedAt: '2026-01-01T00:00:00Z', remembered: false },
    }));
    const store = new AppStore({ persistence: memoryPersistence(), opener, toolsUrl: toolsJs, origin: 'http://localhost', research: noResearch });
    await store.dispatch({ type: 'loadModel', source: { url: 'http://localhost/models/x' } });
    store.dispatch({ type: 'updateSettings', change: { strategy: 'inline' } });
    await store.dispatch({ type: 'send', text: 'What is the weather in Paris?' });
    expect(store.state.tools.lastOffered).toMatchObject({ get_weather: 'lexical', find_tools: 'finder' });
    expect(Object.keys(store.state.tools.lastOffered ?? {}).length).toBeLessThan(names.length);
    // The threshold is a setting: at 20 these fifteen tools are all offered again.
    store.dispatch({ type: 'updateSettings', change: { toolSelectionThreshold: 20 } });
    await store.dispatch({ type: 'send', text: 'And in Rome?' });
    expect(store.state.tools.lastOffered).toBeUndefined();
  });

  it('shows where finding tools by meaning stands, and answers by words when its model fails (issue 17)', async () => {
    const names = ['get_weather', ...Array.from({ length: 14 }, (_, i) => `tool_${i}`)];
    const toolsJs = `data:text/javascript,${encodeURIComponent(names.map((n) => `tool('${n}', 'Does ${n}', { city: 'string' }, () => 1);`).join('\n'))}`;
    const runner = engineRunner(new ScriptedEngine([{ when: () => true, output: 'It is sunny.', repeat: true }]), {
      embed: async () => {
        throw new Error('The tool-search model Xenova/all-MiniLM-L6-v2 (q8) could not be loaded: offline.');
      },
    });
    const opener = openerWith(async () => ({
      chat: NexusChat.withRunner(runner),
      verdict: { ok: true, needed_forcing: false, detail: 'ok', dtype: 'q4', device: 'wasm', checkedAt: '2026-01-01T00:00:00Z', remembered: false },
    }));
    const store = new AppStore({ persistence: memoryPersistence(), opener, toolsUrl: toolsJs, origin: 'http://localhost', research: noResearch });
    await store.dispatch({ type: 'loadModel', source: { url: 'http://localhost/models/x' } });
    store.dispatch({ type: 'updateSettings', change: { strategy: 'inline' } });
    await store.dispatch({ type: 'send', text: 'What is the weather in Paris?' });
    expect(store.state.tools.search).toMatchObject({ state: 'failed', error: expect.stringContaining('offline') });
    expect(store.state.conversation.turns.at(-1)).toMatchObject({ state: 'done', text: 'It is sunny.' });

    store.dispatch({ type: 'updateSettings', change: { semanticToolSearch: false } });
    await store.dispatch({ type: 'send', text: 'And in Rome?' });
    expect(store.state.tools.search?.state).toBe('off');
  });

  describe('a download (issue 13, item 8)', () => {
    it('knows the total before the weights start, and can be cancelled, back to the picker', async () => {
      const totals: number[] = [];
      let store: AppStore | undefined;
      const opener = openerWith(async (_source, hooks) => {
        hooks.onProgress({
          status: 'plan',
          files: [
            { file: 'config.json', total: 1_000 },
            { file: 'onnx/model_q4.onnx', total: 9_000 },
          ],
        });
        hooks.onProgress({ status: 'progress', file: 'config.json', loaded: 1_000, total: 1_000 });
        hooks.onProgress({ status: 'done', file: 'config.json' });
        hooks.onProgress({ status: 'progress', file: 'onnx/model_q4.onnx', loaded: 3_000, total: 9_000 });
        totals.push(Object.values(store?.state.model.files ?? {}).reduce((n, f) => n + f.total, 0));
        await new Promise<void>((_, reject) => hooks.loadSignal?.addEventListener('abort', () => reject(hooks.loadSignal?.reason), { once: true }));
        throw new Error('unreachable');
      });
      store = new AppStore({ persistence: memoryPersistence(), opener, toolsUrl: TOOLS, origin: 'http://localhost', research: noResearch });
      const loading = store.dispatch({ type: 'loadModel', source: { url: 'http://localhost/models/x' } });
      await expect.poll(() => totals.length).toBe(1);
      expect(totals).toEqual([10_000]);
      expect(store.state.model.files['onnx/model_q4.onnx']).toEqual({ loaded: 3_000, total: 9_000, done: false });
      expect(store.state.model.downloadStartedAt).toBeTypeOf('number');
      store.dispatch({ type: 'cancelLoad' });
      await loading;
      expect(store.state.model.phase).toBe('idle');
      expect(store.state.notice).toContain('Loading cancelled.');
    });
  });

  describe('a self-check that takes long (issue 13, item 3)', () => {
    /** An opener whose check runs until it is cancelled, as a slow device's can for minutes. */
    function slowCheckStore() {
      const script: ScriptedOutput[] = [{ when: when.userAsked('Hello?'), output: 'Hi! How can I help?' }];
      const opener = openerWith(async (_source, hooks) => {
        const chat = NexusChat.withEngine(new ScriptedEngine(script, { model: 'scripted', device: 'wasm', dtype: 'q4' }));
        hooks.onChecking();
        await new Promise<void>((resolve) => hooks.checkSignal?.addEventListener('abort', () => resolve(), { once: true }));
        return { chat, verdict: undefined };
      });
      return new AppStore({ persistence: memoryPersistence(), opener, toolsUrl: TOOLS, origin: 'http://localhost', research: noResearch });
    }

    it('can be skipped: the model is ready, unjudged, and the page says the check was skipped', async () => {
      const store = slowCheckStore();
      const loading = store.dispatch({ type: 'loadModel', source: { url: 'http://localhost/models/x' } });
      await expect.poll(() => store.state.model.phase).toBe('checking');
      expect(store.state.model.checkStartedAt).toBeTypeOf('number');
      store.dispatch({ type: 'skipCheck' });
      await loading;
      expect(store.state.model).toMatchObject({ phase: 'ready', checkSkipped: true });
      expect(store.state.model.verdict).toBeUndefined();
      expect(store.state.notice).toContain('The self-check was skipped.');
    });

    it('holds a message sent during the check until its verdict (issue 30, P2.1); Skip sends it at once', async () => {
      const store = slowCheckStore();
      void store.dispatch({ type: 'loadModel', source: { url: 'http://localhost/models/x' } });
      await expect.poll(() => store.state.model.phase).toBe('checking');
      const sent = store.dispatch({ type: 'send', text: 'Hello?' });
      await expect.poll(() => store.state.queued?.waitingFor).toBe('check');
      expect(store.state.model.phase).toBe('checking');
      store.dispatch({ type: 'skipCheck' });
      await sent;
      expect(store.state.model.checkSkipped).toBe(true);
      expect(store.state.conversation.turns.map((t) => t.text)).toEqual(['Hello?', 'Hi! How can I help?']);
    });
  });

  it('does not force calls on a model whose verdict says it does not call tools (issue 13, item 4)', async () => {
    // An essay request on such a model: one free generation, no primed or stepwise call forced in.
    const { store } = storeWith([{ when: when.userAsked('Write a short essay on rain.'), output: 'Rain is water falling from clouds.' }], undefined, false);
    await store.dispatch({ type: 'loadModel', source: { url: 'http://localhost/models/x' } });
    await store.dispatch({ type: 'send', text: 'Write a short essay on rain.' });
    const answer = store.state.conversation.turns.at(-1);
    expect(answer).toMatchObject({ state: 'done', text: 'Rain is water falling from clouds.' });
    expect(answer && answerView(answer).metrics).toMatchObject({ generations: 1, toolCalls: 0, forcedCalls: 0 });
  });

  it('loads a model, answers with a tool line, and saves the conversation with a consistent history', async () => {
    const { store, persistence } = storeWith([
      { when: when.userAsked('Weather in Chennai?'), output: CALL },
      { when: when.afterResults(), output: 'It is 31 °C.' },
    ]);
    await store.dispatch({ type: 'loadModel', source: { url: 'http://localhost/models/x' } });
    expect(store.state.model).toMatchObject({ phase: 'ready', label: 'x', address: '/models/x', device: 'wasm', dtype: 'q4' });
    expect(store.state.tools.list?.map((t) => t.schema.function.name)).toEqual(['get_weather']);

    await store.dispatch({ type: 'send', text: 'Weather in Chennai?' });
    const [user, answer] = store.state.conversation.turns;
    expect(user).toMatchObject({ role: 'user', text: 'Weather in Chennai?' });
    expect(answer).toMatchObject({ role: 'assistant', state: 'done', text: 'It is 31 °C.' });
    expect(answer && answerView(answer).activity).toEqual([
      expect.objectContaining({ kind: 'call', name: 'get_weather', arguments: { city: 'Chennai' }, status: 'ok', source: 'inline' }),
    ]);
    expect(answer && answerView(answer).metrics?.toolCalls).toBe(1);
    expect(answer && answerView(answer).diagnostics.some((d) => d.kind === 'raw')).toBe(true);
    // Its record is its steps (issue 43), saved with it.
    expect(answer?.steps?.[0]).toMatchObject({ kind: 'started', offered: ['get_weather'] });

    const saved = await persistence.loadConversation(store.state.conversation.id);
    expect(saved?.title).toBe('Weather in Chennai?');
    expect(saved && historyOf(saved.turns).map((m) => m.role)).toEqual(['user', 'assistant', 'tool', 'assistant']);
    expect(store.state.conversations).toHaveLength(1);
  });

  it('stops an answer: the partial text stays, marked stopped, and Send is back', async () => {
    const { store } = storeWith([
      { when: when.userAsked('Tell me a story'), output: 'Once upon a time there was a very long story that goes on and on and on.' },
    ]);
    await store.dispatch({ type: 'loadModel', source: { hub: 'x/y' } });
    let stopped = false;
    const off = store.subscribe((state) => {
      const text = state.conversation.turns.at(-1)?.text ?? '';
      if (!stopped && text.length > 10) {
        stopped = true;
        store.dispatch({ type: 'stop' });
      }
    });
    await store.dispatch({ type: 'send', text: 'Tell me a story' });
    off();
    const answer = store.state.conversation.turns.at(-1);
    expect(answer?.state).toBe('stopped');
    expect(answer?.text.length).toBeGreaterThan(0);
    expect(store.state.busy).toBe(false);
  });

  it('regenerates the last answer from the history before it', async () => {
    const { store } = storeWith([
      { when: when.userAsked('Weather in Chennai?'), output: CALL, repeat: true },
      { when: when.afterResults(), output: 'First.' },
      { when: when.afterResults(), output: 'Second.' },
    ]);
    await store.dispatch({ type: 'loadModel', source: { hub: 'x/y' } });
    await store.dispatch({ type: 'send', text: 'Weather in Chennai?' });
    await store.dispatch({ type: 'regenerate' });
    const turns = store.state.conversation.turns;
    expect(turns.map((t) => t.text)).toEqual(['Weather in Chennai?', 'Second.']);
    // At greedy settings it samples anew (issue 44), and the answer's first step records it; the first answer was greedy.
    const first = store.state.conversation.versions?.[0]?.others[0]?.turns[1];
    expect(first?.steps?.[0]).not.toHaveProperty('settings.sampling');
    expect(turns[1]?.steps?.[0]).toMatchObject({ kind: 'started', settings: { sampling: { temperature: 0.7 } } });
    expect(turns[1]?.sampled).toBe(0.7);
  });

  it('keeps the answer Regenerate replaced as a version to go back to, and the model continues from the one shown (issue 30, P3)', async () => {
    const { store, persistence } = storeWith([
      { when: when.userAsked('Weather in Chennai?'), output: CALL, repeat: true },
      { when: when.afterResults(), output: 'First.' },
      { when: when.afterResults(), output: 'Second.' },
      // What the model remembers decides its next answer: which version it continues.
      { when: when.userAskedRemembering('And tomorrow?', { remembered: 'First.', forgotten: 'Second.' }), output: 'Same.', repeat: true },
      { when: when.userAsked('And tomorrow?'), output: 'Wrong memory.', repeat: true },
    ]);
    await store.dispatch({ type: 'loadModel', source: { hub: 'x/y' } });
    await store.dispatch({ type: 'send', text: 'Weather in Chennai?' });
    await store.dispatch({ type: 'regenerate' });
    const texts = () => store.state.conversation.turns.map((t) => t.text);
    expect(texts()).toEqual(['Weather in Chennai?', 'Second.']);
    expect(versionPlace(store.state.conversation, 0)).toEqual({ index: 1, count: 2 });
    store.dispatch({ type: 'showVersion', at: 0, index: 0 });
    expect(texts()).toEqual(['Weather in Chennai?', 'First.']);
    expect(versionPlace(store.state.conversation, 0)).toEqual({ index: 0, count: 2 });
    await store.dispatch({ type: 'send', text: 'And tomorrow?' });
    expect(texts()).toEqual(['Weather in Chennai?', 'First.', 'And tomorrow?', 'Same.']);
    // Going to the other version and back brings the later exchange back with it.
    store.dispatch({ type: 'showVersion', at: 0, index: 1 });
    expect(texts()).toEqual(['Weather in Chennai?', 'Second.']);
    store.dispatch({ type: 'showVersion', at: 0, index: 0 });
    expect(texts()).toEqual(['Weather in Chennai?', 'First.', 'And tomorrow?', 'Same.']);
    await store.saveNow();
    const saved = await persistence.loadConversation(store.state.conversation.id);
    expect(saved && versionPlace(saved, 0)).toEqual({ index: 0, count: 2 });
  });

  it('issue 43: the model reads the conversation its turns show — a conversation the last page stored continues, and Regenerate resends an attachment as it was fenced', async () => {
    const stored = JSON.parse(readFileSync(new URL('../conversation/__fixtures__/stored-before-steps-history.json', import.meta.url), 'utf8')) as {
      id: string;
    };
    const { store, persistence } = storeWith([
      { when: when.gate(), output: 'No', repeat: true },
      { when: when.userAskedRemembering('And bread?', { remembered: 'Buy milk, it says.', forgotten: 'It says to buy milk.' }), output: 'No bread.' },
      { when: when.promptContains('Say it again.'), output: 'Milk.' },
      { when: when.promptContains('Say it again.'), output: 'Milk, again.' },
    ]);
    await persistence.saveConversation(stored as never);
    await store.dispatch({ type: 'loadModel', source: { hub: 'x/y' } });
    await store.dispatch({ type: 'selectConversation', id: stored.id });
    await store.dispatch({ type: 'send', text: 'And bread?' });
    expect(store.state.conversation.turns.at(-1)).toMatchObject({ text: 'No bread.', state: 'done' });
    // An attachment sent with a message is fenced once; answering it again sends the same message.
    store.dispatch({ type: 'attach', name: 'note', from: 'MCP server notes', text: 'Milk.' });
    await store.dispatch({ type: 'send', text: 'Say it again.' });
    const sent = historyOf(store.state.conversation.turns).at(-2)?.content;
    await store.dispatch({ type: 'regenerate' });
    expect(store.state.conversation.turns.at(-1)?.text).toBe('Milk, again.');
    expect(sent).toMatch(/<<<ATTACHMENT-\w+\n\[file: note \(from MCP server notes\)\]\nMilk\.\nATTACHMENT-\w+>>>$/);
    expect(historyOf(store.state.conversation.turns).at(-2)?.content).toBe(sent);
  });

  it('issue 44: while the model writes, other conversations open and new ones start; the answer goes on in its own, and the model then continues the one open', async () => {
    let release: () => void = () => undefined;
    const held = new Promise<void>((resolve) => {
      release = resolve;
    });
    /** A model that holds its answer to the essay until released: the user moves on meanwhile. */
    class HeldEngine extends DelegatingEngine {
      override async generate(prompt: string, options: GenerateOptions): Promise<GenerateResult> {
        if (prompt.includes('Write an essay.') && !prompt.includes('Rain, at length.')) {
          options.onText?.('Rain, ');
          await held;
        }
        return this.inner.generate(prompt, options);
      }
    }
    const persistence = memoryPersistence();
    const engine = new ScriptedEngine(
      [
        { when: when.gate(), output: 'No', repeat: true },
        { when: when.userAsked('Write an essay.'), output: 'Rain, at length.' },
        { when: when.userAsked('Hello?'), output: 'Hi.' },
        { when: when.userAskedRemembering('And you?', { remembered: 'Hi.', forgotten: 'essay' }), output: 'Fine.' },
      ],
      { model: 'scripted', device: 'wasm', dtype: 'q4' },
    );
    const opener = openerWith(async () => ({
      chat: NexusChat.withEngine(new HeldEngine(engine)),
      verdict: { ok: true, needed_forcing: false, detail: 'ok', dtype: 'q4', device: 'wasm', checkedAt: '2026-01-01T00:00:00Z', remembered: false },
    }));
    const store = new AppStore({ persistence, opener, toolsUrl: TOOLS, origin: 'http://localhost', research: noResearch });
    await store.dispatch({ type: 'loadModel', source: { url: 'http://localhost/models/x' } });
    await store.dispatch({ type: 'send', text: 'Hello?' });
    const first = store.state.conversation.id;
    await store.dispatch({ type: 'newConversation' });
    const answering = store.dispatch({ type: 'send', text: 'Write an essay.' });
    await vi.waitFor(() => expect(store.state.conversation.turns.at(-1)?.text).toMatch(/^Rain,/));
    const essay = store.state.conversation.id;
    expect(store.state).toMatchObject({ busy: true, answeringIn: essay });
    // The list is open to the user: the first conversation opens, and it can be deleted… but not the one being written.
    await store.dispatch({ type: 'selectConversation', id: first });
    expect(store.state.conversation.id).toBe(first);
    expect(store.state.conversation.turns.map((t) => t.text)).toEqual(['Hello?', 'Hi.']);
    await store.dispatch({ type: 'deleteConversation', id: essay });
    expect(store.state.conversations.map((c) => c.id)).toContain(essay);
    release();
    await answering;
    expect(store.state).toMatchObject({ busy: false, answeringIn: undefined });
    expect(store.state.conversation.id).toBe(first);
    const written = await persistence.loadConversation(essay);
    expect(written?.turns.map((t) => [t.text, t.state])).toEqual([
      ['Write an essay.', 'done'],
      ['Rain, at length.', 'done'],
    ]);
    // The model continues the conversation open now, not the one it just wrote in.
    await store.dispatch({ type: 'send', text: 'And you?' });
    expect(store.state.conversation.turns.at(-1)?.text).toBe('Fine.');
    // Going back to the essay shows it as written.
    await store.dispatch({ type: 'selectConversation', id: essay });
    expect(store.state.conversation.turns.at(-1)).toMatchObject({ text: 'Rain, at length.', state: 'done' });
  });

  it('issue 44: Continue after Stop — the model goes on from where it stopped, in the same answer, and remembers it whole', async () => {
    let store: AppStore | undefined;
    /** A model whose first essay streams two words, then waits for Stop. */
    class StopsMidway extends DelegatingEngine {
      private first = true;
      override async generate(prompt: string, options: GenerateOptions): Promise<GenerateResult> {
        if (this.first && prompt.endsWith(when.userAsked('Write about rain.') as string)) {
          this.first = false;
          options.onText?.('Rain ');
          options.onText?.('is');
          void store?.dispatch({ type: 'stop' });
          if (!options.signal?.aborted) await new Promise((resolve) => options.signal?.addEventListener('abort', resolve, { once: true }));
          throw abortError(options.signal);
        }
        return this.inner.generate(prompt, options);
      }
    }
    const persistence = memoryPersistence();
    const engine = new ScriptedEngine([
      { when: when.gate(), output: 'No', repeat: true },
      { when: (prompt) => prompt.endsWith('Rain is'), output: ' water that falls from clouds.' },
      { when: when.userAskedRemembering('Why?', { remembered: 'Rain is water that falls from clouds.', forgotten: 'xyz' }), output: 'Clouds.' },
    ]);
    const opener = openerWith(async () => ({
      chat: NexusChat.withEngine(new StopsMidway(engine)),
      verdict: { ok: true, needed_forcing: false, detail: 'ok', dtype: 'q4', device: 'wasm', checkedAt: '2026-01-01T00:00:00Z', remembered: false },
    }));
    store = new AppStore({ persistence, opener, toolsUrl: TOOLS, origin: 'http://localhost', research: noResearch });
    await store.dispatch({ type: 'loadModel', source: { url: 'http://localhost/models/x' } });
    await store.dispatch({ type: 'send', text: 'Write about rain.' });
    expect(store.state.conversation.turns.at(-1)).toMatchObject({ state: 'stopped', text: 'Rain is' });
    await store.dispatch({ type: 'continueAnswer' });
    const turns = store.state.conversation.turns;
    expect(turns).toHaveLength(2);
    expect(turns[1]).toMatchObject({ state: 'done', text: 'Rain is water that falls from clouds.' });
    expect(turns[1]?.drafts ?? []).toEqual([]);
    expect(historyOf(turns).at(-1)).toEqual({ role: 'assistant', content: 'Rain is water that falls from clouds.' });
    // Nothing to continue now: it is done.
    await store.dispatch({ type: 'continueAnswer' });
    expect(store.state.conversation.turns).toHaveLength(2);
    await store.dispatch({ type: 'send', text: 'Why?' });
    expect(store.state.conversation.turns.at(-1)?.text).toBe('Clouds.');
  });

  it('edits an earlier message, not only the last, keeping what followed it as a version (issue 30, P3)', async () => {
    const { store } = storeWith([
      { when: when.userAsked('Tell me about rain.'), output: 'Rain falls.', repeat: true },
      { when: when.userAsked('And snow?'), output: 'Snow is frozen.', repeat: true },
      { when: when.userAsked('Tell me about hail.'), output: 'Hail is ice.', repeat: true },
      { when: when.gate(), output: 'No', repeat: true },
      { when: when.userAskedRemembering('Why?', { remembered: 'Snow is frozen.', forgotten: 'hail' }), output: 'Cold.', repeat: true },
      { when: when.userAsked('Why?'), output: 'Wrong memory.', repeat: true },
    ]);
    await store.dispatch({ type: 'loadModel', source: { hub: 'x/y' } });
    await store.dispatch({ type: 'send', text: 'Tell me about rain.' });
    await store.dispatch({ type: 'send', text: 'And snow?' });
    const first = store.state.conversation.turns[0];
    await store.dispatch({ type: 'edit', id: first?.id ?? '', text: 'Tell me about hail.' });
    const texts = () => store.state.conversation.turns.map((t) => t.text);
    expect(texts()).toEqual(['Tell me about hail.', 'Hail is ice.']);
    store.dispatch({ type: 'showVersion', at: 0, index: 0 });
    expect(texts()).toEqual(['Tell me about rain.', 'Rain falls.', 'And snow?', 'Snow is frozen.']);
    // An empty edit or an unknown message changes nothing.
    await store.dispatch({ type: 'edit', id: first?.id ?? '', text: '   ' });
    await store.dispatch({ type: 'edit', id: 'no-such-turn', text: 'x' });
    expect(texts()).toEqual(['Tell me about rain.', 'Rain falls.', 'And snow?', 'Snow is frozen.']);
    await store.dispatch({ type: 'send', text: 'Why?' });
    expect(texts().at(-1)).toBe('Cold.');
  });

  it('in research mode asks the research session, and shows its sources and web lines from its steps', async () => {
    const research: Research = {
      status: async () => ({ available: true, backend: 'searxng', detail: 'Searching the web.' }),
      ask: async (_prompt, _options) => {
        // The answer is its steps: the web search's line comes from its call's details.
        const record = {
          id: 'call_1',
          name: 'web_search',
          arguments: { query: 'q' },
          source: 'inline' as const,
          round: 1,
          status: 'ok' as const,
          result: 'r',
          ms: 1,
        };
        return {
          text: 'Answer [1].',
          calls: [],
          metrics: undefined as never,
          steps: [
            { kind: 'round', round: 1, phase: 'tools' },
            {
              kind: 'call',
              round: 1,
              // The sources a web call brought are its details too: the answer's sources are a view of its steps (issue 55).
              record: {
                ...record,
                details: { web: { kind: 'search', queries: ['q'], ok: true, results: 3 }, sources: [{ n: 1, url: 'https://example.org', title: 'Example' }] },
              },
            },
            { kind: 'finished', ms: 1, text: 'Answer [1].' },
          ],
          totalUsage: { promptTokens: 0, cachedTokens: 0, newTokens: 0 },
          sources: [{ n: 1, url: 'https://example.org', title: 'Example' }],
        };
      },
    };
    const { store } = storeWith([], research);
    await store.dispatch({ type: 'loadModel', source: { hub: 'x/y' } });
    store.dispatch({ type: 'setWeb', enabled: true });
    await store.dispatch({ type: 'send', text: 'Look it up' });
    const answer = store.state.conversation.turns.at(-1);
    expect(answer).toMatchObject({ web: true, text: 'Answer [1].' });
    expect(answer).not.toHaveProperty('sources');
    expect(answer && answerView(answer).sources).toEqual([{ n: 1, url: 'https://example.org', title: 'Example' }]);
    expect(answer && answerView(answer).activity).toEqual([
      { kind: 'search', queries: ['q'], ok: true, results: 3, source: 'inline', call: expect.objectContaining({ result: 'r' }) },
    ]);
  });

  it('restores settings and resets them to the defaults', async () => {
    const { store, persistence } = storeWith([]);
    store.dispatch({ type: 'updateSettings', change: { maxRounds: 7, enableThinking: true } });
    expect((await persistence.loadSettings()).maxRounds).toBe(7);
    store.dispatch({ type: 'resetSettings' });
    expect(store.state.settings).toMatchObject({ maxRounds: 4, enableThinking: false, strategy: 'auto', toolChoice: 'auto' });
  });
});

describe('repairInterrupted', () => {
  it('keeps the question and the visible text of an answer cut off by a closed tab, as chat() does on abort', () => {
    const conversation: Conversation = {
      ...emptyConversation('c'),
      turns: [
        { id: 'u1', role: 'user', text: 'Hi', state: 'done' },
        { id: 'a1', role: 'assistant', text: 'Hello!', state: 'done', steps: [{ kind: 'finished', ms: 5, text: 'Hello!' }] },
        { id: 'u2', role: 'user', text: 'Tell me more', state: 'done' },
        { id: 'a2', role: 'assistant', text: 'Well, ', state: 'streaming', steps: [] },
      ],
    };
    const repaired = repairInterrupted(conversation);
    expect(repaired.turns.at(-1)).toMatchObject({ state: 'stopped', text: 'Well, ', note: expect.stringContaining('Interrupted') });
    expect(historyOf(repaired.turns).slice(2)).toEqual([
      { role: 'user', content: 'Tell me more' },
      { role: 'assistant', content: 'Well,' },
    ]);
    expect(repairInterrupted(repaired)).toBe(repaired);
  });
});
