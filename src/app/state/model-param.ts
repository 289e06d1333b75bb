import type { ModelSource } from '../../internal.ts';

/**
 * Reads the model named in the page address (`?model=…`): a path or URL is a folder served over
 * HTTP (`/models/tiny-random-qwen3`), anything else a hub id (`onnx-community/Qwen3-0.6B-ONNX`,
 * optionally `@revision`). Undefined when the address names none.
 */
export function modelFromAddress(search: string, base: string): ModelSource | undefined {
  const value = new URLSearchParams(search).get('model')?.trim();
  if (!value) return undefined;
  if (/^(?:\/|\.\/|https?:\/\/)/.test(value)) return { url: new URL(value, base).href };
  const [hub, revision] = value.split('@');
  return revision ? { hub: hub ?? value, revision } : { hub: value };
}
