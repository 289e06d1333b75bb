/**
 * How the KV cache travels between decode steps:
 * - `appended`: the appended layout (tests/fixtures/build-tiny-qwen3.py `--appended-kv`). The model
 *   reads a sequence-major past in place and returns only the new tokens' keys and values, which
 *   {@link AppendedKvSession} appends to buffers it owns: nothing the size of the cache is
 *   allocated or returned per token.
 * - `present-on-gpu`: the published exports' layout on WebGPU. Each step's whole cache comes back
 *   (`present.*`) as GPU buffers that the next step reads where they are; nothing is read back.
 * - `present-copied`: the same layout on the CPU. ONNX Runtime copies the whole cache out into
 *   fresh arrays after every step (and, on WASM, in again before the next).
 * - `recurrent`: some layers keep a recurrent state instead of keys and values (Qwen3.5's linear
 *   attention). A state cannot be cut back to an earlier token, so a prompt reuses the cache only
 *   when it extends everything the cache holds; a retry of the same prompt is computed again.
 */
export type KvCachePath = 'appended' | 'present-on-gpu' | 'present-copied' | 'recurrent';

/** A model's KV layout: the published exports' (`present.*` outputs) or the appended one. */
export type KvLayout = 'present' | 'appended';

/** The part of an ONNX Runtime tensor this reads. */
export interface OrtTensorLike {
  readonly dims: readonly number[];
  readonly data: unknown;
}

/** The part of an ONNX Runtime `InferenceSession` that transformers.js uses. */
export interface OrtSessionLike {
  readonly inputNames: readonly string[];
  readonly outputNames: readonly string[];
  readonly inputMetadata?: readonly { name: string; shape?: readonly (number | string)[] }[];
  run(feeds: Record<string, OrtTensorLike>, options?: unknown): Promise<Record<string, OrtTensorLike>>;
}

/** Makes a tensor of the session's own ONNX Runtime (the one transformers.js loaded). */
export type MakeTensor = (type: 'int64' | 'float32', data: BigInt64Array | Float32Array, dims: number[]) => OrtTensorLike;

const PAST = /^past_(key|value)s\.(\d+)$/;
/** Rows the buffers start with, beyond the leading zero row; they double as the cache grows. */
const INITIAL_ROWS = 256;

/** Whether a session's model has the appended KV layout (its outputs are the new tokens' keys and values). */
export function hasAppendedKv(session: Pick<OrtSessionLike, 'outputNames'>): boolean {
  return session.outputNames.includes('new_keys.0');
}

/** Thrown when a step asks to continue a cache at a position it does not hold. */
export class KvCacheGapError extends Error {
  override name = 'KvCacheGapError';
}

/**
 * Wraps a session whose model has the appended KV layout, so transformers.js sees a model without a
 * cache input (it never builds, copies or returns one) while every run reuses what is cached.
 *
 * A run whose positions start at 0 carries the whole sequence: the longest prefix the buffers hold
 * is kept and only the rest computed (at least the last token, for its logits). A run starting at
 * position `p` continues the sequence there (the decode step). Ids are recorded with the rows, so
 * a reused prefix is always the one that was computed. Logits are returned for the tokens computed.
 */
export class AppendedKvSession {
  /** Token ids whose keys and values rows 1… of the buffers hold. */
  private ids: number[] = [];
  private buffers: Float32Array[];
  private capacity = INITIAL_ROWS;
  private readonly layers: number;
  private readonly heads: number;
  private readonly headDim: number;
  private readonly rowSize: number;
  private readonly pastNames: string[];
  /** The output that carries each past input's new rows (`past_keys.3` → `new_keys.3`). */
  private readonly newNames: string[];
  private readonly hidden: Set<string>;

  /**
   * @param makeTensor - tensors of the session's own ONNX Runtime.
   * @param options.maxTokens - the most tokens the cache will hold (the context budget): the
   *   buffers double as they grow but never past it, so the last doubling does not reserve memory
   *   a conversation can never use. A longer sequence still fits (the buffers then grow to it).
   */
  constructor(
    private readonly session: OrtSessionLike,
    private readonly makeTensor: MakeTensor,
    private readonly options: { maxTokens?: number } = {},
  ) {
    this.pastNames = session.inputNames.filter((name) => PAST.test(name));
    this.newNames = this.pastNames.map((name) => name.replace('past_', 'new_'));
    this.layers = this.pastNames.length / 2;
    // A decode step is placed by its position: without position_ids every run would read as a whole new sequence.
    if (!session.inputNames.includes('position_ids')) {
      throw new Error(`A model with the appended KV layout needs a position_ids input (its inputs are ${session.inputNames.join(', ')}).`);
    }
    const shape = session.inputMetadata?.find((m) => m.name === 'past_keys.0')?.shape ?? [];
    const [, heads, headDim] = shape;
    if (typeof heads !== 'number' || typeof headDim !== 'number' || !this.layers) {
      throw new Error(
        `This model's past_keys.0 must be [past_sequence_length, kv_heads, head_dim] with fixed kv_heads and head_dim (it is [${shape.join(', ')}]).`,
      );
    }
    this.heads = heads;
    this.headDim = headDim;
    this.rowSize = heads * headDim;
    this.buffers = this.pastNames.map(() => new Float32Array((this.capacity + 1) * this.rowSize));
    this.hidden = new Set([...this.pastNames, ...this.newNames]);
  }

