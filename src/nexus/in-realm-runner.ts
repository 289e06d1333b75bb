import type { Engine } from '../engine/engine.ts';
import type { AnswerRunner, RunnerServices } from '../loop/answer-runner.ts';

/**
 * The loop in this realm, imported on the first answer. A page whose model runs in a worker (the
 * usual case) never downloads the loop and the call parsers: they run in the worker's own bundle.
 */
export function inRealmRunner(engine: Engine, services: RunnerServices = {}): AnswerRunner {
  let runner: Promise<AnswerRunner> | undefined;
  const loaded = () => (runner ??= import('../loop/answer-runner.ts').then(({ engineRunner }) => engineRunner(engine, services)));
  return {
    get info() {
      return engine.info;
    },
    run: async (request, bridge) => (await loaded()).run(request, bridge),
    choose: async (request, signal) => (await loaded()).choose!(request, signal),
    ...(services.embed ? { embed: services.embed } : {}),
    dispose: async () => {
      if (runner) return (await runner).dispose();
      await services.dispose?.().catch(() => undefined);
      await engine.dispose();
    },
  };
}
