import { DTYPE_FILES, dtypesInFiles, weightsFile } from './device-ladder.ts';
import { DEFAULT_HUB_URL, hubFileAddress, type ModelSource } from './model-source.ts';

/**
 * The quantizations a source serves, found without loading transformers.js: from the file names
 * when the files are at hand, else by asking for each candidate file's headers. Undefined when the
 * source cannot be asked (then every candidate is tried, and a missing file fails its attempt).
 */
export async function probeDtypes(
  source: ModelSource,
  fetchImpl: typeof fetch = globalThis.fetch?.bind(globalThis),
  hubUrl: string = DEFAULT_HUB_URL,
): Promise<string[] | undefined> {
  if ('files' in source) return dtypesInFiles(source.files.map((f) => f.path));
  if ('path' in source) {
    const { readdir } = await import('node:fs/promises');
    try {
      return dtypesInFiles(await readdir(`${source.path.replace(/\/+$/, '')}/onnx`));
    } catch {
      return [];
    }
  }
  const address = (file: string) => ('hub' in source ? hubFileAddress(hubUrl, source.hub, source.revision, file) : `${source.url.replace(/\/+$/, '')}/${file}`);
  try {
    // All at once: one round trip on a slow connection, not one per quantization.
    // A dtype is served when its single-session file or its decoder (a multimodal model's) is there.
    const served = async (file: string) => {
      const response = await fetchImpl(address(`onnx/${file}`), { method: 'HEAD' });
      return response.ok && !(response.headers.get('content-type') ?? '').includes('text/html');
    };
    const answers = await Promise.all(
      Object.keys(DTYPE_FILES).map(async (dtype) => {
        const [single, decoder] = await Promise.all([served(weightsFile('model', dtype)), served(weightsFile('decoder_model_merged', dtype))]);
        return single || decoder ? dtype : undefined;
      }),
    );
    return answers.filter((dtype): dtype is string => dtype !== undefined);
  } catch {
    return undefined;
  }
}
