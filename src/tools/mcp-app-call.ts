/**
 * A tool call's MCP Apps view as the page keeps it with the call (`details.app`): apart from mcp-apps.ts, so the
 * page's first chunk, which reads stored conversations, takes only this check.
 */

/** Most characters of a call result handed to a view (its JSON); a larger result is shown to the view without its structured part. */
export const MAX_APP_RESULT_CHARS = 256_000;

/** Most characters of a call's view kept in an imported conversation (its result, and the rest around it). */
export const MAX_APP_CALL_CHARS = MAX_APP_RESULT_CHARS + 64_000;

/** A JSON object (not an array, not null). */
export const isRecord = (value: unknown): value is Record<string, unknown> => typeof value === 'object' && value !== null && !Array.isArray(value);

/** A call's result as a view receives it (`ui/notifications/tool-result`): MCP's `CallToolResult`. */
export interface McpAppToolResult {
  content: unknown[];
  structuredContent?: unknown;
  isError?: boolean;
  _meta?: Record<string, unknown>;
}

/** What a call of a tool with a view gives the page beside its result (`details.app` of the call). */
export interface McpAppCall {
  /** The server's address (its MCP endpoint). */
  server: string;
  /** The view's `ui://` address. */
  uri: string;
  /** The server's name for the tool. */
  tool: string;
  arguments: Record<string, unknown>;
  /** The result, bounded ({@link MAX_APP_RESULT_CHARS}). */
  result: McpAppToolResult;
}

/**
 * A call's view as kept with it (`details.app`, a stored or imported conversation), or undefined where the value
 * is not one: a server address, a `ui://` address, a tool name, arguments and a result. Its shape only: a result is
 * bounded where it is made (`appResultOf`), and an import bounds what it reads ({@link MAX_APP_CALL_CHARS}), so the
 * answer's view, derived again at every streamed token, never writes the result out to measure it.
 */
export function asMcpAppCall(value: unknown): McpAppCall | undefined {
  if (!isRecord(value) || !isRecord(value.arguments) || !isRecord(value.result) || !Array.isArray(value.result.content)) return undefined;
  const { server, uri, tool } = value;
  if (typeof server !== 'string' || !/^https?:\/\//.test(server) || server.length > 2_048) return undefined;
  if (typeof uri !== 'string' || !uri.startsWith('ui://') || uri.length > 2_048 || typeof tool !== 'string' || tool.length > 256) return undefined;
  return { server, uri, tool, arguments: value.arguments, result: value.result as unknown as McpAppToolResult };
}
