/**
 * Work on outside input (a file's text, an HTML page, a document index) run off the page's main thread, in a
 * worker of its own, under a deadline and a size cap by construction: the input is measured before it is sent,
 * and a worker still busy at the deadline is ended (the only way to stop a parser that does not yield), its
 * state lost, and the next job starts a fresh one. A hostile input then costs one refusal, never a frozen tab.
 */
import { NexusError, registerErrorClass, reviveError, serializeError, type SerializedError } from './errors.ts';

/** What bounds one kind of work. */
export interface WorkBounds<Input = unknown> {
  /** What the work is, in words for an error message ("reading an HTML file"). */
  readonly what: string;
  /** How long the worker may compute on one job (time it waits on the page's `host` calls is not counted). */
  readonly deadlineMs: number;
  /** Characters of input one job may carry at most. */
  readonly maxInputChars: number;
  /** The characters of an input, as `maxInputChars` counts them. */
  readonly charsOf: (input: Input) => number;
}

/** Work that passed one of its bounds: the input was too large, or the worker ran past its deadline and was ended. */
export class WorkLimitError extends NexusError {
  override readonly name = 'WorkLimitError';
  /**
   * @param limit - which bound: `'size'` (refused before it ran) or `'time'` (stopped).
   * @param message - what was stopped and the bound, in words.
   */
  constructor(
    readonly limit: 'size' | 'time',
    message: string,
  ) {
    super(message);
  }
}
registerErrorClass(WorkLimitError, 'WorkLimitError');

/** The handlers a worker serves: each kind's work, given its input and a way to ask the page for what only it has. */
export type WorkHandlers = Record<string, (input: never, host: HostCaller) => unknown>;

/** Calls a function the page lends the worker (an embedder that lives in another worker, say). */
export type HostCaller = (name: string, ...args: unknown[]) => Promise<unknown>;

/** What a bounded worker needs of a `Worker` (a Web Worker has it; so does an in-thread channel, see {@link inThreadWorker}). */
export interface WorkPort {
  postMessage(message: unknown): void;
  addEventListener(type: 'message' | 'error' | 'messageerror', listener: (event: { data?: unknown; message?: string }) => void): void;
  terminate(): void;
}

/** The side of the worker that answers (a worker's `self`, or a `MessagePort`). */
export interface WorkScope {
  postMessage(message: unknown): void;
  addEventListener(type: 'message', listener: (event: { data: unknown }) => void): void;
}

type ToWorker =
  | { type: 'run'; id: number; kind: string; input: unknown }
  | { type: 'host-result'; id: number; ok: true; value: unknown }
  | { type: 'host-result'; id: number; ok: false; error: SerializedError };
type FromWorker =
  | { type: 'done'; id: number; ok: true; value: unknown }
  | { type: 'done'; id: number; ok: false; error: SerializedError }
  | { type: 'host-call'; id: number; name: string; args: unknown[] };

/**
 * The worker's side: answers each job with its handler's result (or its error, by name and message), and lends
 * the handlers the page's `host` functions.
 */
export function serveBoundedWork(scope: WorkScope, handlers: WorkHandlers): void {
  let nextCall = 0;
  const waiting = new Map<number, { resolve(value: unknown): void; reject(error: Error): void }>();
  const host: HostCaller = (name, ...args) =>
    new Promise((resolve, reject) => {
      const id = nextCall++;
      waiting.set(id, { resolve, reject });
      scope.postMessage({ type: 'host-call', id, name, args } satisfies FromWorker);
    });
  scope.addEventListener('message', (event) => {
    const message = event.data as ToWorker;
    if (message.type === 'host-result') {
      const call = waiting.get(message.id);
      waiting.delete(message.id);
      if (message.ok) call?.resolve(message.value);
      else call?.reject(reviveError(message.error));
      return;
    }
    const handler = handlers[message.kind];
    const answer = (reply: FromWorker) => scope.postMessage(reply);
    Promise.resolve()
      .then(() => {
        if (!handler) throw new Error(`No work named ${message.kind}. Known: ${Object.keys(handlers).join(', ')}.`);
        return handler(message.input as never, host);
      })
      .then(
        (value) => answer({ type: 'done', id: message.id, ok: true, value }),
        (error: unknown) => answer({ type: 'done', id: message.id, ok: false, error: serializeError(error) }),
      );
  });
}

