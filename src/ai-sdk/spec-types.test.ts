import type { LanguageModelV4, LanguageModelV4GenerateResult, LanguageModelV4StreamPart, ProviderV4 } from '@ai-sdk/provider';
import type { LanguageModel } from 'ai';
import { describe, expectTypeOf, it } from 'vitest';
import { createNexus, type NexusProvider } from './create-nexus.ts';
import type { NexusLanguageModel } from './nexus-language-model.ts';

// Checked by the compiler (`npm run typecheck`): the provider, its models and their parts are the specification's own types.
describe("the provider against the AI SDK specification's types", () => {
  it('is a ProviderV4 whose models are LanguageModelV4, usable wherever the SDK takes a LanguageModel', () => {
    expectTypeOf<NexusProvider>().toExtend<ProviderV4>();
    expectTypeOf<NexusLanguageModel>().toExtend<LanguageModelV4>();
    expectTypeOf<NexusLanguageModel>().toExtend<LanguageModel>();
    expectTypeOf(createNexus()('onnx-community/Qwen3-0.6B-ONNX')).toEqualTypeOf<NexusLanguageModel>();
  });

  it('returns the specification’s result and stream part types', () => {
    expectTypeOf<Awaited<ReturnType<NexusLanguageModel['doGenerate']>>>().toEqualTypeOf<LanguageModelV4GenerateResult>();
    expectTypeOf<Awaited<ReturnType<NexusLanguageModel['doStream']>>['stream']>().toEqualTypeOf<ReadableStream<LanguageModelV4StreamPart>>();
  });
});
