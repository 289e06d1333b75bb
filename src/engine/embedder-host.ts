import { embeddingModelKey, type EmbedProgress, type EmbedReply, type EmbedRequest } from './embedding-model.ts';
import { loadEmbedder, type LoadedEmbedder } from './load-embedder.ts';

/**
 * Keeps the one embedding model a realm has loaded and loads it on the first request: a page
 * that never has many tools never downloads it. Asking for another model frees the first. A
 * failed load is not kept, so a later request (after the user fixed the address) tries again.
 */
export function embedderHost(device: 'cpu' | 'wasm'): {
  embed(request: EmbedRequest, onProgress?: (event: EmbedProgress) => void): Promise<EmbedReply>;
  dispose(): Promise<void>;
} {
  let current: { key: string; loaded: Promise<LoadedEmbedder> } | undefined;
  return {
    async embed(request, onProgress) {
      const key = `${embeddingModelKey(request.model)}|${request.hubUrl ?? ''}`;
      if (current?.key !== key) {
        const previous = current;
        const loaded = loadEmbedder(request.model, { device, hubUrl: request.hubUrl, onProgress });
        current = { key, loaded };
        loaded.catch(() => {
          if (current?.loaded === loaded) current = undefined;
        });
        void previous?.loaded.then((p) => p.dispose()).catch(() => undefined);
      }
      const embedder = await current.loaded;
      return { vectors: await embedder.embed(request.texts), info: embedder.info };
    },
    async dispose() {
      const loaded = current?.loaded;
      current = undefined;
      await loaded?.then((p) => p.dispose()).catch(() => undefined);
    },
  };
}
