/**
 * `browser-llm-nexus/testing`: test your own code built on the loop without weights — an engine that
 * replays recorded model outputs (rendering Qwen3's chat template byte for byte, or any real chat
 * template through `ScriptedEngine.withTemplate`) and matchers for the prompts the loop asks.
 *
 * @packageDocumentation
 */
export {
  ScriptedEngine,
  ScriptExhaustedError,
  estimateTokens,
  type PromptMatcher,
  type ScriptedGeneration,
  type ScriptedOutput,
  type ScriptedTemplateOptions,
} from '../engine/scripted-engine.ts';
export { QWEN3_PRIMED_PREFIX, when } from './script-matchers.ts';
export { DelegatingEngine } from './delegating-engine.ts';
export { createToolContext } from '../tools/tool-context.ts';
