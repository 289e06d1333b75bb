/**
 * Tools: registration with shorthand schemas, the OpenAI envelopes, argument validation and
 * coercion, and loading a plain `tools.js` file.
 *
 * @packageDocumentation
 */
export { ToolArgumentsError, ToolDefinitionError, ToolsFileError, type ToolsFileFailure } from './errors.ts';
export { evalTools, loadTools, type EvalToolsOptions, type LoadToolsOptions } from './load-tools.ts';
export { ToolReturn, withDetails } from './tool-registry.ts';
export type { ApprovalRequest, ToolContext } from './tool-context.ts';
export {
  ToolRegistry,
  type RegisteredTool,
  type ToolHandler,
  type ToolOptions,
  type ToolRunFailure,
  type ToolRunResult,
  type ToolSnapshot,
} from './tool-registry.ts';
export {
  TOOL_NAME_PATTERN,
  assertToolName,
  type ArgsOf,
  type ExpandedProperty,
  type JsonType,
  type JsonValue,
  type ObjectSchema,
  type ObjectSchemaInput,
  type ParameterNames,
  type ParameterShorthand,
  type ParameterSpec,
  type ParametersInput,
  type PropertySchema,
  type ShorthandType,
  type ToolSchema,
  type ValueOfSpec,
} from './tool-schema.ts';
export { assertValidArguments, validateArguments, type ArgumentsResult, type ArgumentsTarget } from './validate-arguments.ts';
// The index itself loads with the first answer that has more tools than it offers (tool-offering.ts).
export type { Embedder, IndexedTool, RankedTool, ToolRanking } from './tool-index.ts';
export {
  DEFAULT_TOOL_SELECTION,
  type GroupChoice,
  type GroupChooser,
  type OfferReason,
  type SelectionMessage,
  type ToolSelection,
  type ToolSelectionSettings,
} from './tool-selection.ts';
export type { ToolGroup } from './tool-groups.ts';
export {
  indexedDbToolVectorStore,
  memoryToolVectorStore,
  type CachedEncoderOptions,
  type EncoderCounts,
  type SemanticEncoder,
  type ToolVectorStore,
} from './tool-vectors.ts';
export { connectMcp, mcpResultText, mcpUserParts, McpConnectError, withElicitationDefaults, type McpConnection } from './mcp-tools.ts';
export {
  MCP_LOG_LEVELS,
  type McpConnectOptions,
  type McpElicitation,
  type McpElicitationAnswer,
  type McpLogLevel,
  type McpSamplingAnswer,
  type McpSamplingRequest,
} from './mcp-options.ts';
export { appDomains, McpAppError, MCP_APP_MIME_TYPE, MCP_APPS_EXTENSION, type McpAppDomains, type McpAppResource } from './mcp-apps.ts';
export { asMcpAppCall, MAX_APP_CALL_CHARS, type McpAppCall, type McpAppToolResult } from './mcp-app-call.ts';
export { mcpOAuthProvider, type McpOAuthOptions, type McpOAuthProvider, type McpOAuthStore } from './mcp-oauth.ts';
export { McpSamplingError, MAX_SAMPLING_TOKENS, samplingMessages, samplingReport, type SamplingReport } from './mcp-sampling.ts';
export {
  McpServers,
  mcpServerAddress,
  type McpClientHandlers,
  type McpClientServer,
  type McpServerEntry,
  type McpServerPhase,
  type McpServerStatus,
  type McpServersOptions,
} from './mcp-servers.ts';
// Documents too long for the context, searched by passage (`ChatOptions.documents`).
export { DocumentIndex, type IndexedDocument, type PassageIndex, type PassageHit, type PassageSearchOptions } from './document-index.ts';
export { DEFAULT_PASSAGE_CHARS, passageReference, passagesOf, type DocumentPassage, type PassageOptions } from './document-passages.ts';
export { SEARCH_ATTACHMENTS, registerDocumentSearch, type DocumentSearchOptions, type PassageSource, type SourceNumbers } from './document-tool.ts';
