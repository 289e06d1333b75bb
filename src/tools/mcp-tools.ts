import type { McpClientCredentials } from './mcp-machine-auth.ts';
import { McpConnectError } from './mcp-failures.ts';
import type { McpConnectOptions } from './mcp-options.ts';
import type { McpConnection } from './mcp-connection.ts';
import { loadSdk, ServerConnection } from './mcp-server-connection.ts';
import type { ToolRegistry } from './tool-registry.ts';

export { McpConnectError } from './mcp-failures.ts';
export { mcpResultText, mcpUserParts, withElicitationDefaults } from './mcp-results.ts';
export type { McpConnection } from './mcp-connection.ts';

/**
 * Connects to an MCP server over Streamable HTTP (the older HTTP+SSE transport where the server only
 * speaks that), lists its tools (every page, up to 500 tools) and registers them in `registry`:
 * their JSON Schemas validated like any tool's (a schema that is not an object is skipped and
 * named), a description past 2,000 characters cut (saying so), a name another tool has taken namespaced `<server>__<tool>`, and every tool registered as
 * `confirm` (it asks the user) unless the server is trusted — its own hints decide nothing. A call sends
 * its validated arguments; its result comes back as text (structured content as JSON, images and
 * resources described), an `isError` result as the tool's error, a stopped answer as the MCP
 * cancellation notification. The server's `tools/list_changed` updates the registry, and a tool whose
 * description, schema or hints changed is named in `changed`.
 *
 * @param url - the server's MCP endpoint.
 * @param registry - where its tools go.
 * @param options - headers, trust, timeouts, fetch.
 * @returns the connection; a tool it could not register is in its `skipped`, with why (a server may offer no tool
 *   at all: one of resources or prompts alone connects too).
 * @throws McpConnectError naming the address when it is not an MCP server or does not answer in time.
 */
export async function connectMcp(url: string, registry: ToolRegistry, options: McpConnectOptions = {}): Promise<McpConnection> {
  const sdk = await loadSdk();
  let endpoint: URL;
  try {
    endpoint = new URL(url, globalThis.location?.href);
  } catch {
    throw new McpConnectError(`"${url}" is not an address. Give the MCP server's endpoint, such as http://127.0.0.1:3001/mcp.`);
  }
  // Without a user: a client's own credentials, or an identity provider's word for its user (loaded only then).
  const machine = options.clientCredentials
    ? await import('./mcp-machine-auth.ts').then((auth) => auth.clientCredentialsProvider(options.clientCredentials as McpClientCredentials))
    : options.crossAppAccess
      ? (await import('./mcp-machine-auth.ts')).crossAppAccessProvider(options.crossAppAccess, endpoint.href, options.fetch)
      : undefined;
  const connection = new ServerConnection(sdk, { url, endpoint, registry, options, machine });
  await connection.open();
  return connection;
}
