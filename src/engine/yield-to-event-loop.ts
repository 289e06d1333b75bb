/**
 * Lets queued tasks (a worker's incoming `abort` message, a timer) run before the next decode step.
 *
 * transformers.js' generate loop only awaits the model's forward pass, and ONNX Runtime Web's WASM
 * backend resolves that without leaving the microtask queue, so a whole generation — seconds on
 * WASM — runs as one task and a Stop message waits behind it. A macrotask boundary per step makes
 * the stop land within one token. MessageChannel is used where there is no setImmediate because
 * nested `setTimeout(0)` is clamped to 4 ms.
 */
export function yieldToEventLoop(): Promise<void> {
  if (typeof setImmediate === 'function') return new Promise((resolve) => setImmediate(resolve));
  if (typeof MessageChannel === 'function') {
    return new Promise((resolve) => {
      const channel = new MessageChannel();
      channel.port1.onmessage = () => {
        channel.port1.close();
        resolve();
      };
      channel.port2.postMessage(undefined);
    });
  }
  return new Promise((resolve) => setTimeout(resolve, 0));
}

/**
 * The global a browser test sets in the model worker (through Playwright's `worker.evaluate`) to hold decoding
 * between two tokens: a function called before every forward pass, whose promise (if any) the step waits for.
 * A test of Stop holds the step after the first token it names, presses Stop, and releases the hold on the
 * worker's `abort`, so the answer is still being written when the stop arrives whatever the machine's speed
 * (issue 70). Nothing in the library sets it; a page that sets it only pauses its own model.
 */
export const DECODE_HOLD_GLOBAL = '__nexusDecodeHold';

/** The hold a test placed on this realm's decoding, if any (see {@link DECODE_HOLD_GLOBAL}). */
function decodeHold(): Promise<unknown> | undefined {
  const hold = (globalThis as Record<string, unknown>)[DECODE_HOLD_GLOBAL];
  return typeof hold === 'function' ? (hold as () => Promise<unknown> | undefined)() : undefined;
}

/** Something with transformers.js' `forward(inputs)` — the step its generate loop awaits. */
interface Forwarding {
  forward(inputs: unknown): Promise<unknown>;
}

/**
 * Makes every forward pass of `model` start on a fresh task, so a stop requested during a
 * generation is seen at the next step rather than when the generation ends; and waits there for a
 * test's hold ({@link DECODE_HOLD_GLOBAL}) where one is placed.
 */
export function yieldBeforeEachStep(model: Forwarding): void {
  const forward = model.forward.bind(model);
  model.forward = async (inputs: unknown) => {
    await yieldToEventLoop();
    await decodeHold();
    return forward(inputs);
  };
}
