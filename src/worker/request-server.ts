import { ModelLoadError } from '../engine/model-source.ts';
import type { AnswerBridge, AnswerRequest, AnswerRunner } from '../loop/answer-runner.ts';
import type { PrepareStepResult } from '../loop/prepare-step.ts';
import type { ToolRunOutcome } from '../loop/toolbox.ts';
import { reviveError, serializeError, type SerializedError } from '../shared/errors.ts';
import type { FromWorker, PageQuestion, ToWorker, WorkerCall } from './protocol.ts';

/** The page's reply to a question of a request: a value, or the error its hook threw; `ended` says why none came (the request ended first). */
interface PageReply {
  value?: unknown;
  error?: SerializedError;
  ended?: string;
}

/** What the request server needs of its worker: a way to the page, and the model runner once one is loaded. */
export interface RequestServerHost {
  post(message: FromWorker): void;
  runner(): AnswerRunner | undefined;
}

/**
 * The worker's half of the one request layer (the page's is `worker-client.ts`): every request the page
 * sends — an answer, a closed choice, embeddings — is served here, stopped by an `abort` with its id, its
 * questions to the page (a tool run, the answer-now prompt, a round's plan) answered by `reply`, and ended
 * by exactly one `done`.
 */
export class RequestServer {
  /** Requests being served, by the page's id: how to stop each, and its questions waiting for the page. */
  private readonly serving = new Map<number, { controller: AbortController; asks: Map<number, (reply: PageReply) => void> }>();
  private nextAskId = 0;

  constructor(private readonly host: RequestServerHost) {}

  /** Takes one message of the request layer (`request`, `reply`, `abort`). */
  receive(message: Extract<ToWorker, { kind: 'request' | 'reply' | 'abort' }>): void {
    if (message.kind === 'request') void this.serve(message.id, message.call);
    else if (message.kind === 'reply') this.handleReply(message);
    else this.handleAbort(message.id);
  }

  private handleReply(message: Extract<ToWorker, { kind: 'reply' }>): void {
    const asks = this.serving.get(message.id)?.asks;
    const resolve = asks?.get(message.requestId);
    asks?.delete(message.requestId);
    resolve?.({ value: message.value, ...(message.error ? { error: message.error } : {}) });
  }

  private handleAbort(id: number): void {
    this.serving.get(id)?.controller.abort();
    // A stopped answer does not wait for the page's pending tool results.
    this.endAsks(id, 'Stopped.');
  }

  /** Asks the page a question of request `id` and waits for its one reply (a stop or the request's end replies with `ended`). */
  private ask(id: number, question: PageQuestion): Promise<PageReply> {
    const request = this.serving.get(id);
    if (!request) return Promise.resolve({ ended: 'The request had ended.' });
    return new Promise<PageReply>((resolve) => {
      const requestId = this.nextAskId++;
      request.asks.set(requestId, resolve);
      this.host.post({ kind: 'ask', id, requestId, question });
    });
  }

  /** Replies `ended` to every question of request `id` still waiting. */
  private endAsks(id: number, why: string): void {
    const asks = this.serving.get(id)?.asks;
    for (const resolve of asks?.values() ?? []) resolve({ ended: why });
    asks?.clear();
  }

  /** Serves one request of the page, start to end: exactly one `done` ends it, with its value or its error. */
  private async serve(id: number, call: WorkerCall): Promise<void> {
    const controller = new AbortController();
    this.serving.set(id, { controller, asks: new Map() });
    try {
      const runner = this.host.runner();
      if (!runner) throw new ModelLoadError('No model is loaded in this worker.');
      const value = await this.perform(runner, id, call, controller.signal);
      this.host.post({ kind: 'done', id, ...(value === undefined ? {} : { value }) });
    } catch (error) {
      // Whatever went wrong, the page hears of it: a request never stays pending.
      this.host.post({ kind: 'done', id, error: serializeError(error) });
    } finally {
      this.endAsks(id, 'The answer ended before the tool result came back.');
      this.serving.delete(id);
    }
  }

  /** What one request does with the model: an answer (its steps stream as it runs), a closed choice, embeddings. */
  private async perform(r: AnswerRunner, id: number, call: WorkerCall, signal: AbortSignal): Promise<unknown> {
    switch (call.method) {
      case 'chat': {
        const outcome = await r.run(call.request, this.answerBridge(id, call.request, signal));
        // A finished answer was its steps; a failure is the request's error.
        if (!outcome.ok) throw outcome.error;
        return undefined;
      }
      case 'choose':
        if (!r.choose) throw new Error('This worker cannot make a closed choice.');
        return r.choose(call.request, signal);
      case 'embed':
        if (!r.embed) throw new Error('This worker cannot run an embedding model.');
        return r.embed(call.request, (event) => this.host.post({ kind: 'embed-progress', id, event }));
    }
  }

  /** An answer's bridge in the worker: its steps and text go to the page, and its tools and hooks are questions to the page. */
  private answerBridge(id: number, request: AnswerRequest, signal: AbortSignal): AnswerBridge {
    return {
      signal,
      onStep: (step) => this.host.post({ kind: 'step', id, step }),
      onToken: (text) => this.host.post({ kind: 'token', id, text }),
      onReasoning: (text) => this.host.post({ kind: 'reasoning', id, text }),
      runTool: async (name, args, limits) => {
        const reply = await this.ask(id, {
          kind: 'run-tool',
          name,
          arguments: args,
          ...(limits?.maxResultChars ? { maxResultChars: limits.maxResultChars } : {}),
        });
        if (reply.ended !== undefined) return { ok: false, kind: 'error', message: reply.ended };
        if (!isOutcome(reply.value)) return { ok: false, kind: 'error', message: `The page sent no result for ${name}.` };
        return reply.value;
      },
      ...(request.asksAnswerNow
        ? {
            answerNowPrompt: async () => {
              const { value } = await this.ask(id, { kind: 'answer-now' });
              return typeof value === 'string' ? value : undefined;
            },
          }
        : {}),
      ...(request.asksPrepareStep
        ? {
            prepareStep: async (round: number) => {
              const reply = await this.ask(id, { kind: 'prepare-step', round });
              // The page's hook threw: the answer fails with its error, as it would in-process.
              if (reply.error) throw reviveError(reply.error);
              return reply.value as PrepareStepResult | undefined;
            },
          }
        : {}),
    };
  }
}

/** Whether the page's reply is a tool outcome (`{ ok: … }`), as the page sends one for every tool it runs. */
function isOutcome(value: unknown): value is ToolRunOutcome {
  return typeof value === 'object' && value !== null && typeof (value as { ok?: unknown }).ok === 'boolean';
}
