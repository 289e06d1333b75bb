/**
 * The models this browser keeps (transformers.js's Cache Storage cache): which, how big, when last used
 * and with what verdict, and deleting one. Loaded when the user opens the list.
 */

/** The Cache Storage cache transformers.js keeps model files in (its `env.cacheKey`). */
const MODEL_CACHE = 'transformers-cache';

/** One model's files on this device. */
export interface DeviceModel {
  /** How `?model=` names it: a hub id, or the address of its folder. */
  address: string;
  /** A short name for the list. */
  label: string;
  bytes: number;
  files: number;
  /** ISO time it last loaded here, when the page noted it. */
  usedAt?: string;
  /** Its last self-check here, when it had one. */
  verdict?: { ok: boolean; dtype: string; device: string };
}

/** What the page notes of a model each time it loads: when, and its verdict. */
export interface ModelUse {
  usedAt: string;
  verdict?: { ok: boolean; dtype: string; device: string };
}

/**
 * The model a cached file belongs to: `<org>/<name>` of a hub address (`…/<org>/<name>/resolve/<rev>/…`,
 * on the hub or a mirror), else the folder above `onnx/` or the file (a model folder a server serves).
 * Files that are no model's (runtime code) belong to none.
 */
export function modelOfFile(url: string, origin: string): { address: string; label: string } | undefined {
  let parsed: URL;
  try {
    parsed = new URL(url);
  } catch {
    return undefined;
  }
  if (/\.(?:m?js|wasm)$/.test(parsed.pathname)) return undefined;
  const hub = /^\/([^/]+)\/([^/]+)\/resolve\/[^/]+\//.exec(parsed.pathname);
  if (hub) return { address: `${decodeURIComponent(hub[1] ?? '')}/${decodeURIComponent(hub[2] ?? '')}`, label: decodeURIComponent(hub[2] ?? '') };
  const folder = parsed.pathname.includes('/onnx/') ? parsed.pathname.slice(0, parsed.pathname.indexOf('/onnx/')) : parsed.pathname.replace(/\/[^/]*$/, '');
  const address = parsed.origin === origin ? folder : `${parsed.origin}${folder}`;
  return { address, label: decodeURIComponent(folder.split('/').filter(Boolean).at(-1) ?? address) };
}

async function sizeOf(response: Response): Promise<number> {
  const length = Number(response.headers.get('content-length'));
  if (Number.isFinite(length) && length > 0) return length;
  return (await response.blob()).size;
}

/** Every model with files in the cache, largest first, with what the page noted of each. */
export async function listDeviceModels(uses: Readonly<Record<string, ModelUse>>, origin = location.origin): Promise<DeviceModel[]> {
  if (typeof caches === 'undefined') return [];
  const cache = await caches.open(MODEL_CACHE);
  const models = new Map<string, DeviceModel>();
  for (const request of await cache.keys()) {
    const model = modelOfFile(request.url, origin);
    const response = model && (await cache.match(request));
    if (!model || !response) continue;
    const entry = models.get(model.address) ?? { ...model, bytes: 0, files: 0 };
    entry.bytes += await sizeOf(response);
    entry.files += 1;
    models.set(model.address, entry);
  }
  return [...models.values()]
    .map((model) => {
      const use = uses[model.address];
      return { ...model, ...(use?.usedAt ? { usedAt: use.usedAt } : {}), ...(use?.verdict ? { verdict: use.verdict } : {}) };
    })
    .sort((a, b) => b.bytes - a.bytes);
}

/** Deletes a model's files from the cache; resolves with the bytes freed. */
export async function deleteDeviceModel(address: string, origin = location.origin): Promise<number> {
  if (typeof caches === 'undefined') return 0;
  const cache = await caches.open(MODEL_CACHE);
  let freed = 0;
  for (const request of await cache.keys()) {
    if (modelOfFile(request.url, origin)?.address !== address) continue;
    const response = await cache.match(request);
    if (response) freed += await sizeOf(response);
    await cache.delete(request);
  }
  return freed;
}

/** What the browser lets this site store, and whether it keeps it until the user deletes it. */
export async function storageState(): Promise<{ usage?: number; quota?: number; persisted: boolean }> {
  const storage = globalThis.navigator?.storage;
  if (!storage) return { persisted: false };
  const [estimate, persisted] = await Promise.all([storage.estimate().catch(() => ({}) as StorageEstimate), storage.persisted?.().catch(() => false) ?? false]);
  return { ...(estimate.usage === undefined ? {} : { usage: estimate.usage }), ...(estimate.quota === undefined ? {} : { quota: estimate.quota }), persisted };
}
