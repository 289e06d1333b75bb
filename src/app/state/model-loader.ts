import {
  DEFAULT_HUB_URL,
  NexusChat,
  SOURCE_FAILURES,
  describeSource,
  detectBrowserCapabilities,
  type DetectOptions,
  verdictKey,
  type LoadAttempt,
  type LoadProgress,
  type ModelSource,
  type RuntimeCapabilities,
  type ToolAttempt,
  type ToolCallCheck,
  type ToolVerdict,
  type VerdictStore,
} from '../../internal.ts';
import type { Verdict } from './app-state.ts';
import { deviceLabel } from '../format.ts';

/** What a load reports while it runs. */
interface LoadHooks {
  onProgress(event: LoadProgress): void;
  /** The load reached the self-check. (Warming up is reported through `onProgress`.) */
  onChecking(): void;
  /** One line of narration: which quantization is tried, why one was passed over. */
  onNote(text: string): void;
  /** Aborted when the user skips the self-check: the model is kept, unjudged. */
  checkSignal?: AbortSignal;
  /** Aborted when the user cancels the load: the download stops, nothing is kept. */
  loadSignal?: AbortSignal;
}

/** A loaded model and what the page knows of its tool calling (nothing, when the check was skipped). */
interface OpenedModel {
  chat: NexusChat;
  verdict: Verdict | undefined;
}

/** How the page gets a chat for a model; the store takes one so tests can hand it a scripted chat. */
export interface ModelOpener {
  /** What the browser offers (WebGPU, shader-f16). */
  runtime(): Promise<RuntimeCapabilities>;
  /** Loads the model and checks that it calls tools, or reuses the verdict of an earlier visit. */
  open(source: ModelSource, hooks: LoadHooks): Promise<OpenedModel>;
  /** Walks every quantization this device runs for one that calls tools (downloads more files). */
  search(source: ModelSource, hooks: LoadHooks): Promise<OpenedModel>;
  /** Runs the self-check again on a loaded chat; undefined when `signal` cancelled it. */
  recheck(source: ModelSource, chat: NexusChat, signal?: AbortSignal): Promise<Verdict | undefined>;
}

/**
 * The real opener: models run in the library's worker; verdicts live in IndexedDB under the
 * library's own keys.
 *
 * Unlike `NexusChat.loadForTools`, `open` keeps the model even when it fails the check, so a user
 * can still chat with it (without relying on tools), and walks the other quantizations only when
 * asked: each one can be another download of hundreds of megabytes.
 */
