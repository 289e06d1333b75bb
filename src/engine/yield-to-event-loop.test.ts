import { describe, expect, it } from 'vitest';
import { yieldBeforeEachStep, yieldToEventLoop } from './yield-to-event-loop.ts';

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
    // A stand-in for ORT Web's WASM backend: each step resolves without leaving the microtask queue.
    const model = {
      steps: 0,
      async forward() {
        this.steps++;
        return this.steps;
      },
    };
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
