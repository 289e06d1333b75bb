import { describe, expect, it } from 'vitest';
import { DECODE_HOLD_GLOBAL, yieldBeforeEachStep, yieldToEventLoop } from './yield-to-event-loop.ts';

/** A stand-in for ORT Web's WASM backend: each step counts itself and resolves without leaving the microtask queue. */
function steppingModel() {
  return {
    steps: 0,
    async forward() {
      this.steps++;
      return this.steps;
    },
  };
}

describe('yieldToEventLoop', () => {
  it('lets an already queued task run before it resolves', async () => {
    const order: string[] = [];
    setTimeout(() => order.push('task'), 0);
    await new Promise((resolve) => setTimeout(resolve, 1)); // the timer is due now
    const queued = new Promise<void>((resolve) =>
      setImmediate(() => {
        order.push('queued');
        resolve();
      }),
    );
    await yieldToEventLoop();
    order.push('after yield');
    await queued;
    expect(order).toEqual(['task', 'queued', 'after yield']);
  });
});

describe('yieldBeforeEachStep', () => {
  it('gives a stop that arrives during a microtask-only generation a chance at every step', async () => {
    const model = steppingModel();
    const generate = async (stopped: () => boolean) => {
      for (let i = 0; i < 1_000 && !stopped(); i++) await model.forward();
      return model.steps;
    };
    let stop = false;
    setImmediate(() => (stop = true));
    expect(await generate(() => stop)).toBe(1_000); // without yielding, the stop is seen only at the end

    model.steps = 0;
    stop = false;
    yieldBeforeEachStep(model);
    setImmediate(() => (stop = true));
    expect(await generate(() => stop)).toBeLessThanOrEqual(2);
  });
});

describe('a decode hold', () => {
  it('keeps the next step waiting until the hold is released, and steps freely without one', async () => {
    const model = steppingModel();
    yieldBeforeEachStep(model);
    let release = () => {};
    const scope = globalThis as Record<string, unknown>;
    scope[DECODE_HOLD_GLOBAL] = () => new Promise<void>((resolve) => (release = resolve));
    try {
      const step = model.forward();
      // Many turns of the event loop later the held step has not run.
      for (let i = 0; i < 20; i++) await yieldToEventLoop();
      expect(model.steps).toBe(0);
      release();
      expect(await step).toBe(1);
    } finally {
      delete scope[DECODE_HOLD_GLOBAL];
    }
    expect(await model.forward()).toBe(2);
  });
});
