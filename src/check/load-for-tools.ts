import { NexusError, registerErrorClass } from '../shared/errors.ts';
import { candidatesFor, fullPrecisionCandidates, type LoadCandidate, type RuntimeCapabilities } from '../engine/device-ladder.ts';
import type { ModelSource } from '../engine/model-source.ts';
import type { CheckedChat } from './check-chat.ts';
import { PREFER_FASTER_BY } from './model-report.ts';
import { verdictKey, type VerdictStore } from './verdict-store.ts';

/** Thrown when no quantization of a model passes the self-check. */
export class NoToolCallingDtypeError extends NexusError {
  override readonly name = 'NoToolCallingDtypeError';
}

registerErrorClass(NoToolCallingDtypeError, 'NoToolCallingDtypeError');

/** One candidate's outcome, as `onAttempt` narrates it. */
export interface ToolAttempt {
  dtype: string;
  device: string;
  ok: boolean;
  detail: string;
  /** Generated tokens per second during its check. */
  tokensPerSecond?: number;
  /** The verdict was remembered from an earlier visit (no search). */
  remembered?: boolean;
}

/** Options of `NexusChat.loadForTools`. */
export interface LoadForToolsOptions {
  /** Candidates to try, in order (default: the device ladder, limited to what the source serves). */
  dtypes?: string[];
  /** Exactly this quantization: still verified, just not retried past. */
  dtype?: string;
  /** Accept a model that only calls once the call is primed (default true). */
  allowForcing?: boolean;
  onAttempt?: (attempt: ToolAttempt) => void;
  /** Where verdicts are remembered (default: IndexedDB in a browser, none in Node). */
  verdicts?: VerdictStore | null;
  /**
   * `first` (default): keep the first candidate that passes — the ladder is already ordered by
   * measured speed. `fastest`: check every candidate and keep the fastest that passes (by the
   * tokens/s its check measured; it must beat the first by {@link PREFER_FASTER_BY}). Costs every
   * candidate's download, and two models are resident while the next is checked.
   */
  pick?: 'first' | 'fastest';
  /**
   * After the quantized files, also try the unquantized ones the source serves (fp32; fp16 on a GPU
   * with shader-f16): several times the download, for a model whose quantizations all fail.
   */
  fullPrecision?: boolean;
}

/** What loadForTools needs from the environment; injected so the search is testable anywhere. */
export interface LoadForToolsDeps<C extends CheckedChat = CheckedChat> {
  caps: RuntimeCapabilities;
  available: string[] | undefined;
  load(source: ModelSource, candidate: LoadCandidate): Promise<C>;
  verdicts: VerdictStore | null;
  /** How messages and verdict keys name the source (the engine's `describeSource`). */
  describe(source: ModelSource): string;
  /** Whether a load failed for the source as a whole (not found, unreachable, no access): no other quantization is worth a try. */
  isSourceFailure(error: unknown): boolean;
}

/**
 * Loads the first quantization that really calls tools on this machine: each candidate is loaded,
 * self-checked, and kept only if it calls the tool and answers from its result (and, with
 * `allowForcing: false`, without priming). A rejected candidate is disposed before the next is
 * loaded, so one model is resident at a time. The verdict is remembered, so the next visit loads
 * the proven quantization without searching.
 */
