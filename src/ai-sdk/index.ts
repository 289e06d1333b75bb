/**
 * `browser-llm-nexus/ai-sdk`: this project's tool loop as an AI SDK provider (`LanguageModelV4`).
 *
 * ```ts
 * import { generateText, stepCountIs } from 'ai';
 * import { nexus } from 'browser-llm-nexus/ai-sdk';
 * const { text } = await generateText({ model: nexus('onnx-community/Qwen3-0.6B-ONNX'), tools, stopWhen: stepCountIs(5), prompt });
 * ```
 * @packageDocumentation
 */
export { createNexus, nexus, type NexusProvider, type NexusProviderSettings, type NexusModelOptions } from './create-nexus.ts';
export { NexusLanguageModel, ModelCannotCallToolsError, type NexusModelSettings } from './nexus-language-model.ts';
export { convertPrompt, type ConvertedPrompt } from './prompt-messages.ts';
export { NexusChatTransport, type NexusChatTransportOptions, type NexusStatusData } from './nexus-chat-transport.ts';
