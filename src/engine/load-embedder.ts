import { pipeline } from '@huggingface/transformers';
import { errorMessage } from '../shared/errors.ts';
import { describeSource, ModelLoadError } from './model-source.ts';
import { useSource } from './use-source.ts';
import type { LoadProgress } from './transformers-engine.ts';
import type { EmbedderInfo, EmbeddingModel } from './embedding-model.ts';

/** A loaded sentence-embedding model. */
export interface LoadedEmbedder {
  embed(texts: readonly string[]): Promise<number[][]>;
  readonly info: EmbedderInfo;
  dispose(): Promise<void>;
}

/** Options of {@link loadEmbedder}. */
export interface LoadEmbedderOptions {
  /** The hub a `{ hub }` source downloads from (a mirror); default huggingface.co. */
  hubUrl?: string | undefined;
  /** `cpu` in Node, `wasm` in a page (the chat model keeps the GPU). */
  device: 'cpu' | 'wasm';
  onProgress?: ((event: LoadProgress) => void) | undefined;
}

/** Texts per model call: a long `tools.js` is embedded in batches, so padding stays short and memory flat. */
const BATCH = 32;

/**
 * Loads `model` as a transformers.js feature-extraction pipeline and returns an embedder that
 * pools and L2-normalises. It shares `env` with the chat model's load, which is done by then: the
 * source is pointed at just for this load, and the files are cached the same way (the browser's
 * Cache API for hub and served sources).
 */
export async function loadEmbedder(model: EmbeddingModel, options: LoadEmbedderOptions): Promise<LoadedEmbedder> {
  const started = performance.now();
  const resolved = useSource(model.source, options.hubUrl);
  const dtype = model.dtype ?? 'q8';
  const sizes = new Map<string, number>();
  let extractor: Awaited<ReturnType<typeof pipeline<'feature-extraction'>>>;
  try {
    extractor = await pipeline('feature-extraction', resolved.id, {
      dtype,
      device: options.device,
      ...(resolved.revision ? { revision: resolved.revision } : {}),
      progress_callback: (event: unknown) => {
        const e = event as LoadProgress;
        if (e.file && typeof e.total === 'number') sizes.set(e.file, e.total);
        options.onProgress?.(e);
      },
    });
  } catch (error) {
    throw new ModelLoadError(
      `The tool-search model ${describeSource(model.source)} (${dtype}) could not be loaded: ${errorMessage(error)}. ` +
        'Answers rank tools by their words alone until it loads. Check the address (or the hub mirror), or turn semantic tool search off ' +
        '(toolSelection.semantic = false; in the page: Settings, Find tools by meaning).',
    );
  }
  const pooling = model.pooling ?? 'mean';
  const embed = async (texts: readonly string[]): Promise<number[][]> => {
    const vectors: number[][] = [];
    for (let at = 0; at < texts.length; at += BATCH) {
      const output = await extractor([...texts.slice(at, at + BATCH)], { pooling, normalize: true });
      vectors.push(...(output.tolist() as number[][]));
    }
    return vectors;
  };
  const probe = await embed(['tools']);
  return {
    embed,
    info: {
      model: describeSource(model.source),
      dtype,
      dimensions: probe[0]?.length ?? 0,
      loadMs: Math.round(performance.now() - started),
      bytes: [...sizes.values()].reduce((sum, n) => sum + n, 0),
    },
    dispose: () => extractor.dispose(),
  };
}