export async function loadForTools<C extends CheckedChat>(source: ModelSource, options: LoadForToolsOptions, deps: LoadForToolsDeps<C>): Promise<C> {
  const allowForcing = options.allowForcing ?? true;
  const key = verdictKey(deps.describe(source), deps.caps);
  const ladder = candidatesFor(deps.caps, deps.available);
  if (options.fullPrecision) {
    const full = fullPrecisionCandidates(deps.caps).filter((c) => !deps.available || deps.available.includes(c.dtype));
    ladder.push(...full.filter((c) => !ladder.some((l) => l.device === c.device && l.dtype === c.dtype)));
  }
  const remembered = options.dtype || options.dtypes ? undefined : await deps.verdicts?.get(key);
  if (remembered?.ok && (allowForcing || !remembered.needed_forcing)) {
    try {
      const chat = await deps.load(source, { device: remembered.device as LoadCandidate['device'], dtype: remembered.dtype });
      options.onAttempt?.({ dtype: remembered.dtype, device: remembered.device, ok: true, detail: remembered.detail, remembered: true });
      chat.toolCheck = remembered;
      return chat;
    } catch {
      // The remembered files are gone or changed: search again.
    }
  }

  const candidates: LoadCandidate[] = options.dtype
    ? [ladder.find((c) => c.dtype === options.dtype) ?? { device: deps.caps.runtime === 'node' ? 'cpu' : 'wasm', dtype: options.dtype }]
    : options.dtypes
      ? options.dtypes.map((dtype) => ladder.find((c) => c.dtype === dtype) ?? { device: deps.caps.runtime === 'node' ? 'cpu' : 'wasm', dtype })
      : ladder;
  const failures: string[] = [];
  /** Whether some attempt loaded and answered without calling: only then is the model's size the likely cause. */
  let answeredWithoutCalling = false;
  let kept: { chat: C; candidate: LoadCandidate; tokensPerSecond: number; needed_forcing: boolean; detail: string } | undefined;
  for (const candidate of candidates) {
    let chat: C | undefined;
    try {
      chat = await deps.load(source, candidate);
      const check = await chat.selfCheck();
      const pass = check.ok && (allowForcing || !check.needed_forcing);
      const detail = check.ok && !pass ? `${check.detail} Rejected: calls only when primed, and allowForcing is false.` : check.detail;
      const tokensPerSecond = check.tokensPerSecond ?? 0;
      options.onAttempt?.({ ...candidate, ok: pass, detail, ...(tokensPerSecond ? { tokensPerSecond } : {}) });
      if (pass) {
        const better = !kept || (options.pick === 'fastest' && tokensPerSecond >= kept.tokensPerSecond * PREFER_FASTER_BY);
        if (better) {
          await kept?.chat.dispose();
          kept = { chat, candidate, tokensPerSecond, needed_forcing: check.needed_forcing, detail };
          chat = undefined;
        }
        if (options.pick !== 'fastest') break;
      } else {
        answeredWithoutCalling = true;
        failures.push(`  ${candidate.dtype}: ${detail}`);
      }
    } catch (error) {
      // A missing model or an unreachable hub fails every quantization alike: say it once.
      if (deps.isSourceFailure(error)) {
        await kept?.chat.dispose();
        throw error;
      }
      // The whole cause, every line of it (a load error lists each file tried), indented under its dtype.
      const detail = `could not be loaded: ${(error instanceof Error ? error.message : String(error)).trim().replace(/\n/g, '\n    ')}`;
      options.onAttempt?.({ ...candidate, ok: false, detail });
      failures.push(`  ${candidate.dtype}: ${detail}`);
    }
    await chat?.dispose();
  }
  if (kept) {
    const { candidate, needed_forcing, detail, tokensPerSecond } = kept;
    await deps.verdicts?.set(key, {
      dtype: candidate.dtype,
      device: candidate.device,
      ok: true,
      needed_forcing,
      detail,
      checkedAt: new Date().toISOString(),
      ...(tokensPerSecond ? { tokensPerSecond } : {}),
    });
    return kept.chat;
  }
  const where = deps.caps.runtime === 'node' ? 'cpu' : deps.caps.webgpu ? 'WebGPU' : 'WASM';
  throw new NoToolCallingDtypeError(
    `No dtype of ${deps.describe(source)} could call a tool on ${where}. Tried:\n${failures.join('\n') || '  (no quantization this device can run is served)'}\n` +
      (answeredWithoutCalling
        ? 'Models below ~0.5B generally cannot pick a tool name from a list; try onnx-community/Qwen3-0.6B-ONNX.'
        : failures.length
          ? 'None of them loaded, so whether the model calls tools is not known: the errors above say why.'
          : 'Give a dtype the source serves, or a model with quantized files.'),
  );
}
