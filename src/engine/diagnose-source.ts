import {
  DEFAULT_HUB_URL,
  ModelAccessError,
  ModelFilesError,
  ModelNotFoundError,
  ModelUnreachableError,
  TOKENIZER_FILES,
  describeSource,
  hubFileAddress,
  type ModelLoadError,
  type ModelSource,
} from './model-source.ts';

/** What {@link diagnoseSource} needs: how to fetch, and which hub a `{ hub }` source means. */
export interface DiagnoseOptions {
  fetch?: typeof fetch;
  /** The hub's address (a mirror, or a test's loopback server); default huggingface.co. */
  hubUrl?: string;
  /** Whether the browser says it is online (`navigator.onLine`); undefined where nobody says. */
  online?: boolean;
}

/** The files a model folder needs whatever the quantization: when one fails, every quantization fails. */
const SHARED_FILES = /\b(?:config\.json|tokenizer\.json|tokenizer_config\.json|generation_config\.json)\b/;

function configAddress(source: ModelSource, hubUrl: string): string | undefined {
  if ('hub' in source) return hubFileAddress(hubUrl, source.hub, source.revision, 'config.json');
  if ('url' in source) return `${source.url.replace(/\/+$/, '')}/config.json`;
  return undefined;
}

const hostOf = (address: string) => {
  try {
    return new URL(address).host;
  } catch {
    return address;
  }
};

/**
 * The folders a server offers next to a missing one: the app server answers a mount's own address
 * (`/models/`) with `{ "folders": [...] }` when asked for JSON. Empty when it does not say.
 */
async function servedFolders(url: string, fetchImpl: typeof fetch): Promise<string[]> {
  const parent = url.replace(/\/+$/, '').replace(/[^/]*$/, '');
  try {
    const response = await fetchImpl(parent, { headers: { Accept: 'application/json' } });
    if (!response.ok || !(response.headers.get('content-type') ?? '').includes('json')) return [];
    const body = (await response.json()) as { folders?: unknown };
    return Array.isArray(body.folders) ? body.folders.filter((f): f is string => typeof f === 'string') : [];
  } catch {
    return [];
  }
}

/**
 * Finds out whether a load failed because of the source as a whole, by asking for its
 * `config.json` once: the hub or server cannot be reached, the model or folder does not exist, or
 * it is private. Returns that error, in words that say what to do, or undefined when the source
 * answers (the failure was the quantization's own). Picked files and Node folders are not asked.
 */
export async function diagnoseSource(source: ModelSource, options: DiagnoseOptions = {}): Promise<ModelLoadError | undefined> {
  const fetchImpl = options.fetch ?? globalThis.fetch?.bind(globalThis);
  const hubUrl = options.hubUrl ?? DEFAULT_HUB_URL;
  const address = configAddress(source, hubUrl);
  if (!address || !fetchImpl) return undefined;
  const name = describeSource(source);
  let response: Response;
  try {
    response = await fetchImpl(address, { method: 'HEAD' });
  } catch (error) {
    const why = error instanceof Error ? error.message : String(error);
    const offline = options.online === false ? 'this device is offline' : 'the connection failed';
    if ('hub' in source) {
      return new ModelUnreachableError(
        `Cannot reach the model hub (${hostOf(hubUrl)}) to download ${name}: ${offline} (${why}). Connect and load again, or load a model folder or .zip from this computer.`,
      );
    }
    return new ModelUnreachableError(
      `Cannot reach ${hostOf(address)} to load ${name}: ${offline} (${why}). Check that the server is running, then load again.`,
    );
  }
  if (response.status === 401 || response.status === 403) {
    return 'hub' in source
      ? new ModelAccessError(
          `${name} is private or gated on the hub (${response.status} for config.json): it cannot be downloaded without signing in. Use a public ONNX model such as onnx-community/Qwen3-0.6B-ONNX.`,
        )
      : new ModelAccessError(`${hostOf(address)} refused ${name} (${response.status} for config.json). Check that the server allows reading this folder.`);
  }
  if (answersMissing(response)) {
    const status = response.ok ? 'a web page instead of config.json' : `${response.status} for config.json`;
    if ('hub' in source) {
      const revision = source.revision ? ` at revision ${source.revision}` : '';
      return new ModelNotFoundError(
        `There is no model ${source.hub}${revision} on the hub (${hostOf(hubUrl)} answered ${status}). Check the id: it reads owner/name, e.g. onnx-community/Qwen3-0.6B-ONNX.`,
      );
    }
    const url = 'url' in source ? source.url : address;
    const folders = await servedFolders(new URL(url, address).href, fetchImpl);
    const offered = folders.length ? ` This server serves: ${folders.join(', ')}.` : ' Check the address.';
    return new ModelNotFoundError(`The model folder ${name} was not found on this server (${status}).${offered}`);
  }
  if (!response.ok) return new ModelUnreachableError(`${hostOf(address)} answered ${response.status} for ${name}'s config.json. Try again later.`);
  return missingTokenizerFile(source, address, fetchImpl);
}

/** A server's answer for a file it does not have: gone, or a web page in its place (a development server's fallback). */
function answersMissing(response: Response): boolean {
  const html = (response.headers.get('content-type') ?? '').includes('text/html');
  return response.status === 404 || response.status === 410 || (response.ok && html);
}

/**
 * A folder whose config.json answers but whose tokenizer files do not: transformers.js then fails deep in its
 * tokenizer ("Cannot read properties of undefined (reading 'tokenizer_class')"), naming no file. Said by name here.
 */
async function missingTokenizerFile(source: ModelSource, configUrl: string, fetchImpl: typeof fetch): Promise<ModelLoadError | undefined> {
  for (const file of TOKENIZER_FILES) {
    const address = configUrl.replace(/config\.json$/, file);
    let response: Response;
    try {
      response = await fetchImpl(address, { method: 'HEAD' });
    } catch {
      return undefined;
    }
    if (answersMissing(response)) {
      const status = response.ok ? 'a web page instead' : String(response.status);
      return new ModelFilesError(
        `${describeSource(source)} has no ${file} (${status}): a transformers.js model folder needs config.json, ${TOKENIZER_FILES.join(' and ')} next to onnx/. Every quantization needs it, so no other was tried: add the tokenizer files to the folder, or load the model from the hub.`,
      );
    }
  }
  return undefined;
}

/**
 * Why a failed attempt should end the load: the source as a whole failed ({@link diagnoseSource}),
 * or the attempt failed on a file every quantization shares. Undefined: try the next quantization.
 */
export async function sourceWideFailure(source: ModelSource, error: unknown, options: DiagnoseOptions = {}): Promise<ModelLoadError | undefined> {
  const diagnosed = await diagnoseSource(source, options);
  if (diagnosed) return diagnosed;
  const message = error instanceof Error ? error.message : String(error);
  if (SHARED_FILES.test(message)) {
    return new ModelFilesError(
      `Could not load ${describeSource(source)}: ${message.split('\n')[0]} Every quantization needs this file, so no other was tried. Check the model folder.`,
    );
  }
  return undefined;
}
