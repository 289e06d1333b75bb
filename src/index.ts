/**
 * browser-llm-nexus: reliable tool calling for small language models in the browser.
 *
 * The root entry holds what a library user needs — the chat, its options and answers, tools and MCP,
 * the web tools, model sources, and every error it throws — each by name. The app, the CLI and the tests
 * reach the rest through `internal.ts`, which is not part of the package's exports.
 *
 * @packageDocumentation
 */

// The chat and its answers.
export { NexusChat, ChatBusyError, ChatDisposedError, InvalidHistoryError, type NexusChatOptions, type NexusLoadOptions } from './nexus/index.ts';
export { STRATEGIES, TOOL_CHOICES, ToolTemplateError, UnknownToolError } from './loop/answer-request.ts';
export { ContextOverflowError, type MemoryView } from './loop/fit-context.ts';
export { answerFromSteps, messagesOf, type RungId, type Step, type TokenUsage } from './loop/step-log.ts';
export type {
  AnswerMetrics,
  ApprovalHandler,
  CallSource,
  CallStatus,
  ChatAnswer,
  ChatEvents,
  ChatOptions,
  EscalateInfo,
  ForcedCallEvent,
  MemoryTrim,
  OpeningCall,
  RoundInfo,
  Strategy,
  ToolCallRecord,
  ToolChoice,
  Toolkit,
} from './loop/types.ts';
export type { PrepareStepInfo, PrepareStepResult } from './loop/prepare-step.ts';
export type { StopCondition, StopRule } from './loop/stop-conditions.ts';
export { DEFAULT_ANSWER_PROMPT, DEFAULT_SYSTEM_PROMPT, WORKED_EXAMPLE_SYSTEM_PROMPT } from './loop/prompts.ts';
export type { ApprovalRequest, ToolContext } from './tools/tool-context.ts';

// Models: where they come from, where they run, what they fit.
export {
  DEFAULT_HUB_URL,
  DEFAULT_MODEL,
  ModelAccessError,
  ModelFilesError,
  ModelLoadError,
  ModelNotFoundError,
  ModelUnreachableError,
  type ModelFile,
  type ModelSource,
} from './engine/model-source.ts';
export { DEVICES, DTYPES } from './engine/load-options.ts';
export { UnsupportedDtypeError, detectBrowserCapabilities, type LoadCandidate, type RuntimeCapabilities } from './engine/device-ladder.ts';
export { contextBudget, type ContextBudget, type ContextSource } from './engine/context-budget.ts';
export type { KvCachePath, KvLayout } from './engine/appended-kv-session.ts';
export type { LoadProgress } from './engine/transformers-engine.ts';
export type { LoadAttempt } from './engine/load-engine.ts';
export { DEFAULT_EMBEDDING_MODEL, EmbeddingModelError, type ToolSearchStatus } from './engine/embedding-model.ts';
export type { ChatMessage, ChatToolCall, Engine, EngineInfo, GenerateOptions, GenerateResult, RenderOptions } from './engine/engine.ts';
export type { FamilyId, FamilyInfo, ModelFamily } from './engine/model-family.ts';
export { modelSourceFromZip, pickedModel, ZipReadError, type ZipLimits, type ZipReadFailure } from './engine/picked-models.ts';
export { useModelWorker, type ModelWorkerLike, type WorkerFactory, type WorkerLoadOptions } from './worker/worker-client.ts';
export type { AnswerBridge, AnswerOutcome, AnswerRequest, AnswerRunner } from './loop/answer-runner.ts';

// Whether a model calls tools, measured on this machine.
export { NoToolCallingDtypeError, type LoadForToolsOptions, type ToolAttempt } from './check/load-for-tools.ts';
export type { ToolCallCheck } from './check/self-check.ts';
export { memoryVerdictStore, type ToolVerdict, type VerdictStore } from './check/verdict-store.ts';

// Tools, and MCP servers.
export {
  ToolRegistry,
  withDetails,
  type ToolReturn,
  loadTools,
  evalTools,
  DocumentIndex,
  ToolArgumentsError,
  ToolDefinitionError,
  ToolsFileError,
  connectMcp,
  mcpUserParts,
  McpConnectError,
  McpServers,
  mcpOAuthProvider,
  McpSamplingError,
  MCP_LOG_LEVELS,
  type ArgsOf,
  type DocumentPassage,
  type EvalToolsOptions,
  type IndexedDocument,
  type PassageHit,
  type PassageIndex,
  type SemanticEncoder,
  type LoadToolsOptions,
  type McpAppCall,
  type McpAppDomains,
  type McpAppResource,
  type McpAppToolResult,
  type McpClientHandlers,
  type McpClientServer,
  type McpConnection,
  type McpConnectOptions,
  type McpElicitation,
  type McpElicitationAnswer,
  type McpLogLevel,
  type McpOAuthOptions,
  type McpOAuthStore,
  type McpSamplingAnswer,
  type McpSamplingRequest,
  type McpServerEntry,
  type McpServerPhase,
  type McpServerStatus,
  type McpServersOptions,
  type ParameterNames,
  type ParametersInput,
  type RegisteredTool,
  type SamplingReport,
  type ToolHandler,
  type ToolOptions,
  type ToolRunResult,
  type ToolSchema,
  type ToolSelection,
  type ToolSelectionSettings,
  type ToolVectorStore,
  type ToolsFileFailure,
} from './tools/index.ts';

// Research on the web, through the companion proxy.
export {
  ProxyClient,
  ProxyUnavailableError,
  registerWebTools,
  WebResearch,
  type ResearchAnswerOptions,
  type ResearchOptions,
  type Source,
  type WebActivity,
  type WebStatus,
} from './web/index.ts';

// Reading tool calls out of text (also `browser-llm-nexus/toolcalls`).
export { parseToolCalls } from './toolcalls/index.ts';
export type { ParseOptions, ParseResult, ToolCall } from './toolcalls/types.ts';

// Errors every part shares, and stopping.
export { InvalidOptionError, ModelWorkerError, NexusError, type SerializedError } from './shared/errors.ts';
export { isAbortError } from './shared/abort.ts';
/** For an Engine of your own: a family's profile, and the outside marks it guards or drops (see Engine.render and Engine.generate). */
export { modelFamily, type TemplateFiles } from './engine/family-from-template.ts';
export { withoutOutsideMarks } from './shared/outside-text.ts';
