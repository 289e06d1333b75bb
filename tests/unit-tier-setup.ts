/**
 * The unit tier's guard (issue 55: tiers were hand-kept lists, and nothing failed when a unit file started
 * loading a model): in a unit test, transformers.js and ONNX Runtime cannot be loaded at all — the first
 * import throws, naming the file to move. A file that needs a model belongs in MODEL_TESTS (tests/tiers.ts).
 */
import { vi } from 'vitest';

const { moved } = vi.hoisted(() => ({
  moved: (what: string) => () => {
    throw new Error(`A unit test loaded ${what}: a file that loads a model runs in the models tier — add it to MODEL_TESTS in tests/tiers.ts.`);
  },
}));

vi.mock('@huggingface/transformers', moved('transformers.js (@huggingface/transformers)'));
vi.mock('onnxruntime-node', moved('ONNX Runtime (onnxruntime-node)'));
vi.mock('onnxruntime-web', moved('ONNX Runtime (onnxruntime-web)'));
