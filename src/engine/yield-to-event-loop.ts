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

/** Something with transformers.js' `forward(inputs)` — the step its generate loop awaits. */
interface Forwarding {
  forward(inputs: unknown): Promise<unknown>;
}

/**
 * Makes every forward pass of `model` start on a fresh task, so a stop requested during a
 * generation is seen at the next step rather than when the generation ends.
 */
export function yieldBeforeEachStep(model: Forwarding): void {
  const forward = model.forward.bind(model);
  model.forward = async (inputs: unknown) => {
    await yieldToEventLoop();
    return forward(inputs);
  };
}