  /** How many tokens the cache holds. */
  get length(): number {
    return this.ids.length;
  }

  /** How many tokens the buffers have room for before they grow again. */
  get room(): number {
    return this.capacity;
  }

  /** The session as transformers.js should see it: the real one, without the cache's inputs and outputs. */
  asSession<S extends OrtSessionLike>(): S {
    const visible = (names: readonly string[]) => names.filter((name) => !this.hidden.has(name));
    const session = this.session as S;
    return Object.create(session, {
      inputNames: { value: visible(session.inputNames) },
      outputNames: { value: visible(session.outputNames) },
      inputMetadata: { value: session.inputMetadata?.filter((m) => !this.hidden.has(m.name)) },
      run: { value: (feeds: Record<string, OrtTensorLike>, options?: unknown) => this.run(feeds, options) },
    }) as S;
  }

  /** Forgets every cached token (the buffers are kept for the next sequence). */
  reset(): void {
    this.ids = [];
  }

  private async run(feeds: Record<string, OrtTensorLike>, options?: unknown): Promise<Record<string, OrtTensorLike>> {
    const inputIds = feeds.input_ids;
    if (!inputIds) throw new Error('A run of a model with the appended KV layout needs input_ids.');
    if (inputIds.dims[0] !== 1) throw new Error(`The appended KV layout runs one sequence at a time (batch size 1, not ${inputIds.dims[0]}).`);
    const fed = Array.from(inputIds.data as BigInt64Array, Number);
    const positions = feeds.position_ids ? Array.from(feeds.position_ids.data as BigInt64Array, Number) : undefined;
    const start = positions?.[0] ?? 0;
    let keep: number;
    if (start === 0) {
      keep = Math.min(commonPrefix(this.ids, fed), fed.length - 1);
    } else {
      if (start > this.ids.length) {
        throw new KvCacheGapError(`The KV cache holds ${this.ids.length} tokens; a step cannot continue it at position ${start}.`);
      }
      keep = start;
    }
    this.ids.length = keep;
    const skip = keep - start;
    const ids = fed.slice(skip);
    const run: Record<string, OrtTensorLike> = {};
    for (const name of this.session.inputNames) {
      if (this.hidden.has(name)) continue;
      if (name === 'input_ids') run[name] = this.makeTensor('int64', BigInt64Array.from(ids, BigInt), [1, ids.length]);
      else if (name === 'position_ids')
        run[name] = this.makeTensor(
          'int64',
          BigInt64Array.from(ids, (_, i) => BigInt(keep + i)),
          [1, ids.length],
        );
      else if (feeds[name]) run[name] = feeds[name];
    }
    const rows = keep + 1;
    this.pastNames.forEach((name, i) => {
      run[name] = this.makeTensor('float32', (this.buffers[i] as Float32Array).subarray(0, rows * this.rowSize), [rows, this.heads, this.headDim]);
    });
    const output = await this.session.run(run, options);
    this.grow(keep + ids.length);
    this.newNames.forEach((name, i) => {
      const rowsOut = output[name]?.data as Float32Array | undefined;
      if (!rowsOut) throw new Error(`The model did not return ${name}.`);
      (this.buffers[i] as Float32Array).set(rowsOut, rows * this.rowSize);
    });
    this.ids.push(...ids);
    return Object.fromEntries(Object.entries(output).filter(([name]) => !this.hidden.has(name)));
  }

  /** Makes room for `tokens` tokens (plus the leading zero row), doubling so growth costs O(1) a token. */
  private grow(tokens: number): void {
    if (tokens <= this.capacity) return;
    while (this.capacity < tokens) this.capacity *= 2;
    this.capacity = Math.max(tokens, Math.min(this.capacity, this.options.maxTokens ?? Number.POSITIVE_INFINITY));
    const used = (this.ids.length + 1) * this.rowSize;
    this.buffers = this.buffers.map((old) => {
      const next = new Float32Array((this.capacity + 1) * this.rowSize);
      next.set(old.subarray(0, used));
      return next;
    });
  }
}

function commonPrefix(a: readonly number[], b: readonly number[]): number {
  const n = Math.min(a.length, b.length);
  let i = 0;
  while (i < n && a[i] === b[i]) i++;
  return i;
}
