/** Loading a model for the chat: in a worker in a page, in-process in Node, and the first quantization that calls tools. */
import { throwIfAborted } from '../shared/abort.ts';
import type { CheckedChat } from '../check/check-chat.ts';
import { loadForTools, type LoadForToolsOptions } from '../check/load-for-tools.ts';
import { indexedDbVerdictStore } from '../check/verdict-store.ts';
import { detectBrowserCapabilities, type RuntimeCapabilities } from '../engine/device-ladder.ts';
import { describeSource, SOURCE_FAILURES, type ModelSource } from '../engine/model-source.ts';
import { probeDtypes } from '../engine/probe-dtypes.ts';
import type { AnswerRunner, RunnerServices } from '../loop/answer-runner.ts';
import { startWorkerRunner, type WorkerLoadOptions } from '../worker/worker-client.ts';
import { isNode } from './environment.ts';
import { inRealmRunner } from './in-realm-runner.ts';

/**
 * The runner of a model loaded from `source`: in Node, transformers.js and the loop in-process (both
 * imported here, so a page never loads them); in a page, a model worker down the device ladder.
 * @param source - where the model comes from.
 * @param loadOptions - device, dtype, hub, progress, signal.
 */
export async function loadModelRunner(source: ModelSource, loadOptions: WorkerLoadOptions): Promise<AnswerRunner> {
  if (!isNode()) return startWorkerRunner(source, loadOptions);
  const [{ loadEngine, embedderHost }, { PARSER_MARKERS }] = await Promise.all([import('../engine/load-engine.ts'), import('../loop/answer-runner.ts')]);
  throwIfAborted(loadOptions.signal);
  // The engine keeps in generated text every special token the parser reads.
  const { engine } = await loadEngine(source, { runtime: 'node', webgpu: false, shaderF16: false }, { ...loadOptions, keepMarkers: PARSER_MARKERS });
  // In-process the load cannot be cut short; a cancelled one is freed as soon as it is done.
  if (loadOptions.signal?.aborted) {
    await engine.dispose();
    throwIfAborted(loadOptions.signal);
  }
  const embedders = embedderHost('cpu');
  const services: RunnerServices = { embed: (request, onProgress) => embedders.embed(request, onProgress), dispose: () => embedders.dispose() };
  return inRealmRunner(engine, services);
}

/**
 * The first quantization of `source` that really calls tools on this machine (see `loadForTools`), each
 * loaded with `load`; the verdicts remembered in IndexedDB in a page (none in Node unless given).
 * @throws NoToolCallingDtypeError naming every dtype tried and why.
 */
export async function loadChatForTools<Chat extends CheckedChat, Options extends WorkerLoadOptions>(
  source: ModelSource,
  options: LoadForToolsOptions & Options,
  load: (source: ModelSource, options: Options) => Promise<Chat>,
): Promise<Chat> {
  const { dtypes, dtype, allowForcing, onAttempt, verdicts, pick, fullPrecision, device: _device, ...loadOptions } = options;
  const caps: RuntimeCapabilities = isNode()
    ? { runtime: 'node', webgpu: false, shaderF16: false }
    : await detectBrowserCapabilities(undefined, { allowFallbackAdapter: Boolean(options.allowFallbackAdapter) });
  const store = verdicts === undefined ? (isNode() ? null : await indexedDbVerdictStore().catch(() => null)) : verdicts;
  return loadForTools(
    source,
    {
      ...(dtypes ? { dtypes } : {}),
      ...(dtype ? { dtype } : {}),
      ...(allowForcing === undefined ? {} : { allowForcing }),
      ...(onAttempt ? { onAttempt } : {}),
      ...(pick ? { pick } : {}),
      ...(fullPrecision ? { fullPrecision } : {}),
    },
    {
      caps,
      available: await probeDtypes(source, undefined, options.hubUrl),
      verdicts: store,
      // What is left of the options is the caller's load options (the ladder sets dtype and device).
      load: (s, candidate) => load(s, { ...loadOptions, dtype: candidate.dtype, device: candidate.device } as unknown as Options),
      describe: describeSource,
      isSourceFailure: (error) => error instanceof Error && SOURCE_FAILURES.has(error.name),
    },
  );
}
