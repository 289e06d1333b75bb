import { weightSessions, weightsFile } from './device-ladder.ts';
import { DEFAULT_HUB_URL, hubFileAddress, type ModelSource, TOKENIZER_FILES } from './model-source.ts';

/** One file a load will read, and its size in bytes (0 when the server did not say). */
export interface PlannedFile {
  file: string;
  total: number;
}

/** What {@link planDownload} needs: how to fetch, and which hub a `{ hub }` source means. */
export interface PlanOptions {
  fetch?: typeof fetch;
  hubUrl?: string;
}

/** The files transformers.js reads for a causal LM besides its weights. */
const SMALL_FILES = ['config.json', 'generation_config.json', ...TOKENIZER_FILES];

/** How many external-data chunks a weights file has, as transformers.js reads `use_external_data_format`. */
function externalChunks(config: unknown, weights: string): number {
  const setting = (config as { 'transformers.js_config'?: { use_external_data_format?: unknown } } | undefined)?.['transformers.js_config']
    ?.use_external_data_format;
  if (!setting) return 0;
  if (typeof setting === 'object') {
    const bySuffix = setting as Record<string, unknown>;
    return Number(bySuffix[weights] ?? bySuffix[weights.replace(/\.onnx$/, '').replace(/_[^_]+$/, '')] ?? 0) || 0;
  }
  return Number(setting) || 0;
}

/** The files a load of `dtype` reads, in the order it reads them (each session's weights and their data chunks). */
export function filesFor(dtype: string, config?: unknown): string[] {
  const weights = weightSessions(config).flatMap((session) => {
    const file = weightsFile(session, dtype);
    const chunks = externalChunks(config, file);
    return [`onnx/${file}`, ...Array.from({ length: chunks }, (_, i) => `onnx/${file}_data${i === 0 ? '' : `_${i}`}`)];
  });
  return [...SMALL_FILES, ...weights];
}

/** The config.json among picked files, parsed; undefined where there is none or it is not JSON. */
async function pickedConfig(files: readonly { path: string; data: Blob }[]): Promise<unknown> {
  const file = files.find((f) => f.path === 'config.json' || f.path.endsWith('/config.json'));
  try {
    return file ? (JSON.parse(await file.data.text()) as unknown) : undefined;
  } catch {
    return undefined;
  }
}

/**
 * The files a load will download and their sizes, known before the first byte of the weights:
 * config.json is read once (it says whether the weights have external-data chunks), then every
 * file is asked for its headers at the same time — one round trip, not one per file. A file the
 * server does not have is left out (generation_config.json is optional). Picked files are measured
 * directly. Undefined where nothing can be asked (a Node folder, or the server did not answer).
 */
export async function planDownload(source: ModelSource, dtype: string, options: PlanOptions = {}): Promise<PlannedFile[] | undefined> {
  if ('files' in source) {
    const config = await pickedConfig(source.files);
    return filesFor(dtype, config).flatMap((file) => {
      const picked = source.files.find((f) => f.path === file || f.path.endsWith(`/${file}`));
      return picked ? [{ file, total: picked.data.size }] : [];
    });
  }
  if ('path' in source) return undefined;
  const fetchImpl = options.fetch ?? globalThis.fetch?.bind(globalThis);
  if (!fetchImpl) return undefined;
  const address = (file: string) =>
    'hub' in source ? hubFileAddress(options.hubUrl ?? DEFAULT_HUB_URL, source.hub, source.revision, file) : `${source.url.replace(/\/+$/, '')}/${file}`;
  try {
    const configResponse = await fetchImpl(address('config.json'));
    const configText = configResponse.ok ? await configResponse.text() : undefined;
    let config: unknown;
    try {
      config = configText === undefined ? undefined : JSON.parse(configText);
    } catch {
      config = undefined;
    }
    const sized = await Promise.all(
      filesFor(dtype, config).map(async (file) => {
        // Already read: its size is its length.
        if (file === 'config.json') return configText === undefined ? undefined : { file, total: new TextEncoder().encode(configText).length };
        const response = await fetchImpl(address(file), { method: 'HEAD' });
        if (!response.ok || (response.headers.get('content-type') ?? '').includes('text/html')) return undefined;
        // The hub's LFS files say their real size in x-linked-size; plain servers in content-length.
        const total = Number(response.headers.get('x-linked-size') ?? response.headers.get('content-length') ?? 0) || 0;
        return { file, total };
      }),
    );
    return sized.filter((entry): entry is PlannedFile => entry !== undefined);
  } catch {
    return undefined;
  }
}