/** A job waiting for, or running in, the worker. */
interface Job {
  id: number;
  kind: string;
  input: unknown;
  resolve(value: unknown): void;
  reject(error: Error): void;
}

/** Timers, injectable for tests. */
export interface WorkClock {
  setTimeout(run: () => void, ms: number): unknown;
  clearTimeout(timer: unknown): void;
  now(): number;
}

const realClock: WorkClock = {
  setTimeout: (run, ms) => setTimeout(run, ms),
  clearTimeout: (timer) => clearTimeout(timer as ReturnType<typeof setTimeout>),
  now: () => Date.now(),
};

/** Options of {@link BoundedWorker}. */
export interface BoundedWorkerOptions<Kinds extends string> {
  /** Starts the worker (again, after one was ended). */
  start: () => WorkPort;
  /** Each kind of work's bounds. */
  bounds: Record<Kinds, WorkBounds<never>>;
  /** Functions the worker may call on the page while a job runs (their time is not the worker's). */
  host?: Record<string, (...args: never[]) => unknown>;
  clock?: WorkClock;
}

/**
 * The page's side: one job at a time in one worker, each within its kind's bounds. A job past its deadline
 * rejects with {@link WorkLimitError} and ends the worker; so does a worker that crashes (out of memory). Either
 * way {@link BoundedWorker.generation} counts up, telling a caller that kept state in the worker to build it again.
 */
export class BoundedWorker<Kinds extends string> {
  private port: WorkPort | undefined;
  private readonly queue: Job[] = [];
  private running: Job | undefined;
  private nextId = 0;
  private timer: unknown;
  /** Milliseconds of its deadline the running job has left, counted while the worker computes. */
  private left = 0;
  private since = 0;
  private hostCalls = 0;
  private ended = 0;
  private disposed = false;
  private readonly clock: WorkClock;

  constructor(private readonly options: BoundedWorkerOptions<Kinds>) {
    this.clock = options.clock ?? realClock;
  }

  /** How many workers were ended (past a deadline, or crashed): state a caller put in the worker is gone when it changes. */
  get generation(): number {
    return this.ended;
  }

  /**
   * Runs one job of `kind` on `input` in the worker, after the jobs before it.
   * @throws WorkLimitError for an input over the kind's size cap (it is not sent), or work past its deadline.
   */
  run<Output>(kind: Kinds, input: unknown): Promise<Output> {
    const bounds = this.options.bounds[kind] as WorkBounds<unknown>;
    const chars = bounds.charsOf(input);
    if (chars > bounds.maxInputChars) {
      return Promise.reject(
        new WorkLimitError(
          'size',
          `${capitalized(bounds.what)}: ${chars.toLocaleString('en-US')} characters is more than the ${bounds.maxInputChars.toLocaleString('en-US')} it may take.`,
        ),
      );
    }
    if (this.disposed) return Promise.reject(new Error(`${capitalized(bounds.what)}: its worker was closed.`));
    return new Promise<Output>((resolve, reject) => {
      this.queue.push({ id: this.nextId++, kind, input, resolve: resolve as (value: unknown) => void, reject });
      this.next();
    });
  }

  /** Ends the worker; jobs still waiting are refused. */
  dispose(): void {
    this.disposed = true;
    this.endWorker();
    for (const job of this.queue.splice(0)) job.reject(new Error('The worker was closed.'));
    this.running?.reject(new Error('The worker was closed.'));
    this.running = undefined;
  }

  private next(): void {
    if (this.running || this.disposed) return;
    const job = this.queue.shift();
    if (!job) return;
    this.running = job;
    this.left = (this.options.bounds[job.kind as Kinds] as WorkBounds<unknown>).deadlineMs;
    this.hostCalls = 0;
    this.worker().postMessage({ type: 'run', id: job.id, kind: job.kind, input: job.input } satisfies ToWorker);
    this.startClock();
  }

