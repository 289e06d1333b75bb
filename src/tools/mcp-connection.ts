import type { McpAppToolResult } from './mcp-app-call.ts';
import type { McpAppResource } from './mcp-apps.ts';
import type { ToolRegistry } from './tool-registry.ts';

/** A connected MCP server whose tools are in a registry. */
export interface McpConnection {
  /** The address connected to. */
  readonly url: string;
  /** The name the server gave itself. */
  readonly serverName: string;
  /**
   * The protocol revision spoken with the server, negotiated at connect: `2026-07-28` (stateless, found by
   * `server/discover`) where the server offers it, else the revision of its `initialize` answer (`2025-11-25`…).
   */
  readonly protocolVersion: string;
  /**
   * A tool's definition exactly as the server listed it (its whole JSON Schema 2020-12 input schema, with
   * `$schema`, `$defs`, `$anchor`, combinators and conditions), by the server's name for the tool; the registry
   * holds the form the model reads (references inlined).
   */
  definition(serverToolName: string): { name: string; description?: string; inputSchema: Record<string, unknown> } | undefined;
  /** The registered names of its tools (namespaced `<server>__<tool>` where a name was taken). */
  readonly tools: readonly string[];
  /** Tools left out, with why (a schema that is not an object, a list past the bound). */
  readonly skipped: readonly { name: string; reason: string }[];
  /**
   * Registered names of its tools whose description, schema or hints changed since this connection
   * first listed them: a tool approved as "Read a note" must not run unasked as "Email the text".
   */
  readonly changed: readonly string[];
  /**
   * Registers its tools in `registry` (taking them out of the one they were in): after a chat's
   * registry was replaced, or its tool set restored (a reloaded `tools.js`), which drops them.
   */
  attach(registry: ToolRegistry): void;
  /** The server's resources (MCP `resources/list`, every page, up to 500); empty where it offers none. */
  resources(): Promise<{ uri: string; name: string; mimeType?: string; description?: string }[]>;
  /** One resource's text, as the model reads it (binary parts described), for the user to attach. */
  readResource(uri: string): Promise<string>;
  /** The server's prompts (MCP `prompts/list`), to offer as starters; empty where it offers none. */
  prompts(): Promise<{ name: string; title?: string; description?: string; arguments?: { name: string; required?: boolean; description?: string }[] }[]>;
  /** A prompt filled in with its arguments: the messages it gives, as text. */
  getPrompt(name: string, args?: Record<string, string>): Promise<{ role: 'user' | 'assistant'; content: string }[]>;
  /**
   * An MCP Apps view (`ui://`) of this server, read and checked: its HTML and the origins it may load from.
   * @throws McpAppError for another scheme or MIME type, or HTML past the bound.
   */
  readApp(uri: string, signal?: AbortSignal): Promise<McpAppResource>;
  /**
   * Calls a tool on behalf of one of this server's views (`tools/call` from the view), giving the result whole
   * as the view expects it. Only tools whose visibility includes `app` (the default); the caller asks the user
   * first, as for any call of an untrusted server.
   * @throws McpAppError for a tool the views may not call, naming those they may.
   */
  callForApp(name: string, args: Record<string, unknown>, signal?: AbortSignal): Promise<McpAppToolResult>;
  /** Unregisters its tools, ends the session on the server and closes the connection. */
  close(): Promise<void>;
}
