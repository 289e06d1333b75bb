import { checkModelFolder } from './check-model-folder.ts';
import type { FamilyId } from './model-family.ts';
import { candidateForDtype, candidatesFor, type LoadCandidate, type RuntimeCapabilities } from './device-ladder.ts';
import { diagnoseSource, sourceWideFailure } from './diagnose-source.ts';
import { planDownload } from './download-plan.ts';
import { ModelLoadError, describeSource, noCandidateLoaded, type ModelSource } from './model-source.ts';
import { availableDtypes, useSource } from './use-source.ts';
import { TransformersEngine, type LoadProgress } from './transformers-engine.ts';
import { checkLoadOptions } from './load-options.ts';
import { refuseTools } from './template-analysis.ts';

/** Options shared by every way of loading a model. */
export interface LoadOptions {
  /** Load exactly this quantization (still checked against the device). */
  dtype?: string;
  /** Load on exactly this device. */
  device?: string;
  /**
   * Speak to the model through this family's profile instead of the one its files suggest (a
   * fine-tune whose template the detection misreads). The verdict then says it was chosen so.
   */
  family?: FamilyId;
  /** In a browser: use a software (fallback) WebGPU adapter if that is all there is (default: run on WASM). */
  allowFallbackAdapter?: boolean;
  /** The hub `{ hub }` sources download from: a mirror's address; default https://huggingface.co/. */
  hubUrl?: string;
  /** Cancels the load (in a browser the worker is ended at once); the load rejects with an AbortError. */
  signal?: AbortSignal;
  /**
   * CPU threads: WASM in a browser (default every core where the page is cross-origin isolated,
   * else one) or ONNX Runtime's intra-op threads in Node (default its own choice).
   */
  numThreads?: number;
  /**
   * Texts the parser reads (`CALL_MARKERS`, which the facade passes): those that are special tokens
   * of the model's tokenizer stay in generated text instead of being dropped.
   */
  keepMarkers?: readonly string[];
  onProgress?: (event: LoadProgress) => void;
}

/** What {@link loadCandidate} passes on to the engine besides the candidate. */
export type CandidateOptions = Pick<LoadOptions, 'onProgress' | 'family' | 'hubUrl' | 'numThreads' | 'keepMarkers'>;

/** One load attempt, for messages and narration. */
export interface LoadAttempt extends LoadCandidate {
  ok: boolean;
  error?: string;
}

/** The candidates to try, in order: the one asked for, or the ladder limited to what the source serves. */
export async function planCandidates(source: ModelSource, caps: RuntimeCapabilities, options: LoadOptions): Promise<LoadCandidate[]> {
  checkLoadOptions(options);
  if (options.dtype) return [candidateForDtype(caps, options.dtype, options.device)];
  const available = await availableDtypes(source, options.hubUrl);
  // The source answered and serves nothing: a missing model or folder is said as such. (Unknown —
  // the hub's listing unreachable — goes on: the files may be in the browser's cache.)
  if (available?.length === 0) {
    const problem = await diagnoseSource(source, diagnoseOptions(options));
    if (problem) throw problem;
  }
  const candidates = candidatesFor(caps, available).filter((c) => !options.device || c.device === options.device);
  if (candidates.length === 0) {
    throw new ModelLoadError(
      `${describeSource(source)} serves ${available?.length ? available.join(', ') : 'no ONNX model files'}, and none of them runs here. ` +
        `This device can use: ${candidatesFor(caps)
          .map((c) => `${c.dtype} on ${c.device}`)
          .join(', ')}.`,
    );
  }
  return candidates;
}

/** How a failed load asks the source what went wrong: the hub it meant, and what the browser says of the network. */
export function diagnoseOptions(options: LoadOptions): { hubUrl?: string; online?: boolean } {
  const online = (globalThis as { navigator?: { onLine?: boolean } }).navigator?.onLine;
  return { ...(options.hubUrl ? { hubUrl: options.hubUrl } : {}), ...(online === undefined ? {} : { online }) };
}

/** Loads one candidate and runs a one-token warm-up (compiles shaders, allocates buffers). */
export async function loadCandidate(
  source: ModelSource,
  candidate: LoadCandidate,
  { onProgress, family, hubUrl, numThreads, keepMarkers }: CandidateOptions = {},
): Promise<TransformersEngine> {
  if (onProgress) {
    // The whole download's size up front, so progress is a fraction of something from the start.
    const files = await planDownload(source, candidate.dtype, hubUrl ? { hubUrl } : {});
    if (files?.length) onProgress({ status: 'plan', files });
  }
  const engine = await TransformersEngine.load(useSource(source, hubUrl), {
    ...candidate,
    ...(onProgress ? { onProgress } : {}),
    ...(family ? { family } : {}),
    ...(numThreads ? { numThreads } : {}),
    ...(keepMarkers ? { keepMarkers } : {}),
  });
  onProgress?.({ status: 'warmup' });
  // Rendered by the model's own template: a hard-coded dialect would warm up on the wrong tokens. A
  // template that cannot render even that does not fail the load: the probe has named the cause, and
  // the model is refused tools for it rather than not loaded at all.
  const prompt = await engine.render([{ role: 'user', content: 'hi' }], { addGenerationPrompt: true }).catch((error: unknown) => {
    if (!engine.info.family.templateProblem) {
      refuseTools(engine.info.family, `cannot render plain chat (fails: ${error instanceof Error ? error.message.split('\n')[0] : String(error)})`);
    }
    return 'hi';
  });
  await engine.generate(prompt, { maxNewTokens: 1 });
  return engine;
}

/**
 * Loads a model in this realm (Node), trying the ladder in order. For the browser, where a failed
 * session poisons the realm, the worker client retries in a fresh worker instead.
 */
export async function loadEngine(
  source: ModelSource,
  caps: RuntimeCapabilities,
  options: LoadOptions = {},
): Promise<{ engine: TransformersEngine; attempts: LoadAttempt[] }> {
  const attempts: LoadAttempt[] = [];
  // A folder without its tokenizer fails deep inside transformers.js; say which file is missing instead.
  if ('path' in source) await checkModelFolder(source.path);
  for (const candidate of await planCandidates(source, caps, options)) {
    try {
      const { onProgress, family, hubUrl, numThreads, keepMarkers } = options;
      const engine = await loadCandidate(source, candidate, { onProgress, family, hubUrl, numThreads, keepMarkers });
      attempts.push({ ...candidate, ok: true });
      return { engine, attempts };
    } catch (error) {
      // The source itself failed (or a file every quantization needs): the others would fail alike.
      const wide = await sourceWideFailure(source, error, diagnoseOptions(options));
      if (wide) throw wide;
      attempts.push({ ...candidate, ok: false, error: error instanceof Error ? error.message : String(error) });
    }
  }
  throw noCandidateLoaded(source, attempts);
}

// The Node path of `NexusChat.load` takes both from one import (one chunk in a page bundle).
export { embedderHost } from './embedder-host.ts';
