const ort = await import('/ort/ort.wasm.min.mjs');
ort.env.wasm.numThreads = 1;
ort.env.wasm.wasmPaths = { mjs: '/ort/ort-wasm-simd-threaded.mjs', wasm: '/ort/ort-wasm-simd-threaded.wasm' };

/** One decode step with `context` tokens of past; `preallocate` passes every present output as a tensor filled with a sentinel. */
window.decodeStep = async ({ modelUrl, layers, kvHeads, headDim, context, preallocate }) => {
  const session = await ort.InferenceSession.create(modelUrl, { executionProviders: ['wasm'] });
  const kv = (length, fill) => new ort.Tensor('float32', new Float32Array(kvHeads * length * headDim).fill(fill), [1, kvHeads, length, headDim]);
  const feeds = {
    input_ids: new ort.Tensor('int64', BigInt64Array.from([42n]), [1, 1]),
    attention_mask: new ort.Tensor('int64', new BigInt64Array(context + 1).fill(1n), [1, context + 1]),
  };
  if (session.inputNames.includes('num_logits_to_keep')) feeds.num_logits_to_keep = new ort.Tensor('int64', BigInt64Array.from([1n]), []);
  if (session.inputNames.includes('position_ids')) feeds.position_ids = new ort.Tensor('int64', BigInt64Array.from([BigInt(context)]), [1, 1]);
  const past = [];
  for (let i = 0; i < layers; i++) {
    for (const kind of ['key', 'value']) {
      const tensor = kv(context, 0.5);
      past.push(tensor);
      feeds[`past_key_values.${i}.${kind}`] = tensor;
    }
  }
  const fetches = {};
  const preallocated = [];
  if (preallocate) {
    fetches.logits = null;
    for (let i = 0; i < layers; i++) {
      for (const kind of ['key', 'value']) {
        const tensor = kv(context + 1, -7);
        preallocated.push(tensor);
        fetches[`present.${i}.${kind}`] = tensor;
      }
    }
  }
  const results = preallocate ? await session.run(feeds, fetches) : await session.run(feeds);
  const present = results['present.0.key'];
  const report = {
    presentIsTheTensorGiven: preallocate ? present === preallocated[0] : false,
    // The past the step was given, still in the caller's array: a copy went into WASM memory.
    pastUntouched: past.every((t) => t.data.every((x) => x === 0.5)),
    // What the caller's present array holds after the step: the sentinel means nothing was written back.
    presentHoldsSentinel: present.data.every((x) => x === -7),
    presentShape: present.dims,
    // A fresh array per output: not a view of WASM memory.
    presentOwnBuffer:
      !(present.data.buffer instanceof SharedArrayBuffer) && present.data.byteOffset === 0 && present.data.byteLength === present.data.buffer.byteLength,
  };
  await session.release();
  return report;
};
document.body.dataset.ready = 'true';
