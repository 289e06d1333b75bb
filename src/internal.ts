/**
 * Everything the root entry holds, and what only this repository's app, CLI and tests use: defaults and
 * bounds, the family table, the self-check's parts, the picked-model store, the tool index. Not part of
 * the package's exports; a library user imports the root entry.
 */
export * from './index.ts';
export * from './tools/index.ts';
export * from './web/index.ts';
export { ANSWER_DEFAULTS, MIN_PROMPT_TOKENS } from './loop/answer-request.ts';
export { CALL_SOURCES } from './loop/call-types.ts';
export { FULL_MEMORY, SHORTENED_RESULT_CHARS } from './loop/fit-context.ts';
export { DEFAULT_CONTEXT_LENGTH, WASM_KV_BYTES } from './engine/context-budget.ts';
export { SOURCE_FAILURES, describeSource } from './engine/model-source.ts';
export { checkLoadOptions } from './engine/load-options.ts';
export { describeRuntime, loadLadder, type DetectOptions } from './engine/device-ladder.ts';
export type { EmbedProgress, EmbedReply, EmbedRequest, EmbedderInfo, EmbeddingModel } from './engine/embedding-model.ts';
export { registerErrorClass } from './shared/errors.ts';
export { abortError } from './shared/abort.ts';
export { byDeadline } from './shared/by-deadline.ts';
export {
  BoundedWorker,
  inThreadWorker,
  serveBoundedWork,
  WorkLimitError,
  type HostCaller,
  type WorkBounds,
  type WorkHandlers,
  type WorkPort,
  type WorkScope,
} from './shared/bounded-work.ts';
export { hiddenFromReaders } from './shared/hidden-markup.ts';
export { NO_WORKER_MESSAGE } from './worker/worker-client.ts';
export { ANSWER_NOW_PROMPT } from './loop/prompts.ts';
export { memoryOf, metricsOf, offeredNames } from './loop/step-log.ts';
export { FAMILY_MODULES, MODEL_FAMILIES, familyById } from './engine/families.ts';
export type { FamilyModule, TemplateRule } from './engine/families/family-module.ts';
export { probeTemplate } from './engine/template-dialect.ts';
export type { RawTemplateRender, TemplateDialect, TemplateProbe, TemplateShape } from './engine/template-dialect.ts';
export { detectFamily, type DetectedFamily, type ModelFiles } from './engine/detect-family.ts';
export type { ArgumentSlot, ThinkingSwitch } from './engine/model-family.ts';
export { CALL_MARKERS, stripThinking, ToolCallStreamFilter } from './toolcalls/index.ts';
export { runSelfCheck } from './check/self-check.ts';
export { verdictKey } from './check/verdict-store.ts';
export { freshToken, modelCheckQuestions, selfCheckQuestion, type CheckQuestion } from './check/check-questions.ts';
export { filesFromZip, forgetPickedModel, listPickedModels, rememberPickedModel } from './engine/picked-models.ts';
