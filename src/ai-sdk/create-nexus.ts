import { NoSuchModelError, type ProviderV4 } from '@ai-sdk/provider';
import { DEFAULT_MODEL, describeSource, type ModelSource } from '../engine/model-source.ts';
import type { LoadProgress } from '../engine/transformers-engine.ts';
import { NexusChat, type NexusLoadOptions } from '../nexus/index.ts';
import { NexusLanguageModel, type NexusModelSettings } from './nexus-language-model.ts';

/** Settings of {@link createNexus}: how models load, and the per-model settings every model starts with. */
export interface NexusProviderSettings extends NexusModelSettings {
  /** How a model loads (device, dtype, threads, hub address, progress…): the options of `NexusChat.load`. */
  load?: NexusLoadOptions;
}

/** A model's settings: the provider's, overridden per model. */
export interface NexusModelOptions extends NexusModelSettings {
  load?: NexusLoadOptions;
  /** A chat already loaded (or made with `NexusChat.withEngine`) to use instead of loading one. */
  chat?: NexusChat;
}

/** The provider: call it with a model source for a `LanguageModelV4`; a `ProviderV4` for the SDK's provider registry. */
export interface NexusProvider extends ProviderV4 {
  /**
   * A model for the AI SDK (`generateText`, `streamText`, `useChat`…), loaded on its first call.
   * @param source - a hub id (`'onnx-community/Qwen3-0.6B-ONNX'`), or a `ModelSource` (`{ path }`, `{ url }`, `{ hub, revision }`); default Qwen3-0.6B.
   * @param options - per-model settings.
   */
  (source?: ModelSource | string, options?: NexusModelOptions): NexusLanguageModel;
  /** The same by hub id, as the AI SDK's provider registry calls it (`registry.languageModel('nexus:<hub id>')`). */
  languageModel(modelId: string): NexusLanguageModel;
  /** None: this provider runs chat models (`NoSuchModelError`). */
  embeddingModel(modelId: string): never;
  /** None: this provider runs chat models (`NoSuchModelError`). */
  imageModel(modelId: string): never;
}

/** A hub id as a source; anything else as given. */
function sourceOf(source: ModelSource | string | undefined): ModelSource {
  if (source === undefined) return DEFAULT_MODEL;
  return typeof source === 'string' ? { hub: source } : source;
}

/**
 * Creates the AI SDK provider for models running here — in the page (in the project's model
 * worker, WebGPU or WASM) or in Node — through this project's tool loop.
 * @param settings - how models load and the per-model defaults.
 */
export function createNexus(settings: NexusProviderSettings = {}): NexusProvider {
  const { load: providerLoad, ...providerModel } = settings;
  const model = (source?: ModelSource | string, options: NexusModelOptions = {}) => {
    const { load, chat, ...modelSettings } = options;
    const resolved = sourceOf(source);
    const listeners = new Set<(event: LoadProgress) => void>();
    const loadOptions = { ...providerLoad, ...load };
    let loading: Promise<NexusChat> | undefined;
    const loaded = (onProgress?: (event: LoadProgress) => void) => {
      // Whoever asks while the load runs hears its progress from then on.
      if (onProgress) {
        listeners.add(onProgress);
        void loading?.finally(() => listeners.delete(onProgress));
      }
      loading ??= (
        chat
          ? Promise.resolve(chat)
          : NexusChat.load(resolved, {
              ...loadOptions,
              onProgress: (event) => {
                loadOptions.onProgress?.(event);
                for (const listener of listeners) listener(event);
              },
            })
      )
        // The prompts of the provider's settings go with each turn (see NexusLanguageModel), a given chat's own untouched.
        .finally(() => listeners.clear());
      return loading;
    };
    return new NexusLanguageModel(chat ? chat.info.model : describeSource(resolved), loaded, { ...providerModel, ...modelSettings });
  };
  const none =
    (modelType: 'embeddingModel' | 'imageModel') =>
    (modelId: string): never => {
      throw new NoSuchModelError({ modelId, modelType, message: `The nexus provider runs chat models only: no ${modelType} '${modelId}'.` });
    };
  return Object.assign(model, {
    languageModel: (modelId: string) => model(modelId),
    embeddingModel: none('embeddingModel'),
    imageModel: none('imageModel'),
    specificationVersion: 'v4' as const,
  });
}

/** The provider with default settings: `nexus('onnx-community/Qwen3-0.6B-ONNX')`. */
export const nexus: NexusProvider = createNexus();