  private worker(): WorkPort {
    if (this.port) return this.port;
    const port = this.options.start();
    port.addEventListener('message', (event) => {
      if (port === this.port) this.handle(event.data as FromWorker);
    });
    const crashed = (event: { message?: string }) => {
      if (port !== this.port) return;
      const job = this.running;
      this.endWorker();
      this.settle(job, undefined, new Error(`${job ? capitalized(this.boundsOf(job).what) : 'The worker'} failed: ${event.message ?? 'the worker stopped'}.`));
    };
    port.addEventListener('error', crashed);
    port.addEventListener('messageerror', crashed);
    this.port = port;
    return port;
  }

  private handle(message: FromWorker): void {
    const job = this.running;
    if (message.type === 'host-call') {
      void this.answerHost(message);
      return;
    }
    if (!job || message.id !== job.id) return;
    this.settle(job, message.ok ? message.value : undefined, message.ok ? undefined : reviveError(message.error));
  }

  private async answerHost(call: { id: number; name: string; args: unknown[] }): Promise<void> {
    const port = this.port;
    // The worker waits on the page: its deadline does not run meanwhile.
    if (this.hostCalls++ === 0) this.pauseClock();
    let reply: ToWorker;
    try {
      const fn = this.options.host?.[call.name] as ((...args: unknown[]) => unknown) | undefined;
      if (!fn) throw new Error(`The page lends no function named ${call.name}.`);
      reply = { type: 'host-result', id: call.id, ok: true, value: await fn(...call.args) };
    } catch (error) {
      reply = { type: 'host-result', id: call.id, ok: false, error: serializeError(error) };
    }
    if (port !== this.port || !port) return;
    port.postMessage(reply);
    if (--this.hostCalls === 0 && this.running) this.startClock();
  }

  private startClock(): void {
    this.since = this.clock.now();
    const job = this.running;
    this.timer = this.clock.setTimeout(() => this.overrun(job), Math.max(0, this.left));
  }

  private pauseClock(): void {
    this.clock.clearTimeout(this.timer);
    this.left -= this.clock.now() - this.since;
  }

  private overrun(job: Job | undefined): void {
    if (!job || job !== this.running) return;
    const bounds = this.boundsOf(job);
    this.endWorker();
    this.settle(
      job,
      undefined,
      new WorkLimitError('time', `${capitalized(bounds.what)} took longer than ${formatSeconds(bounds.deadlineMs)} and was stopped.`),
    );
  }

  private settle(job: Job | undefined, value: unknown, error: Error | undefined): void {
    this.clock.clearTimeout(this.timer);
    if (job && job === this.running) {
      this.running = undefined;
      if (error) job.reject(error);
      else job.resolve(value);
    }
    this.next();
  }

  private endWorker(): void {
    this.clock.clearTimeout(this.timer);
    if (!this.port) return;
    this.port.terminate();
    this.port = undefined;
    this.ended++;
  }

  private boundsOf(job: Job): WorkBounds<unknown> {
    return this.options.bounds[job.kind as Kinds] as WorkBounds<unknown>;
  }
}

/**
 * A worker's stand-in where a runtime has no Web Workers (Node, where the library's tests run): the same
 * messages, structured-cloned through a `MessageChannel`, served in this thread. It keeps the size caps and the
 * protocol, but nothing in one thread can stop a parser that does not yield: the page always has real workers.
 */
export function inThreadWorker(handlers: WorkHandlers): WorkPort {
  const { port1, port2 } = new MessageChannel();
  serveBoundedWork(port2 as unknown as WorkScope, handlers);
  port1.start();
  port2.start();
  return {
    postMessage: (message) => port1.postMessage(message),
    addEventListener: (type, listener) => port1.addEventListener(type as 'message', listener as (event: MessageEvent) => void),
    terminate: () => {
      port1.close();
      port2.close();
    },
  };
}

const capitalized = (text: string) => text.charAt(0).toUpperCase() + text.slice(1);
const formatSeconds = (ms: number) => `${ms % 1000 === 0 ? ms / 1000 : (ms / 1000).toFixed(1)} s`;
