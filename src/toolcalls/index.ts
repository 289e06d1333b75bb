/**
 * The tool-call core: reading calls out of raw model output, in every format small open
 * models write, and keeping their markup (and any thinking) out of what the user sees — in one
 * go with {@link parseToolCalls}, or as the text streams with {@link ToolCallStreamFilter}.
 *
 * Self-contained on purpose: it imports nothing else of this package, only `jsonrepair`.
 */
export { parseToolCalls } from './parse-tool-calls.ts';
export { ToolCallStreamFilter } from './stream-filter.ts';
export { beginsInThinking, stripThinking, thinkingOf, ThinkingStripper, THINKING_TAGS } from './strip-thinking.ts';
export { parseLenientJson } from './lenient-json.ts';
export { CALL_MARKERS, LONGEST_MARKER, TOOL_CALL_FORMATS } from './formats.ts';
export type { CallSite, ToolCallFormat } from './site.ts';
export type {
  ParseOptions,
  ParseResult,
  RejectReason,
  RejectedCall,
  StreamFilterOptions,
  StreamStats,
  StreamUpdate,
  ToolCall,
  ToolNameSource,
} from './types.ts';
