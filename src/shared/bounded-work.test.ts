import { Worker } from 'node:worker_threads';
import { afterEach, describe, expect, it } from 'vitest';
import { BoundedWorker, inThreadWorker, WorkLimitError, type WorkClock, type WorkPort } from './bounded-work.ts';
import { TIMEOUTS } from '../../tests/timeouts.ts';

const text = (input: { text: string }) => input.text.length;
const BOUNDS = {
  spin: { what: 'reading the file', deadlineMs: 300, maxInputChars: 100, charsOf: () => 0 },
  echo: { what: 'reading the file', deadlineMs: 60_000, maxInputChars: 100, charsOf: text },
  ask: { what: 'searching the files', deadlineMs: 300, maxInputChars: 100, charsOf: text },
  fail: { what: 'reading the file', deadlineMs: 60_000, maxInputChars: 100, charsOf: () => 0 },
};
type Kind = keyof typeof BOUNDS;

/** A real thread (Node's worker_threads, TypeScript through tsx) behind the Web Worker shape the page uses. */
function threadPort(started: WorkPort[]): () => WorkPort {
  return () => {
    // Node runs a worker's entry before any loader it is given: the entry registers tsx, then imports the TypeScript.
    const entry = new URL('./__fixtures__/busy-worker.ts', import.meta.url).href;
    const thread = new Worker(`import { register } from 'tsx/esm/api'; register(); await import(${JSON.stringify(entry)});`, { eval: true });
    const port: WorkPort = {
      postMessage: (message) => thread.postMessage(message),
      addEventListener: (type, listener) => {
        if (type === 'message') thread.on('message', (data: unknown) => listener({ data }));
        else thread.on(type, (error: Error) => listener({ message: error.message }));
      },
      terminate: () => void thread.terminate(),
    };
    started.push(port);
    return port;
  };
}

describe('BoundedWorker', () => {
  let worker: BoundedWorker<Kind> | undefined;
  afterEach(() => worker?.dispose());

  it(
    'ends a worker that runs past its deadline, refusing that job by name, and runs the next job in a fresh one',
    async () => {
      const started: WorkPort[] = [];
      worker = new BoundedWorker<Kind>({ start: threadPort(started), bounds: BOUNDS });
      // A job queued behind the stuck one still runs: one hostile input costs one refusal.
      const [stuck, after] = await Promise.allSettled([worker.run('spin', {}), worker.run('echo', { text: 'hello' })]);
      expect(stuck.status).toBe('rejected');
      const error = (stuck as PromiseRejectedResult).reason as WorkLimitError;
      expect(error).toBeInstanceOf(WorkLimitError);
      expect(error.limit).toBe('time');
      expect(error.message).toBe('Reading the file took longer than 0.3 s and was stopped.');
      expect(after).toEqual({ status: 'fulfilled', value: { text: 'hello', thread: 'worker' } });
      expect(worker.generation).toBe(1);
      expect(started).toHaveLength(2);
    },
    TIMEOUTS.processStart,
  );

  it('refuses an input over its kind’s size cap before sending it, naming the cap', async () => {
    let starts = 0;
    worker = new BoundedWorker<Kind>({
      start: () => {
        starts++;
        return inThreadWorker({});
      },
      bounds: BOUNDS,
    });
    const refused = worker.run('echo', { text: 'x'.repeat(101) });
    await expect(refused).rejects.toThrow(WorkLimitError);
    await expect(refused).rejects.toThrow('Reading the file: 101 characters is more than the 100 it may take.');
    expect(starts).toBe(0);
  });

  it('keeps an error’s name across the worker, and lends the page’s functions without counting their time', async () => {
    const clock = manualClock();
    let answer: (value: string) => void = () => undefined;
    worker = new BoundedWorker<Kind>({
      start: () =>
        inThreadWorker({
          fail: () => {
            throw Object.assign(new Error('“x.bin” is not a text file.'), { name: 'AttachmentFileError' });
          },
          ask: async (input: { text: string }, host) => `${String(await host('shout', input.text))}!`,
        }),
      bounds: BOUNDS,
      host: { shout: (text: string) => new Promise<string>((resolve) => (answer = (value) => resolve(`${value}${text.toUpperCase()}`))) },
      clock,
    });
    await expect(worker.run('fail', {})).rejects.toMatchObject({ name: 'AttachmentFileError', message: '“x.bin” is not a text file.' });
    const asked = worker.run<string>('ask', { text: 'hi' });
    // The worker waits on the page far past its own deadline: that time is the page's, and the job still ends well.
    await until(() => clock.pending() === 0);
    clock.advance(10_000);
    answer('');
    await expect(asked).resolves.toBe('HI!');
    expect(worker.generation).toBe(0);
  });

  it('refuses a job whose worker crashed (out of memory), and counts the worker as ended', async () => {
    let crash: ((event: { message?: string }) => void) | undefined;
    worker = new BoundedWorker<Kind>({
      start: () => ({
        postMessage: () => queueMicrotask(() => crash?.({ message: 'Out of memory' })),
        addEventListener: (type, listener) => {
          if (type === 'error') crash = listener;
        },
        terminate: () => undefined,
      }),
      bounds: BOUNDS,
    });
    await expect(worker.run('echo', { text: 'x' })).rejects.toThrow('Reading the file failed: Out of memory.');
    expect(worker.generation).toBe(1);
  });
});

/** Timers that move only when told: the deadline's accounting, without waiting. */
function manualClock(): WorkClock & { advance(ms: number): void; pending(): number } {
  let now = 0;
  const timers = new Map<number, { at: number; run: () => void }>();
  let next = 0;
  return {
    now: () => now,
    setTimeout: (run, ms) => {
      timers.set(next, { at: now + ms, run });
      return next++;
    },
    clearTimeout: (timer) => void timers.delete(timer as number),
    advance(ms) {
      now += ms;
      for (const [id, timer] of [...timers]) {
        if (timer.at > now) continue;
        timers.delete(id);
        timer.run();
      }
    },
    pending: () => timers.size,
  };
}

async function until(condition: () => boolean): Promise<void> {
  for (let i = 0; i < 1000 && !condition(); i++) await new Promise((resolve) => setImmediate(resolve));
  expect(condition()).toBe(true);
}
