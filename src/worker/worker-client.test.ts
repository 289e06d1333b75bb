import { describe, expect, it, vi } from 'vitest';
import type { AnswerBridge, AnswerRequest } from '../loop/answer-runner.ts';
import type { FromWorker, ToWorker } from './protocol.ts';
import { ModelWorkerError, startWorkerRunner } from './worker-client.ts';

/**
 * A stand-in for the model worker that speaks the real protocol from a script: a real worker
 * needs a browser and a model, and these tests are about what the page does when the worker
 * misbehaves (throws, dies, posts garbage), which a real one cannot be made to do on cue.
 */
class ScriptedWorker extends EventTarget {
  readonly received: ToWorker[] = [];
  terminated = false;

  constructor(
    private readonly onChat: (worker: ScriptedWorker, message: Extract<ToWorker, { kind: 'request' }>) => void,
    private readonly onRequest?: (worker: ScriptedWorker, message: Extract<ToWorker, { kind: 'request' }>) => void,
  ) {
    super();
  }

  postMessage(message: ToWorker): void {
    if (this.terminated) throw new Error('terminated');
    this.received.push(message);
    queueMicrotask(() => {
      if (message.kind === 'load') this.reply({ kind: 'loaded', info: INFO, candidate: { device: 'wasm', dtype: 'q4' } });
      else if (message.kind === 'request' && message.call.method === 'chat') this.onChat(this, message);
      else if (message.kind === 'request') this.onRequest?.(this, message);
      else if (message.kind === 'dispose') this.reply({ kind: 'disposed' });
    });
  }

  reply(data: FromWorker | unknown): void {
    this.dispatchEvent(new MessageEvent('message', { data }));
  }

  crash(message: string): void {
    const event = new Event('error') as Event & { message: string };
    event.message = message;
    this.dispatchEvent(event);
  }

  terminate(): void {
    this.terminated = true;
  }
}

const INFO = { model: 'scripted', device: 'wasm', dtype: 'q4' } as never;
const REQUEST: AnswerRequest = {
  messages: [{ role: 'user', content: 'Weather in Paris?' }],
  settings: { maxRounds: 4, toolChoice: 'auto', strategy: 'auto', repetitionPenalty: 1.1 } as never,
  schemas: [],
  firstCallNumber: 0,
};

function bridge(over: Partial<AnswerBridge> = {}): AnswerBridge {
  return { runTool: async () => ({ ok: true, value: 'sunny' }), onStep: () => undefined, onToken: () => undefined, ...over };
}

async function runnerFor(onChat: ConstructorParameters<typeof ScriptedWorker>[0], onRequest?: ConstructorParameters<typeof ScriptedWorker>[1]) {
  const worker = new ScriptedWorker(onChat, onRequest);
  const runner = await startWorkerRunner({ url: '/models/x' }, { createWorker: () => worker as unknown as Worker });
  return { worker, runner };
}

/** An answer's last step and the end of its request. */
function answer(worker: ScriptedWorker, id: number): void {
  worker.reply({ kind: 'step', id, step: { kind: 'finished', ms: 1, text: 'ok' } });
  worker.reply({ kind: 'done', id } satisfies FromWorker);
}

