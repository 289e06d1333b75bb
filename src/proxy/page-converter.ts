import { availableParallelism } from 'node:os';
import { MessageChannel } from 'node:worker_threads';
import { fileURLToPath } from 'node:url';
import { convertPage, type ConvertInput, type ConvertedPage } from './convert-page.ts';
import { FetchFailedError } from './errors.ts';

/** Turns fetched bodies into text, off or on the calling thread. */
export interface PageConverter {
  /**
   * Converts one body.
   * @throws FetchFailedError when the page took longer than the converter's CPU budget.
   */
  convert(input: ConvertInput): Promise<ConvertedPage>;
  /** Ends the worker threads (the proxy closes it with the server). */
  close(): Promise<void>;
}

/** Options of {@link createPageConverter}. */
export interface PageConverterOptions {
  /** Worker threads at most (default: half the cores, at least 1, at most 4). */
  maxThreads?: number;
  /** Time one page's conversion may take before its thread is ended (default 5 s). */
  budgetMs?: number;
}

/** The default per-page conversion budget. */
export const DEFAULT_CONVERT_BUDGET_MS = 5_000;

/**
 * The converter the proxy uses: each page's HTML (or text) is decoded and converted in a pool of worker
 * threads (tinypool), with a time budget per page after which that thread is ended and the page is
 * reported as too complex to read. The event loop that serves the page and the proxy only waits.
 *
 * @param options - pool size and budget.
 *
 * @remarks Security: a hostile page controls this work (megabytes of `<`, entities, deep nesting).
 * Threat: one read stalling every other request of the process — the page server and the proxy —
 * for seconds at a time.
 */
export function createPageConverter(options: PageConverterOptions = {}): PageConverter {
  const budgetMs = options.budgetMs ?? DEFAULT_CONVERT_BUDGET_MS;
  const maxThreads = options.maxThreads ?? Math.min(4, Math.max(1, Math.floor(availableParallelism() / 2)));
  const here = import.meta.url;
  // Compiled, the worker is plain JavaScript; from source it goes through tsx (see the .mjs file).
  const workerUrl = new URL(here.endsWith('.ts') ? './convert-page-worker-source.mjs' : './convert-page-worker.js', here);
  let pool: Promise<import('tinypool').Tinypool> | undefined;
  // Pages wait here for a thread, never in tinypool's own queue: a task queued there when a thread
  // is ended for running past its budget was never started again.
  const slots = new Slots(maxThreads);
  const start = () =>
    (pool ??= import('tinypool').then(
      ({ Tinypool }) =>
        new Tinypool({
          filename: fileURLToPath(workerUrl),
          minThreads: 0,
          maxThreads,
          idleTimeout: 30_000,
        }),
    ));
  return {
    async convert(input) {
      const workers = await start();
      const release = await slots.take();
      // A copy the worker owns: the fetched Buffer may be a slice of a shared pool.
      const body = new Uint8Array(input.body);
      // The budget is for converting: it starts when a thread takes the page (the thread says so on
      // this port), not while the page waits behind others or a thread starts up. Timed from the
      // queue, plain pages behind hostile ones failed as "too complex" under load.
      const { port1: started, port2: startedPort } = new MessageChannel();
      const stop = new AbortController();
      let timer: ReturnType<typeof setTimeout> | undefined;
      started.once('message', () => {
        timer = setTimeout(() => stop.abort(), budgetMs);
      });
      try {
        return (await workers.run(
          { ...input, body, started: startedPort },
          { transferList: [body.buffer, startedPort], signal: stop.signal },
        )) as ConvertedPage;
      } catch (error) {
        if (stop.signal.aborted) throw new FetchFailedError(`the page is too complex to read: converting it took longer than ${budgetMs / 1000} s`);
        throw error;
      } finally {
        clearTimeout(timer);
        started.close();
        release();
      }
    },
    async close() {
      if (pool) await (await pool).destroy();
      pool = undefined;
    },
  };
}

/** A counting semaphore: at most `size` holders at once, the rest served in arrival order. */
class Slots {
  readonly #waiting: (() => void)[] = [];
  #free: number;

  constructor(size: number) {
    this.#free = size;
  }

  /** Resolves with the release function once a slot is free. */
  async take(): Promise<() => void> {
    if (this.#free > 0) this.#free--;
    else await new Promise<void>((resolve) => this.#waiting.push(resolve));
    let released = false;
    return () => {
      if (released) return;
      released = true;
      const next = this.#waiting.shift();
      if (next) next();
      else this.#free++;
    };
  }
}

/** A converter that runs on the calling thread: for tests of other rules, and tools that convert one page. */
export const inlinePageConverter: PageConverter = {
  convert: async (input) => convertPage(input),
  close: async () => undefined,
};
