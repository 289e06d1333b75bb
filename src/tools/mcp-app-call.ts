/**
 * A tool call's MCP Apps view as the page keeps it with the call (`details.app`): apart from mcp-apps.ts, so the
 * page's first chunk, which reads stored conversations, takes only this check.
 */

/** Most characters of a call result handed to a view (its JSON); a larger result is shown to the view without its structured part. */
export const MAX_APP_RESULT_CHARS = 256_000;

const isRecord = (value: unknown): value is Record<string, unknown> => typeof value === 'object' && value !== null && !Array.isArray(value);

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
 * is not one: a server address, a `ui://` address, a tool name, arguments and a result, within the bounds.
 */
export function asMcpAppCall(value: unknown): McpAppCall | undefined {
  if (!isRecord(value) || !isRecord(value.arguments) || !isRecord(value.result) || !Array.isArray(value.result.content)) return undefined;
  const { server, uri, tool } = value;
  if (typeof server !== 'string' || !/^https?:\/\//.test(server) || server.length > 2_048) return undefined;
  if (typeof uri !== 'string' || !uri.startsWith('ui://') || uri.length > 2_048 || typeof tool !== 'string' || tool.length > 256) return undefined;
  const call: McpAppCall = { server, uri, tool, arguments: value.arguments, result: value.result as unknown as McpAppToolResult };
  return JSON.stringify(call).length <= MAX_APP_RESULT_CHARS + 64_000 ? call : undefined;
}