describe('the worker bridge is total', () => {
  it('a tool handler that throws becomes an error result for the model, and the answer ends', async () => {
    const { worker, runner } = await runnerFor((w, m) =>
      w.reply({ kind: 'ask', id: m.id, requestId: 7, question: { kind: 'run-tool', name: 'get_weather', arguments: {} } }),
    );
    const outcome = runner.run(
      REQUEST,
      bridge({
        runTool: async () => {
          throw new Error('network down');
        },
      }),
    );
    await vi.waitFor(() => expect(worker.received.some((m) => m.kind === 'reply')).toBe(true));
    const result = worker.received.find((m) => m.kind === 'reply');
    expect(result).toMatchObject({ kind: 'reply', requestId: 7, value: { ok: false, kind: 'error', message: expect.stringContaining('network down') } });
    answer(worker, 0);
    await expect(outcome).resolves.toMatchObject({ ok: true });
  });

  it("passes on how much of a tool's result the model will read", async () => {
    const { worker, runner } = await runnerFor((w, m) =>
      w.reply({ kind: 'ask', id: m.id, requestId: 8, question: { kind: 'run-tool', name: 'read_page', arguments: {}, maxResultChars: 3100 } }),
    );
    let limits: unknown;
    const outcome = runner.run(
      REQUEST,
      bridge({
        runTool: async (_name, _args, given) => {
          limits = given;
          return { ok: true, value: 'page' };
        },
      }),
    );
    await vi.waitFor(() => expect(worker.received.some((m) => m.kind === 'reply')).toBe(true));
    expect(limits).toEqual({ maxResultChars: 3100 });
    answer(worker, 0);
    await expect(outcome).resolves.toMatchObject({ ok: true });
  });

  it('an answer-now prompt that throws still gets a reply', async () => {
    const { worker, runner } = await runnerFor((w, m) => w.reply({ kind: 'ask', id: m.id, requestId: 3, question: { kind: 'answer-now' } }));
    const outcome = runner.run(
      { ...REQUEST, asksAnswerNow: true },
      bridge({
        answerNowPrompt: async () => {
          throw new Error('boom');
        },
      }),
    );
    await vi.waitFor(() => expect(worker.received.some((m) => m.kind === 'reply')).toBe(true));
    expect(worker.received.find((m) => m.kind === 'reply')).toEqual({ kind: 'reply', id: 0, requestId: 3 });
    answer(worker, 0);
    await expect(outcome).resolves.toMatchObject({ ok: true });
  });

  it('a worker that dies mid-answer fails the answer with a named error, keeps the conversation, and later answers fail at once', async () => {
    const { worker, runner } = await runnerFor((w) => w.crash('RangeError: out of memory'));
    const outcome = await runner.run(REQUEST, bridge());
    expect(outcome.ok).toBe(false);
    if (outcome.ok) return;
    expect(outcome.error).toBeInstanceOf(ModelWorkerError);
    expect((outcome.error as Error).message).toMatch(/stopped with RangeError: out of memory.*Load the model again/);
    expect(worker.terminated).toBe(true);
    const later = await runner.run(REQUEST, bridge());
    expect(later).toMatchObject({ ok: false, error: expect.any(ModelWorkerError) });
  });

  it('a message that cannot be read fails the answer with a named error; the next answer runs', async () => {
    let chats = 0;
    const { worker, runner } = await runnerFor((w, m) => {
      chats++;
      if (chats === 1) w.dispatchEvent(new MessageEvent('messageerror'));
      else answer(w, m.id);
    });
    const first = await runner.run(REQUEST, bridge());
    expect(first).toMatchObject({
      ok: false,
      error: expect.objectContaining({ name: 'ModelWorkerError', message: expect.stringContaining('could not be read') }),
    });
    await expect(runner.run(REQUEST, bridge())).resolves.toMatchObject({ ok: true });
    expect(worker.terminated).toBe(false);
  });

  it('garbage from the worker fails the answer and says what came', async () => {
    let chats = 0;
    const { runner } = await runnerFor((w, m) => {
      chats++;
      if (chats === 1) w.reply({ kind: 'answer', id: m.id });
      else if (chats === 2) w.reply({ kind: 'step', id: m.id, step: 'finished' });
      else answer(w, m.id);
    });
    const first = await runner.run(REQUEST, bridge());
    expect(first).toMatchObject({
      ok: false,
      error: expect.objectContaining({ message: expect.stringMatching(/does not understand \(\{"kind":"answer","id":0\}\)/) }),
    });
    const second = await runner.run(REQUEST, bridge());
    expect(second).toMatchObject({ ok: false, error: expect.objectContaining({ message: expect.stringContaining('"step":"finished"') }) });
    await expect(runner.run(REQUEST, bridge())).resolves.toMatchObject({ ok: true });
  });

  it('dispose ends a running answer instead of leaving it pending', async () => {
    const { runner } = await runnerFor(() => undefined);
    const outcome = runner.run(REQUEST, bridge());
    await runner.dispose();
    await expect(outcome).resolves.toMatchObject({ ok: false, error: expect.objectContaining({ message: expect.stringContaining('unloaded') }) });
    await expect(runner.run(REQUEST, bridge())).resolves.toMatchObject({ ok: false });
  });

  it('a tool result the structured clone cannot carry becomes an error result naming the tool', async () => {
    const { worker, runner } = await runnerFor((w, m) =>
      w.reply({ kind: 'ask', id: m.id, requestId: 1, question: { kind: 'run-tool', name: 'make_fn', arguments: {} } }),
    );
    const outcome = runner.run(REQUEST, bridge({ runTool: async () => ({ ok: true, value: () => 1 }) }));
    await vi.waitFor(() => expect(worker.received.some((m) => m.kind === 'reply')).toBe(true));
    expect(worker.received.find((m) => m.kind === 'reply')).toMatchObject({ value: { ok: false, message: expect.stringContaining('make_fn') } });
    answer(worker, 0);
    await outcome;
  });
});

describe('stop conditions across the worker', () => {
  it('rules as data travel with the request', async () => {
    const { worker, runner } = await runnerFor((w, m) => answer(w, m.id));
    await runner.run({ ...REQUEST, stopRules: [{ kind: 'tool-called', name: 'web_search' }] }, bridge());
    const chat = worker.received.find((m) => m.kind === 'request');
    expect(chat?.kind === 'request' && chat.call.method === 'chat' && chat.call.request.stopRules).toEqual([{ kind: 'tool-called', name: 'web_search' }]);
  });

  it('conditions written as functions are refused with a named error, never silently dropped', async () => {
    const { worker, runner } = await runnerFor((w, m) => answer(w, m.id));
    const outcome = await runner.run(REQUEST, bridge({ stopWhen: [() => true] }));
    expect(outcome).toMatchObject({
      ok: false,
      error: expect.objectContaining({ name: 'ModelWorkerError', message: expect.stringContaining("kind: 'tool-called'") }),
    });
    expect(worker.received.some((m) => m.kind === 'request')).toBe(false);
  });
});

