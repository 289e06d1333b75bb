/**
 * Tools: registration with shorthand schemas, the OpenAI envelopes, argument validation and
 * coercion, and loading a plain `tools.js` file.
 *
 * @packageDocumentation
 */
export { ToolArgumentsError, ToolDefinitionError, ToolsFileError, type ToolsFileFailure } from './errors.ts';
export { evalTools, loadTools, type EvalToolsOptions, type LoadToolsOptions } from './load-tools.ts';
export { createToolContext, type ApprovalRequest, type ToolContext } from './tool-context.ts';
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
  expandParameters,
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
export { ToolIndex, embeddingText, nameWords, type Embedder, type IndexedTool, type RankedTool, type ToolRanking } from './tool-index.ts';
export {
  DEFAULT_CONFIDENCE,
  DEFAULT_TOOL_SELECTION,
  FIND_TOOLS,
  GROUP_LIMIT,
  addFindTools,
  selectTools,
  type GroupChoice,
  type GroupChooser,
  type OfferReason,
  type SelectionMessage,
  type ToolSelection,
  type ToolSelectionSettings,
} from './tool-selection.ts';
export { NO_GROUP, groupChoices, groupQuestion, toolGroups, type ToolGroup } from './tool-groups.ts';
export {
  TOOL_VECTOR_DB,
  cachedEncoder,
  indexedDbToolVectorStore,
  memoryToolVectorStore,
  type CachedEncoderOptions,
  type EncoderCounts,
  type SemanticEncoder,
  type ToolVectorStore,
} from './tool-vectors.ts';
