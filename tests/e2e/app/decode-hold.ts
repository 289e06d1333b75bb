import type { Page, Worker } from 'playwright-core';
import { DECODE_HOLD_GLOBAL } from '../../../src/engine/yield-to-event-loop.ts';

/** The name the page gives its model worker (src/app/vite-worker.ts). */
const MODEL_WORKER_NAME = 'nexus-model';

/** A hold on the page's model worker, placed by {@link holdDecoding}. */
export interface DecodeHold {
  /** Lets decoding go on for good (the answer then ends as the model writes it). */
  release(): Promise<void>;
  /** Lets decoding go on for `tokens` more text tokens, then holds it again; resolves once it is held again. */
  releaseFor(tokens: number): Promise<void>;
  /** Whether a step is waiting on the hold now: the answer is being written and cannot end before a stop or a release. */
  holding(): Promise<boolean>;
}

/** The page's model worker, once it is running (a new one starts for every load). */
async function modelWorker(page: Page): Promise<Worker> {
  for (const worker of page.workers()) {
    const name = await worker.evaluate(() => (self as unknown as { name: string }).name).catch(() => undefined);
    if (name === MODEL_WORKER_NAME) return worker;
  }
  throw new Error(`no worker named ${MODEL_WORKER_NAME} in the page: load a model first`);
}

/** What the hold keeps in the worker (`self.__nexusTestHold`). */
interface HoldInWorker {
  /** Text tokens still to let through before holding (0: hold at the next step). */
  remaining: number;
  released: boolean;
  /** Resolves the step waiting on the hold, if one is. */
  waiting: (() => void) | undefined;
  /** Resolves the promise of a `releaseFor` once a step waits on the hold again. */
  heldAgain: (() => void) | undefined;
  release(): void;
  releaseFor(tokens: number): Promise<void>;
}

/**
 * Holds the model's decoding after the next `afterTokens` text tokens the worker sends to the page (default 1),
 * until the page's Stop reaches the worker (its `abort`) or the test releases it (issue 70). A test that presses
 * Stop once text shows then always stops an answer still being written, however fast the machine; and the stop's
 * latency is still the real one, since the abort itself lets the held step go on to see it.
 *
 * One hold a call: place it before sending the message it is for.
 */
export async function holdDecoding(page: Page, { afterTokens = 1 }: { afterTokens?: number } = {}): Promise<DecodeHold> {
  const worker = await modelWorker(page);
  await worker.evaluate(
    ({ holdGlobal, afterTokens }) => {
      const scope = self as unknown as Record<string, unknown> & {
        postMessage(message: unknown, ...rest: unknown[]): void;
        addEventListener(type: 'message', listener: (event: MessageEvent) => void): void;
      };
      const hold: HoldInWorker = {
        remaining: afterTokens,
        released: false,
        waiting: undefined,
        heldAgain: undefined,
        release() {
          hold.released = true;
          hold.remaining = Number.POSITIVE_INFINITY;
          hold.waiting?.();
          hold.waiting = undefined;
        },
        releaseFor(tokens: number) {
          const again = new Promise<void>((resolve) => (hold.heldAgain = resolve));
          hold.remaining = tokens;
          hold.waiting?.();
          hold.waiting = undefined;
          return again;
        },
      };
      scope.__nexusTestHold = hold;
      const current = () => scope.__nexusTestHold as HoldInWorker;
      // The worker's own postMessage, wrapped once however many holds a test places.
      if (!scope.__nexusTestHoldWired) {
        scope.__nexusTestHoldWired = true;
        const post = scope.postMessage.bind(scope);
        scope.postMessage = (message: unknown, ...rest: unknown[]) => {
          const sent = message as { kind?: string; text?: string } | null;
          if (sent?.kind === 'token' && (sent.text ?? '').trim() && current().remaining > 0) current().remaining--;
          post(message, ...rest);
        };
        // Registered after the worker's own listener, so the abort has reached the request before the step goes on.
        // Only once text was let through: an abort of something else (an embedding) before it leaves the hold in place.
        scope.addEventListener('message', (event: MessageEvent) => {
          if ((event.data as { kind?: string } | null)?.kind === 'abort' && current().remaining === 0) current().release();
        });
      }
      scope[holdGlobal] = () => {
        const now = current();
        if (now.released || now.remaining > 0) return undefined;
        const held = new Promise<void>((resolve) => (now.waiting = resolve));
        now.heldAgain?.();
        now.heldAgain = undefined;
        return held;
      };
    },
    { holdGlobal: DECODE_HOLD_GLOBAL, afterTokens },
  );
  type Scope = { __nexusTestHold: HoldInWorker };
  const holding = () => worker.evaluate(() => (self as unknown as Scope).__nexusTestHold.waiting !== undefined);
  return {
    release: () => worker.evaluate(() => (self as unknown as Scope).__nexusTestHold.release()),
    releaseFor: (tokens) => worker.evaluate((n) => (self as unknown as Scope).__nexusTestHold.releaseFor(n), tokens),
    holding,
  };
}
