// ONNX Runtime's profiler prints through console.log, bound when the runtime starts: capture it
// from the start, and only while a profile is being taken.
window.profileLines = null;
const passThrough = console.log.bind(console);
console.log = (...parts) => (window.profileLines ? window.profileLines.push(parts.join(' ')) : passThrough(...parts));

const median = (values) => [...values].sort((a, b) => a - b)[values.length >> 1];

let ort;
async function runtime(threads) {
  ort ??= await import('/ort/ort.webgpu.min.mjs');
  ort.env.wasm.numThreads = threads;
  ort.env.wasm.wasmPaths = { mjs: '/ort/ort-wasm-simd-threaded.mjs', wasm: '/ort/ort-wasm-simd-threaded.wasm' };
  return ort;
}

/** One decode step's inputs at `context` tokens of past, for a model with `shape`. */
function decodeFeeds(ort, session, { layers, kvHeads, headDim }, context) {
  const feeds = {};
  const kv = () => new ort.Tensor('float32', new Float32Array(kvHeads * context * headDim), [1, kvHeads, context, headDim]);
  for (let i = 0; i < layers; i++) {
    feeds[`past_key_values.${i}.key`] = kv();
    feeds[`past_key_values.${i}.value`] = kv();
  }
  feeds.input_ids = new ort.Tensor('int64', BigInt64Array.from([42n]), [1, 1]);
  feeds.attention_mask = new ort.Tensor('int64', new BigInt64Array(context + 1).fill(1n), [1, context + 1]);
  if (session.inputNames.includes('position_ids')) feeds.position_ids = new ort.Tensor('int64', BigInt64Array.from([BigInt(context)]), [1, 1]);
  if (session.inputNames.includes('num_logits_to_keep')) feeds.num_logits_to_keep = new ort.Tensor('int64', BigInt64Array.from([1n]), []);
  return feeds;
}

let stepSession;
/** One step's inputs per context, made once: tens of MB of KV each at a long context. */
const stepFeeds = {};
/** Opens the session `decodeSteps` times, on `threads` threads (one runtime per page). */
window.openSession = async ({ modelUrl, threads }) => {
  const ort = await runtime(threads);
  const bytes = new Uint8Array(await (await fetch(modelUrl)).arrayBuffer());
  stepSession = await ort.InferenceSession.create(bytes, { executionProviders: ['wasm'] });
  return crossOriginIsolated;
};

/** The time (ms) of each of `steps` decode steps at `context`, after `warmup` untimed ones. */
window.decodeSteps = async ({ shape, context, warmup, steps }) => {
  stepFeeds[context] ??= decodeFeeds(ort, stepSession, shape, context);
  const feeds = stepFeeds[context];
  for (let i = 0; i < warmup; i++) await stepSession.run(feeds);
  const times = [];
  for (let i = 0; i < steps; i++) {
    const started = performance.now();
    await stepSession.run(feeds);
    times.push(performance.now() - started);
  }
  return times;
};

/**
 * ONNX Runtime's own profile of decode steps: per node, its kernel time and whether it handed
 * work to the thread pool (a non-empty block size); and each run's wall time.
 */
window.profileSteps = async ({ modelUrl, shape, threads, context, warmup, steps }) => {
  const ort = await runtime(threads);
  const bytes = new Uint8Array(await (await fetch(modelUrl)).arrayBuffer());
  const session = await ort.InferenceSession.create(bytes, { executionProviders: ['wasm'], enableProfiling: true });
  const feeds = decodeFeeds(ort, session, shape, context);
  for (let i = 0; i < warmup + steps; i++) await session.run(feeds);
  window.profileLines = [];
  session.endProfiling();
  const lines = window.profileLines.join('\n').split('\n');
  window.profileLines = null;
  await session.release();
  const events = [];
  for (const line of lines) {
    const text = line.trim().replace(/,$/, '');
    if (text.startsWith('{')) events.push(JSON.parse(text));
  }
  const runs = events.filter((e) => e.name === 'model_run').slice(-steps);
  const inRun = (e) => runs.some((run) => e.ts >= run.ts && e.ts <= run.ts + run.dur);
  const nodes = {};
  for (const e of events) {
    if (e.cat !== 'Node' || !e.name.endsWith('_kernel_time') || !inRun(e)) continue;
    const stats = e.args.thread_scheduling_stats;
    const parallel = typeof stats === 'object' && (stats.main_thread?.block_size?.length ?? 0) > 0;
    nodes[e.name] ??= { op: e.args.op_name, us: 0, parallel: false };
    const node = nodes[e.name];
    node.us += e.dur / runs.length;
    node.parallel ||= parallel;
  }
  return { runUs: median(runs.map((r) => r.dur)), nodes };
};

/**
 * What ONNX Runtime Web does with every output after a step: a fresh typed array, then a copy out
 * of WASM memory. Timed for the present KV of `shape` at each context, against copying into
 * arrays that are reused (their pages already mapped).
 */
window.kvCopy = ({ shape, contexts, repeats }) => {
  const result = {};
  for (const context of contexts) {
    const count = shape.layers * 2;
    const floats = shape.kvHeads * context * shape.headDim;
    const bytes = floats * 4;
    const memory = new WebAssembly.Memory({ initial: Math.ceil((bytes * count) / 65536) + 1, maximum: 65536, shared: true });
    const heap = new Uint8Array(memory.buffer);
    heap.fill(1);
    const reused = Array.from({ length: count }, () => new Float32Array(floats));
    const fresh = [];
    const into = [];
    for (let r = 0; r < repeats; r++) {
      let started = performance.now();
      for (let i = 0; i < count; i++) new Uint8Array(new Float32Array(floats).buffer).set(heap.subarray(i * bytes, (i + 1) * bytes));
      fresh.push(performance.now() - started);
      started = performance.now();
      for (let i = 0; i < count; i++) new Uint8Array(reused[i].buffer).set(heap.subarray(i * bytes, (i + 1) * bytes));
      into.push(performance.now() - started);
    }
    result[context] = { megabytes: (bytes * count) / 1e6, freshMs: median(fresh), reusedMs: median(into) };
  }
  return result;
};

document.body.dataset.ready = 'true';
