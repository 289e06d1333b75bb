import { describe, expect, it } from 'vitest';

/** Why an import failed: vitest wraps a mock's own error, which it keeps as the cause. */
const whyNot = (specifier: string) =>
  import(/* @vite-ignore */ specifier).then(
    () => 'it loaded',
    (error: Error & { cause?: Error }) => error.cause?.message ?? error.message,
  );

describe('the unit tier (issue 55: tiers guarded, not hand-kept)', () => {
  it('cannot load transformers.js or ONNX Runtime: a unit file that starts loading a model fails, naming where it belongs', async () => {
    expect(await whyNot('@huggingface/transformers')).toMatch(/^A unit test loaded transformers\.js .* add it to MODEL_TESTS in tests\/tiers\.ts\.$/);
    expect(await whyNot('onnxruntime-node')).toMatch(/^A unit test loaded ONNX Runtime \(onnxruntime-node\)/);
  });
});
