/**
 * browser-llm-nexus: reliable tool calling for small language models in the browser.
 *
 * @packageDocumentation
 */
export {
  NexusChat,
  ChatBusyError,
  ChatDisposedError,
  InvalidHistoryError,
  type NexusChatOptions,
  type NexusLoadOptions,
} from './nexus.ts';
export { MIN_PROMPT_TOKENS, STRATEGIES, TOOL_CHOICES, ToolTemplateError, UnknownToolError } from './loop/answer-request.ts';
export { ContextOverflowError, FULL_MEMORY, SHORTENED_RESULT_CHARS, type MemoryView } from './loop/fit-context.ts';
export { contextBudget, DEFAULT_CONTEXT_LENGTH, WASM_KV_BYTES, type ContextBudget, type ContextSource } from './engine/context-budget.ts';
export type { KvCachePath, KvLayout } from './engine/appended-kv-session.ts';
export {
  DEFAULT_HUB_URL,
  DEFAULT_MODEL,
  ModelAccessError,
  ModelFilesError,
  ModelLoadError,
  ModelNotFoundError,
  ModelUnreachableError,
  SOURCE_FAILURES,
  describeSource,
  type ModelFile,
  type ModelSource,
} from './engine/model-source.ts';
export { DEVICES, DTYPES, checkLoadOptions } from './engine/load-options.ts';
export {
  UnsupportedDtypeError,
  describeRuntime,
  detectBrowserCapabilities,
  loadLadder,
  type DetectOptions,
  type LoadCandidate,
  type RuntimeCapabilities,
} from './engine/device-ladder.ts';
export type { LoadProgress } from './engine/transformers-engine.ts';
export {
  DEFAULT_EMBEDDING_MODEL,
  EmbeddingModelError,
  type EmbedProgress,
  type EmbedReply,
  type EmbedRequest,
  type EmbedderInfo,
  type EmbeddingModel,
  type ToolSearchStatus,
} from './engine/embedding-model.ts';
export type { LoadAttempt } from './engine/load-engine.ts';
export type { AnswerRunner, AnswerRequest, AnswerBridge, AnswerOutcome } from './loop/answer-runner.ts';
export { InvalidOptionError, ModelWorkerError, NexusError, registerErrorClass, type SerializedError } from './shared/errors.ts';
export type {
  ChatMessage,
  ChatToolCall,
  Engine,
  EngineInfo,
  GenerateOptions,
  GenerateResult,
  RenderOptions,
} from './engine/engine.ts';
// The scripted engine and its matchers are test helpers: `browser-llm-nexus/testing`.
export { abortError, isAbortError } from './shared/abort.ts';
export { NO_WORKER_MESSAGE, useModelWorker, type WorkerFactory, type WorkerLoadOptions } from './worker/worker-client.ts';
export type {
  AnswerMetrics,
  ApprovalHandler,
  CallSource,
  CallStatus,
  ChatAnswer,
  ChatEvents,
  ChatOptions,
  ForcedCallEvent,
  MemoryTrim,
  RoundInfo,
  EscalateInfo,
  Strategy,
  ToolCallRecord,
  ToolChoice,
  Toolkit,
} from './loop/types.ts';
export { answerFromSteps, messagesOf, type RungId, type Step, type TokenUsage } from './loop/step-log.ts';
export type { PrepareStepInfo, PrepareStepResult } from './loop/prepare-step.ts';
export {
  ANSWER_NOW_PROMPT,
  DEFAULT_ANSWER_PROMPT,
  DEFAULT_SYSTEM_PROMPT,
  WORKED_EXAMPLE_SYSTEM_PROMPT,
} from './loop/prompts.ts';
export { FAMILY_MODULES, MODEL_FAMILIES, familyById } from './engine/families.ts';
export type { FamilyModule, TemplateRule } from './engine/families/family-module.ts';
export { probeTemplate } from './engine/template-dialect.ts';
export type { RawTemplateRender, TemplateDialect, TemplateProbe, TemplateShape } from './engine/template-dialect.ts';
export { detectFamily, type DetectedFamily, type ModelFiles } from './engine/detect-family.ts';
export type { ArgumentSlot, FamilyId, FamilyInfo, ModelFamily, ThinkingSwitch } from './engine/model-family.ts';
export type { StopCondition, StopRule } from './loop/stop-conditions.ts';
export * from './tools/index.ts';
export { CALL_MARKERS, parseToolCalls, stripThinking, ToolCallStreamFilter } from './toolcalls/index.ts';
export type { ParseOptions, ParseResult, ToolCall } from './toolcalls/types.ts';
export { runSelfCheck, type ToolCallCheck } from './check/self-check.ts';
export { NoToolCallingDtypeError, type LoadForToolsOptions, type ToolAttempt } from './check/load-for-tools.ts';
export { memoryVerdictStore, verdictKey, type ToolVerdict, type VerdictStore } from './check/verdict-store.ts';
export { freshToken, modelCheckQuestions, selfCheckQuestion, type CheckQuestion } from './check/check-questions.ts';
export * from './web/index.ts';
export {
  filesFromZip,
  forgetPickedModel,
  listPickedModels,
  modelSourceFromZip,
  pickedModel,
  rememberPickedModel,
  ZipReadError,
  type ZipLimits,
  type ZipReadFailure,
} from './engine/picked-models.ts';