export function workerModelOpener(verdicts: VerdictStore, prefs: () => OpenerPrefs = () => ({ allowFallbackAdapter: false })): ModelOpener {
  const caps = new Map<boolean, Promise<RuntimeCapabilities>>();
  const runtime = () => {
    const allow = prefs().allowFallbackAdapter;
    const known = caps.get(allow) ?? detectRuntime(undefined, { allowFallbackAdapter: allow });
    caps.set(allow, known);
    return known;
  };

  const keyFor = async (source: ModelSource) => ('files' in source ? undefined : verdictKey(describeSource(source), await runtime()));
  const remember = async (source: ModelSource, verdict: Verdict) => {
    const key = await keyFor(source);
    if (key) await verdicts.set(key, toToolVerdict(verdict)).catch(() => undefined);
  };
  // onAttempt is not passed: the worker client posts its options to the worker, and a function
  // cannot be cloned (reported upstream). Progress still flows.
  const loadOptions = (hooks: LoadHooks) => {
    const { allowFallbackAdapter, hubUrl } = prefs();
    return {
      onProgress: (event: LoadProgress) => hooks.onProgress(event),
      ...(hooks.loadSignal ? { signal: hooks.loadSignal } : {}),
      ...(allowFallbackAdapter ? { allowFallbackAdapter: true } : {}),
      ...(hubUrl && hubUrl !== DEFAULT_HUB_URL ? { hubUrl } : {}),
    };
  };

  /** The self-check, remembered; a skipped one is not a verdict and is not remembered. */
  const checkAndRemember = async (source: ModelSource, chat: NexusChat, signal?: AbortSignal): Promise<Verdict | undefined> => {
    let verdict: Verdict;
    try {
      verdict = fromCheck(await chat.selfCheck(signal ? { signal } : {}));
    } catch (error) {
      if (signal?.aborted) return undefined;
      throw error;
    }
    await remember(source, verdict);
    return verdict;
  };

  return {
    runtime,
    async open(source, hooks) {
      const key = await keyFor(source);
      const remembered = key ? await verdicts.get(key).catch(() => undefined) : undefined;
      if (remembered) {
        try {
          const chat = await NexusChat.load(source, { ...loadOptions(hooks), dtype: remembered.dtype, device: remembered.device });
          chat.toolCheck = remembered;
          return { chat, verdict: { ...remembered, remembered: true } };
        } catch {
          hooks.onNote(`The remembered ${deviceLabel(remembered.device, remembered.dtype)} no longer loads; loading afresh.`);
        }
      }
      const chat = await NexusChat.load(source, loadOptions(hooks));
      hooks.onChecking();
      return { chat, verdict: await checkAndRemember(source, chat, hooks.checkSignal) };
    },
    async search(source, hooks) {
      const tried: string[] = [];
      try {
        const chat = await NexusChat.loadForTools(source, {
          ...loadOptions(hooks),
          verdicts,
          // The user asked for every option: the unquantized files too, when the folder serves them.
          fullPrecision: true,
          // loadForTools narrates each quantization once it is checked (a ToolAttempt): one short line
          // each, without the model's name and advice the verdict already gives.
          onAttempt: (attempt: ToolAttempt | (LoadAttempt & { state: string })) => {
            if (!('detail' in attempt)) return;
            tried.push(deviceLabel(attempt.device, attempt.dtype));
            hooks.onNote(`${deviceLabel(attempt.device, attempt.dtype)}: ${withoutModelName(attempt.detail)}`);
          },
        });
        const check = chat.toolCheck;
        const verdict: Verdict = check
          ? {
              ok: check.ok,
              needed_forcing: check.needed_forcing,
              detail: check.detail,
              dtype: chat.info.dtype,
              device: chat.info.device,
              checkedAt: new Date().toISOString(),
              remembered: false,
            }
          : fromCheck(await chat.selfCheck());
        return { chat, verdict };
      } catch (error) {
        if ((error as Error).name !== 'NoToolCallingDtypeError') throw error;
        // None calls tools: keep the best one loaded anyway, and say why in the verdict.
        hooks.onNote('No quantization calls tools here; loading the first one so you can still chat.');
        const chat = await NexusChat.load(source, loadOptions(hooks));
        const verdict: Verdict = {
          ok: false,
          needed_forcing: false,
          detail:
            `No quantization of ${describeSource(source)} called the tool here` +
            `${tried.length ? ` (tried ${tried.join(', ')}; below, how each answered)` : ''}. ` +
            'Models below about 0.5B parameters rarely can; Qwen3-0.6B does.',
          dtype: chat.info.dtype,
          device: chat.info.device,
          checkedAt: new Date().toISOString(),
          remembered: false,
        };
        await remember(source, verdict);
        return { chat, verdict };
      }
    },
    recheck: checkAndRemember,
  };
}

/** What the page's settings say about loading. */
export interface OpenerPrefs {
  /** Run on a software WebGPU adapter when that is all there is. */
  allowFallbackAdapter: boolean;
  /** Where hub ids are downloaded from (default the Hugging Face hub). */
  hubUrl?: string;
}

/** Asks the browser for a WebGPU adapter and whether it has `shader-f16`; never throws. */
const detectRuntime: (nav?: Navigator, options?: DetectOptions) => Promise<RuntimeCapabilities> = detectBrowserCapabilities;

function fromCheck(check: ToolCallCheck): Verdict {
  return {
    ok: check.ok,
    needed_forcing: check.needed_forcing,
    detail: check.detail,
    dtype: check.dtype,
    device: check.device,
    checkedAt: new Date().toISOString(),
    remembered: false,
  };
}

function toToolVerdict({ remembered: _remembered, ...verdict }: Verdict): ToolVerdict {
  return verdict;
}

/**
 * A load error in words that say what to do. The library's own messages already name the file and
 * the remedy; storage and network failures get one of their own.
 */
export function explainLoadError(error: unknown): string {
  const name = (error as { name?: string })?.name ?? '';
  const message = error instanceof Error ? error.message : String(error);
  if (name === 'QuotaExceededError' || /quota|no space|storage.*full/i.test(message)) {
    return 'Not enough storage for the model files. Free some disk space, or remove site data you no longer need (browser settings → Privacy → Site data), then load again.';
  }
  // The library already said what happened to the source and what to do: say it once, as it is.
  if (SOURCE_FAILURES.has(name)) return message;
  if (/failed to fetch|networkerror|load failed/i.test(message)) {
    return `The model files could not be downloaded (${message}). Check your connection, or load a model folder or .zip from disk.`;
  }
  return message;
}

/** A check's detail without its leading "<model> (<dtype> on <device>…)" — the line already names them. */
function withoutModelName(detail: string): string {
  return detail.replace(/^.*?\([^)]*\) (?=does not|calls|could not|reports|answered)/, '').replace(/ Try another quantization, or a larger model.*$/, '');
}
