import { ModelRegistry, env } from '@huggingface/transformers';
import { probeDtypes } from './probe-dtypes.ts';
import { ModelLoadError, describeSource, type ModelFile, type ModelSource } from './model-source.ts';
import type { ResolvedModel } from './transformers-engine.ts';

/** Splits a folder into its parent (with a trailing slash) and its last segment. */
function splitFolder(folder: string): { parent: string; name: string } {
  const trimmed = folder.replace(/\/+$/, '');
  const at = trimmed.lastIndexOf('/');
  return { parent: `${trimmed.slice(0, at + 1)}`, name: trimmed.slice(at + 1) };
}

/**
 * A fetch that refuses what a development server sends for a missing file: its `index.html`
 * with status 200. transformers.js would otherwise try to parse the page as JSON or ONNX (and
 * cache it), and the user would see a parse error about `<` instead of the missing file's name.
 */
function guardedFetch(inner: typeof fetch = globalThis.fetch.bind(globalThis)): typeof fetch {
  return async (input, init) => {
    const response = await inner(input, init);
    const url = typeof input === 'string' ? input : input instanceof URL ? input.href : input.url;
    const type = response.headers.get('content-type') ?? '';
    if (response.ok && type.includes('text/html') && !/\.html?(?:$|\?)/.test(url)) {
      throw new ModelLoadError(
        `${url} answered with an HTML page instead of the file: the file is missing from the model folder. Check that the folder holds it.`,
      );
    }
    return response;
  };
}

/** A `customCache` that answers transformers.js from picked files, matched by path suffix. */
function filesCache(files: readonly ModelFile[]): { match(key: string): Promise<Response | undefined>; put(): Promise<void> } {
  return {
    async match(key: string) {
      const path = decodeURIComponent(key.split('?')[0] ?? key);
      const file = files.find((f) => path.endsWith(`/${f.path}`) || path === f.path);
      if (!file) return undefined;
      return new Response(file.data, { headers: { 'content-length': String(file.data.size) } });
    },
    async put() {
      // Picked files are their own storage.
    },
  };
}

/** transformers.js' own settings for the hub, restored whenever a hub source is used again. */
const HUB = { host: env.remoteHost, pathTemplate: env.remotePathTemplate, fetch: env.fetch };

/**
 * Points transformers.js' global `env` at a source and returns the id to load. `env` is global
 * to the realm, so one source at a time — the worker owns one model.
 *
 * @param hubUrl - the hub a `{ hub }` source downloads from (a mirror); default huggingface.co.
 */
export function useSource(source: ModelSource, hubUrl?: string): ResolvedModel {
  env.useCustomCache = false;
  env.customCache = null;
  env.remoteHost = hubUrl ? hubUrl.replace(/\/*$/, '/') : HUB.host;
  env.remotePathTemplate = HUB.pathTemplate;
  env.fetch = HUB.fetch;
  if ('hub' in source) {
    env.allowRemoteModels = true;
    env.allowLocalModels = false;
    return {
      id: source.hub,
      label: describeSource(source),
      ...(source.revision ? { revision: source.revision } : {}),
      tokenizerFrom: { kind: 'hub', address: `${env.remoteHost}${source.hub}@${source.revision ?? 'main'}` },
    };
  }
  if ('path' in source) {
    const { parent, name } = splitFolder(source.path);
    env.allowRemoteModels = false;
    env.allowLocalModels = true;
    env.localModelPath = parent;
    return { id: name, label: source.path, tokenizerFrom: { kind: 'path', address: source.path } };
  }
  if ('url' in source) {
    // Served as if it were a hub: transformers.js skips its "local" path for absolute URLs, and
    // the remote path caches the files in the browser under their own address.
    // A relative address ('/models/x') is resolved against the page or worker: transformers.js
    // would take a relative host for a local path and never fetch.
    const base = (globalThis as { location?: { href?: string } }).location?.href;
    const { parent, name } = splitFolder(base ? new URL(source.url, base).href : source.url);
    env.allowRemoteModels = true;
    env.allowLocalModels = false;
    env.remoteHost = parent;
    env.remotePathTemplate = '{model}/';
    env.fetch = guardedFetch(HUB.fetch as typeof fetch) as typeof env.fetch;
    return { id: name, label: source.url, tokenizerFrom: { kind: 'url', address: `${parent}${name}` } };
  }
  const name = source.name ?? 'picked-model';
  env.allowRemoteModels = false;
  env.allowLocalModels = true;
  env.localModelPath = '/picked-models/';
  env.useCustomCache = true;
  env.customCache = filesCache(source.files) as never;
  return { id: name, label: source.name ?? 'picked files' };
}

/**
 * The quantizations a source serves: the hub is asked through transformers.js' model registry,
 * anything else is probed without it ({@link probeDtypes}). Undefined when that cannot be known
 * (the whole ladder is then tried).
 */
export async function availableDtypes(source: ModelSource, hubUrl?: string): Promise<string[] | undefined> {
  if (!('hub' in source)) return probeDtypes(source);
  try {
    // The registry reads the hub's address from `env`.
    useSource(source, hubUrl);
    return await ModelRegistry.get_available_dtypes(source.hub, source.revision ? { revision: source.revision } : {});
  } catch {
    return undefined;
  }
}
