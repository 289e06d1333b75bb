import type { RuntimeCapabilities } from '../engine/device-ladder.ts';

/** A remembered self-check verdict for one model on one machine and browser. */
export interface ToolVerdict {
  dtype: string;
  device: string;
  ok: boolean;
  needed_forcing: boolean;
  detail: string;
  /** ISO time of the check. */
  checkedAt: string;
  /** Generated tokens per second during the check: this quantization's speed on this device. */
  tokensPerSecond?: number;
}

/** Where verdicts are kept (IndexedDB in the page; anything with get/set elsewhere). */
export interface VerdictStore {
  get(key: string): Promise<ToolVerdict | undefined>;
  set(key: string, verdict: ToolVerdict): Promise<void>;
}

/**
 * The key of a verdict: the model and revision (`describeSource(source)`), and what this machine's
 * runtime offers (a verdict from a GPU with shader-f16 says nothing about one without).
 */
export function verdictKey(model: string, caps: RuntimeCapabilities): string {
  const runtime = caps.runtime === 'node' ? 'node-cpu' : caps.webgpu ? (caps.shaderF16 ? 'webgpu-f16' : 'webgpu') : 'wasm';
  return `tool-verdict:${model}:${runtime}`;
}

/** A store in memory, for Node and tests. */
export function memoryVerdictStore(): VerdictStore & { entries: Map<string, ToolVerdict> } {
  const entries = new Map<string, ToolVerdict>();
  return {
    entries,
    get: async (key) => entries.get(key),
    set: async (key, verdict) => {
      entries.set(key, verdict);
    },
  };
}

/** The browser's store: IndexedDB through idb-keyval, so a verdict outlives the tab. */
export async function indexedDbVerdictStore(): Promise<VerdictStore> {
  const { get, set } = await import('idb-keyval');
  return {
    get: (key) => get<ToolVerdict>(key),
    set: (key, verdict) => set(key, verdict),
  };
}
