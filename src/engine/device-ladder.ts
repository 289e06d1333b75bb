import { NexusError, registerErrorClass } from '../shared/errors.ts';

/** What the runtime offers, found before anything is loaded. */
export interface RuntimeCapabilities {
  /** `'node'` runs onnxruntime-node on the CPU; `'browser'` runs onnxruntime-web. */
  runtime: 'node' | 'browser';
  /** A WebGPU adapter was granted. */
  webgpu: boolean;
  /** The adapter has `shader-f16` (needed by every float16 model file). */
  shaderF16: boolean;
  /**
   * Only a software ("fallback") WebGPU adapter was offered, such as SwiftShader. It is not a GPU:
   * the model would run slower than on WASM, so it is left unused unless asked for.
   */
  fallbackAdapter?: boolean;
}

/** Options of {@link detectBrowserCapabilities}. */
export interface DetectOptions {
  /** Use a software (fallback) WebGPU adapter anyway (default false: such a machine runs WASM). */
  allowFallbackAdapter?: boolean;
}

/** One sentence saying which device the runtime will use, and why. */
export function describeRuntime(caps: RuntimeCapabilities): string {
  if (caps.runtime === 'node') return 'Node: the model runs on the CPU (onnxruntime-node).';
  if (caps.webgpu) {
    const where = caps.fallbackAdapter ? 'the software WebGPU adapter you chose (slow: it is not a GPU)' : 'the GPU';
    return `WebGPU is available: the model will run on ${where}${caps.shaderF16 ? ' (q4f16)' : ' (q4; this adapter has no shader-f16)'}.`;
  }
  if (caps.fallbackAdapter) {
    return 'Only a software WebGPU adapter is available here (no GPU): the model will run on WASM, which is faster than software WebGPU. You can choose the software adapter in settings.';
  }
  return 'No WebGPU adapter: the model will run on WASM (slower). Chrome with a GPU runs it several times faster.';
}

/** One way to load a model: a device and a quantization. */
export interface LoadCandidate {
  device: 'webgpu' | 'wasm' | 'cpu';
  dtype: string;
}

/** Thrown for a device/dtype pair that is known not to work. */
export class UnsupportedDtypeError extends NexusError {
  override readonly name = 'UnsupportedDtypeError';
}

registerErrorClass(UnsupportedDtypeError, 'UnsupportedDtypeError');

/**
 * Decode speed measured at Qwen3-0.6B's real size on this project's 2-core machine by
 * `npm run bench -- --real-size` (random weights of the exact shape, in the published exports'
 * layout; decode timed after a warm-up), tokens/s: the ladder tries the faster quantization first on
 * each CPU device. On WASM (2 threads) ONNX Runtime Web's 4-bit MatMulNBits path decodes 6× slower
 * than dynamic int8 (MatMulInteger): it dequantizes every weight on every pass. So q8 goes first
 * there. In Node the two are close (q4 6.4–9.9 and q8 5.7–8.0 over runs), and q4 stays first: it is
 * no slower and its file is 30% smaller.
 */
const MEASURED_DECODE: Readonly<Record<'wasm' | 'cpu', Readonly<Record<string, number>>>> = {
  wasm: { q8: 5.94, q4: 0.96 },
  cpu: { q4: 9.87, q8: 8.04 },
};

/** Candidates of one CPU device, fastest measured first. */
function byMeasuredSpeed(device: 'wasm' | 'cpu', dtypes: readonly string[]): LoadCandidate[] {
  const speed = MEASURED_DECODE[device];
  return [...dtypes].sort((a, b) => (speed[b] ?? 0) - (speed[a] ?? 0)).map((dtype) => ({ device, dtype }));
}

/**
 * The order to try quantizations in, best first. WebGPU with `shader-f16` → q4f16; WebGPU without
 * it → q4; on the CPU devices by {@link MEASURED_DECODE}: WASM q8 then q4, Node q4 then q8 then fp32
 * (float16 files are unreliable on the CPU provider). q8 is never tried on WebGPU: it is known to
 * produce gibberish there.
 */
export function loadLadder(caps: RuntimeCapabilities): LoadCandidate[] {
  // fp32 last in Node whatever its speed: four times the download and memory for the same answers.
  if (caps.runtime === 'node') return [...byMeasuredSpeed('cpu', ['q4', 'q8']), { device: 'cpu', dtype: 'fp32' }];
  const wasm = byMeasuredSpeed('wasm', ['q4', 'q8']);
  if (!caps.webgpu) return wasm;
  const gpu: LoadCandidate[] = caps.shaderF16
    ? [
        { device: 'webgpu', dtype: 'q4f16' },
        { device: 'webgpu', dtype: 'q4' },
      ]
    : [{ device: 'webgpu', dtype: 'q4' }];
  return [...gpu, ...wasm];
}

/**
 * The unquantized files, tried after the ladder when a search asks for them: several times the
 * download, for a model whose quantizations all fail. fp16 only on a GPU with shader-f16.
 */
export function fullPrecisionCandidates(caps: RuntimeCapabilities): LoadCandidate[] {
  if (caps.runtime === 'node') return [];
  const gpu: LoadCandidate[] = caps.webgpu
    ? [...(caps.shaderF16 ? [{ device: 'webgpu' as const, dtype: 'fp16' }] : []), { device: 'webgpu', dtype: 'fp32' }]
    : [];
  return [...gpu, { device: 'wasm', dtype: 'fp32' }];
}

