import { describe, expect, it, vi } from 'vitest';
import { ScriptedEngine, type ScriptedOutput } from '../engine/scripted-engine.ts';
import { engineRunner, type AnswerRunner, type ChoiceRequest } from '../loop/answer-runner.ts';
import { qwen3 } from '../loop/__fixtures__/qwen3-outputs.ts';
import { NexusChat } from '../nexus/index.ts';
import { abortError } from '../shared/abort.ts';
import { when } from '../testing/script-matchers.ts';
import type { FromWorker, ToWorker } from './protocol.ts';
import { RequestServer } from './request-server.ts';
import { startWorkerRunner } from './worker-client.ts';

/**
 * The two halves of the request layer joined in one process: the page's `WorkerRunner` and the worker's
 * `RequestServer`, every message structured-cloned as a worker's port clones it. Only the port is a stand-in
 * (a real one needs a browser); both sides are the shipped code, and the loop runs on the scripted engine.
 */
class InProcessWorker extends EventTarget {
  readonly sent: ToWorker[] = [];
  private readonly server: RequestServer;

  constructor(private readonly runner: AnswerRunner) {
    super();
    this.server = new RequestServer({ post: (message) => this.deliver(message), runner: () => runner });
  }

  postMessage(message: ToWorker): void {
    const copy = structuredClone(message);
    this.sent.push(copy);
    queueMicrotask(() => {
      if (copy.kind === 'load') this.deliver({ kind: 'loaded', info: this.runner.info, candidate: { device: 'wasm', dtype: 'q4' } });
      else if (copy.kind === 'dispose') this.deliver({ kind: 'disposed' });
      else this.server.receive(copy);
    });
  }

  terminate(): void {}

  private deliver(message: FromWorker): void {
    const copy = structuredClone(message);
    queueMicrotask(() => this.dispatchEvent(new MessageEvent('message', { data: copy })));
  }
}

async function chatOver(runner: AnswerRunner): Promise<{ chat: NexusChat; worker: InProcessWorker }> {
  const worker = new InProcessWorker(runner);
  const page = await startWorkerRunner({ url: '/models/x' }, { createWorker: () => worker as unknown as Worker });
  return { chat: NexusChat.withRunner(page), worker };
}

const scripted = (script: ScriptedOutput[]) => engineRunner(new ScriptedEngine(script));

describe('one request layer over the worker port (issue 55)', () => {
  it('runs a whole answer across both halves: the tool runs on the page, its steps and text come back, one done ends it', async () => {
    const { chat, worker } = await chatOver(
      scripted([
        { when: when.userAsked('Weather in Chennai?'), output: qwen3.callWeatherChennai },
        { when: when.afterResults(), output: qwen3.answerChennai },
      ]),
    );
    const ran: string[] = [];
    chat.tool('get_weather', 'Weather for a city', { city: 'string' }, ({ city }) => {
      ran.push(city);
      return { city, temperature_c: 31.2, conditions: 'partly cloudy' };
    });
    const answer = await chat.chat('Weather in Chennai?');
    expect(ran).toEqual(['Chennai']);
    expect(answer.text).toBe(qwen3.answerChennai);
    expect(answer.calls).toMatchObject([{ name: 'get_weather', status: 'ok' }]);
    // The tool was a question of the request, and its result the page's reply.
    expect(worker.sent.map((m) => m.kind)).toEqual(['load', 'request', 'reply']);
    expect(worker.sent[2]).toMatchObject({ kind: 'reply', value: { ok: true } });
  });

  it("carries a tool's value as the structured clone does, not as JSON would (a Date stays a Date)", async () => {
    const { chat } = await chatOver(
      scripted([
        { when: when.userAsked('Weather in Chennai?'), output: qwen3.callWeatherChennai },
        { when: when.afterResults(), output: qwen3.answerChennai },
      ]),
    );
    chat.tool('get_weather', 'Weather for a city', { city: 'string' }, ({ city }) => ({ city, at: new Date(0) }));
    const answer = await chat.chat('Weather in Chennai?');
    expect(answer.calls[0]?.value).toEqual({ city: 'Chennai', at: new Date(0) });
  });

  it('a stop reaches a tool the page is still running: the worker stops waiting, and the answer ends stopped', async () => {
    const { chat } = await chatOver(scripted([{ when: when.userAsked('Weather in Chennai?'), output: qwen3.callWeatherChennai }]));
    const controller = new AbortController();
    chat.tool('get_weather', 'Weather for a city', { city: 'string' }, () => {
      controller.abort();
      return new Promise(() => undefined);
    });
    await expect(chat.chat('Weather in Chennai?', { signal: controller.signal })).rejects.toMatchObject({
      name: 'AbortError',
      messages: [{ role: 'user', content: 'Weather in Chennai?' }],
    });
  });

  it('a closed choice takes the same abort: the worker stops the choice it is making', async () => {
    let heard: AbortSignal | undefined;
    const runner: AnswerRunner = {
      ...scripted([]),
      choose: (_request: ChoiceRequest, signal?: AbortSignal) =>
        new Promise((_resolve, reject) => {
          heard = signal;
          signal?.addEventListener('abort', () => reject(abortError(signal)));
        }),
    };
    const worker = new InProcessWorker(runner);
    const page = await startWorkerRunner({ url: '/models/x' }, { createWorker: () => worker as unknown as Worker });
    const controller = new AbortController();
    const choice = page.choose?.({ messages: [], choices: ['a', 'b'] }, controller.signal);
    await vi.waitFor(() => expect(heard).toBeDefined());
    controller.abort();
    await expect(choice).rejects.toMatchObject({ name: 'AbortError' });
    await vi.waitFor(() => expect(heard?.aborted).toBe(true));
  });
});