describe('an answer crosses the worker as its steps', () => {
  it('the answer is the fold of the steps that came, ended by its done; tokens stream between them', async () => {
    const record = { id: 'call_1', name: 'get_weather', arguments: { city: 'Paris' }, source: 'inline', round: 1, status: 'ok', result: 'sunny', ms: 2 };
    const { runner } = await runnerFor((w, m) => {
      w.reply({ kind: 'step', id: m.id, step: { kind: 'round', round: 1, phase: 'tools' } });
      w.reply({ kind: 'step', id: m.id, step: { kind: 'call', round: 1, record } });
      w.reply({ kind: 'step', id: m.id, step: { kind: 'turn', round: 1, text: '', callIds: ['call_1'], split: false } });
      w.reply({ kind: 'token', id: m.id, text: 'Sunny ' });
      w.reply({ kind: 'token', id: m.id, text: 'in Paris.' });
      w.reply({ kind: 'step', id: m.id, step: { kind: 'finished', ms: 5, text: 'Sunny in Paris.' } });
      w.reply({ kind: 'done', id: m.id });
    });
    const steps: string[] = [];
    const tokens: string[] = [];
    const outcome = await runner.run(REQUEST, bridge({ onStep: (s) => steps.push(s.kind), onToken: (t) => tokens.push(t) }));
    expect(steps).toEqual(['round', 'call', 'turn', 'finished']);
    expect(tokens.join('')).toBe('Sunny in Paris.');
    expect(outcome).toMatchObject({
      ok: true,
      answer: { text: 'Sunny in Paris.', calls: [{ name: 'get_weather', result: 'sunny' }], metrics: { toolCalls: 1 } },
    });
  });

  it('prepareStep is asked across the worker: its value is the reply, and an error it throws goes back as that error', async () => {
    const { worker, runner } = await runnerFor((w, m) => {
      w.reply({ kind: 'ask', id: m.id, requestId: 1, question: { kind: 'prepare-step', round: 1 } });
      w.reply({ kind: 'ask', id: m.id, requestId: 2, question: { kind: 'prepare-step', round: 2 } });
    });
    const outcome = runner.run(
      { ...REQUEST, asksPrepareStep: true },
      bridge({
        prepareStep: async (round) => {
          if (round === 2) throw new RangeError('no second round');
          return { activeTools: ['get_weather'], toolChoice: 'required', extra: () => 1 } as never;
        },
      }),
    );
    await vi.waitFor(() => expect(worker.received.some((m) => m.kind === 'reply')).toBe(true));
    const replies = worker.received.filter((m) => m.kind === 'reply');
    expect(replies[0]).toEqual({ kind: 'reply', id: 0, requestId: 1, value: { activeTools: ['get_weather'], toolChoice: 'required' } });
    expect(replies[1]).toMatchObject({ kind: 'reply', id: 0, requestId: 2, error: { name: 'RangeError', message: 'no second round' } });
    answer(worker, 0);
    await expect(outcome).resolves.toMatchObject({ ok: true });
  });
});

describe('one request layer serves every side request (issue 55)', () => {
  it('a closed choice is stopped through the same abort as an answer: the page stops waiting and the worker hears it', async () => {
    const { worker, runner } = await runnerFor(
      () => undefined,
      () => undefined,
    );
    const controller = new AbortController();
    const choice = runner.choose?.({ prompt: 'p', options: ['a', 'b'] } as never, controller.signal);
    await vi.waitFor(() => expect(worker.received.some((m) => m.kind === 'request')).toBe(true));
    controller.abort();
    await expect(choice).rejects.toMatchObject({ name: 'AbortError' });
    const request = worker.received.find((m) => m.kind === 'request');
    expect(worker.received).toContainEqual({ kind: 'abort', id: request?.kind === 'request' ? request.id : -1 });
  });

  it("embeddings report progress and end with their done's value; a failed request ends with its error, named", async () => {
    let calls = 0;
    const { runner } = await runnerFor(
      () => undefined,
      (w, m) => {
        calls++;
        if (calls === 1) {
          w.reply({ kind: 'embed-progress', id: m.id, event: { status: 'loading' } as never });
          w.reply({ kind: 'done', id: m.id, value: { vectors: [[1, 0]] } });
        } else w.reply({ kind: 'done', id: m.id, error: { name: 'RangeError', message: 'too long' } });
      },
    );
    const progress: unknown[] = [];
    await expect(runner.embed?.({ texts: ['x'] } as never, (event) => progress.push(event))).resolves.toEqual({ vectors: [[1, 0]] });
    expect(progress).toEqual([{ status: 'loading' }]);
    await expect(runner.embed?.({ texts: ['y'] } as never)).rejects.toMatchObject({ name: 'RangeError', message: 'too long' });
  });

  it("an answer's failure is its request's error", async () => {
    const { runner } = await runnerFor((w, m) => w.reply({ kind: 'done', id: m.id, error: { name: 'ContextOverflowError', message: 'too big' } }));
    await expect(runner.run(REQUEST, bridge())).resolves.toMatchObject({ ok: false, error: expect.objectContaining({ message: 'too big' }) });
  });
});