/** The ladder, limited to the quantizations a source actually serves (all of them when unknown). */
export function candidatesFor(caps: RuntimeCapabilities, available?: readonly string[]): LoadCandidate[] {
  const ladder = loadLadder(caps);
  return available ? ladder.filter((c) => available.includes(c.dtype)) : ladder;
}

/**
 * Checks a dtype the caller asked for, and picks the device for it. Rejects the combinations that
 * load but do not work, naming what to use instead.
 */
export function candidateForDtype(caps: RuntimeCapabilities, dtype: string, device?: string): LoadCandidate {
  const float16 = dtype === 'fp16' || dtype.endsWith('f16');
  if (caps.runtime === 'node') {
    if (device && device !== 'cpu')
      throw new UnsupportedDtypeError(`In Node the model runs on the CPU; device '${device}' is not available. Use device 'cpu'.`);
    return { device: 'cpu', dtype };
  }
  const chosen = device ?? (caps.webgpu && dtype !== 'q8' && (!float16 || caps.shaderF16) ? 'webgpu' : 'wasm');
  if (chosen === 'webgpu') {
    if (!caps.webgpu) throw new UnsupportedDtypeError("This browser has no WebGPU adapter. Use device 'wasm' (slower), or enable WebGPU.");
    if (dtype === 'q8') throw new UnsupportedDtypeError("q8 on WebGPU is known to produce gibberish. Use 'q4' or 'q4f16' on WebGPU, or q8 on 'wasm'.");
    if (float16 && !caps.shaderF16) throw new UnsupportedDtypeError(`'${dtype}' needs the WebGPU feature shader-f16, which this GPU lacks. Use 'q4' instead.`);
  }
  if (chosen !== 'webgpu' && chosen !== 'wasm') throw new UnsupportedDtypeError(`Unknown device '${chosen}'. Use 'webgpu' or 'wasm' in a browser.`);
  return { device: chosen, dtype };
}

/** The dtype names transformers.js knows, with the file each loads (`onnx/model{suffix}.onnx`). */
export const DTYPE_FILES: Readonly<Record<string, string>> = {
  fp32: 'model.onnx',
  fp16: 'model_fp16.onnx',
  q8: 'model_quantized.onnx',
  int8: 'model_int8.onnx',
  uint8: 'model_uint8.onnx',
  q4: 'model_q4.onnx',
  q4f16: 'model_q4f16.onnx',
  bnb4: 'model_bnb4.onnx',
};

/**
 * The ONNX sessions a causal LM's weights come in, as transformers.js loads them: one `model`, or,
 * for a multimodal model it loads text-only (an `…ForConditionalGeneration` with a `text_config`:
 * Qwen3.5, Gemma 4), `embed_tokens` and `decoder_model_merged`.
 */
export function weightSessions(config: unknown): string[] {
  const c = config as { architectures?: unknown; text_config?: unknown } | undefined;
  const architecture = Array.isArray(c?.architectures) ? String(c.architectures[0] ?? '') : '';
  return architecture.endsWith('ForConditionalGeneration') && c?.text_config ? ['embed_tokens', 'decoder_model_merged'] : ['model'];
}

/** The file `session` loads at `dtype` (`model_q4.onnx`, `decoder_model_merged_q4.onnx`). */
export function weightsFile(session: string, dtype: string): string {
  const file = DTYPE_FILES[dtype] ?? `model_${dtype}.onnx`;
  return `${session}${file.slice('model'.length)}`;
}

/** The dtypes whose files are in a list of file names (paths under `onnx/` or bare names), single-session or not. */
export function dtypesInFiles(files: Iterable<string>): string[] {
  const names = new Set([...files].map((f) => f.split('/').pop() ?? f));
  return Object.keys(DTYPE_FILES).filter((dtype) => names.has(weightsFile('model', dtype)) || names.has(weightsFile('decoder_model_merged', dtype)));
}

/** A WebGPU adapter, as far as the ladder asks about it. */
interface GpuAdapterLike {
  features: ReadonlySet<string>;
  isFallbackAdapter?: boolean;
  info?: { isFallbackAdapter?: boolean };
}

/**
 * What the ladder reads of the browser's `navigator` (a page's or a worker's): its WebGPU entry, if any. Written
 * out (not the DOM's `Navigator`), so a Node project's types need no DOM library.
 */
export interface NavigatorWithGpu {
  readonly userAgent?: string;
  readonly gpu?: { requestAdapter(): Promise<GpuAdapterLike | null> };
}

/** Asks the browser what WebGPU offers; never throws. */
export async function detectBrowserCapabilities(
  nav: NavigatorWithGpu = navigator as NavigatorWithGpu,
  options: DetectOptions = {},
): Promise<RuntimeCapabilities> {
  const gpu = nav.gpu;
  try {
    const adapter = await gpu?.requestAdapter();
    if (!adapter) return { runtime: 'browser', webgpu: false, shaderF16: false };
    // Chrome reports a software adapter on `info` (newer) or on the adapter itself (older).
    const fallback = Boolean(adapter.info?.isFallbackAdapter ?? adapter.isFallbackAdapter);
    const shaderF16 = adapter.features.has('shader-f16');
    if (fallback && !options.allowFallbackAdapter) return { runtime: 'browser', webgpu: false, shaderF16: false, fallbackAdapter: true };
    return { runtime: 'browser', webgpu: true, shaderF16, ...(fallback ? { fallbackAdapter: true } : {}) };
  } catch {
    return { runtime: 'browser', webgpu: false, shaderF16: false };
  }
}
