/** What an MCP connection is asked to do, and what a declared server is: the options, apart from the client that uses them. */
import type { McpClientCredentials, McpCrossAppAccess } from './mcp-machine-auth.ts';
import type { McpOAuthOptions } from './mcp-oauth.ts';

/** Options of {@link connectMcp}. */
export interface McpConnectOptions {
  /** Headers sent with every request (an `Authorization` token, for example). */
  headers?: Record<string, string>;
  /**
   * Run the server's tools without asking (default: each asks, as a `confirm` tool, whatever the server
   * says of it: a `readOnlyHint` is the server's claim, believed only of a trusted server).
   */
  trust?: boolean;
  /** Longest wait for the connection and the tool list (default 10 s). */
  connectTimeoutMs?: number;
  /** Longest wait for one call (default 60 s); past it the call is cancelled and fails. */
  callTimeoutMs?: number;
  /** The `fetch` the transport uses (default the global one). */
  fetch?: typeof globalThis.fetch;
  /** Told when the server's tool list changed and the registry was updated (names now registered). */
  onToolsChanged?: (tools: readonly string[]) => void;
  /**
   * Told once when the server stops answering (the connection closed, a heartbeat or a call failed
   * for want of the server, not for an error the server reported); its tools are unregistered first.
   */
  onLost?: (reason: string) => void;
  /** Pings the server this often while connected, so a restart or a crash is noticed between calls (default 0: off). */
  heartbeatMs?: number;
  /** Signs in where the server asks for authorization (HTTP 401), as MCP specifies (OAuth 2.1, PKCE). */
  oauth?: McpOAuthOptions;
  /**
   * Signs in with this client's own credentials, no user (OAuth `client_credentials`, SEP-1046): a secret
   * or a private key. For a server or a CLI that holds them; a page cannot keep a secret.
   */
  clientCredentials?: McpClientCredentials;
  /** Signs in as the user an enterprise identity provider vouches for (cross-app access, SEP-990). */
  crossAppAccess?: McpCrossAppAccess;
  /**
   * Answers the server's requests for information from the user (MCP elicitation): a form (its fields'
   * defaults filled in where the answer leaves them out) or a page to open (URL mode). Without it the
   * client does not offer elicitation, and a server asking is told so.
   */
  elicit?: (request: McpElicitation) => Promise<McpElicitationAnswer>;
  /**
   * Answers the server's requests for a model's completion (MCP sampling), with the model in the tab and
   * the user's approval. Without it the client does not offer sampling.
   */
  sample?: (request: McpSamplingRequest) => Promise<McpSamplingAnswer>;
  /**
   * The caller shows MCP Apps (the `io.modelcontextprotocol/ui` extension): the client offers it, and a call of a
   * tool with a `ui://` view carries `details.app` (`McpAppCall`) for the caller to render in a sandbox. Default
   * false: the extension is not offered. A tool meant for its view only is never offered to the model either way.
   */
  apps?: boolean;
  /** The roots (folders, projects) the client declares to the server; default none, and roots are not offered. */
  roots?: readonly { uri: string; name?: string }[];
  /** Told of a call's progress as the server reports it; each report also renews the call's timeout. */
  onProgress?: (tool: string, progress: { progress: number; total?: number; message?: string }) => void;
  /**
   * Told of the parts of a call's result the server meant for the user only (`audience: ["user"]`), as
   * text: the model never reads them, so show them to the user beside the call.
   */
  onUserContent?: (tool: string, texts: string[]) => void;
  /** The least severe of the server's log messages to receive (MCP logging), where the server offers logging. */
  logLevel?: McpLogLevel;
  /** Told of each log message the server sends. */
  onLog?: (entry: { level: McpLogLevel; logger?: string; data: unknown }) => void;
}

/** MCP's log levels, least severe first. */
export const MCP_LOG_LEVELS = ['debug', 'info', 'notice', 'warning', 'error', 'critical', 'alert', 'emergency'] as const;
/** One of {@link MCP_LOG_LEVELS}. */
export type McpLogLevel = (typeof MCP_LOG_LEVELS)[number];

/** A server's request for information from the user. */
export type McpElicitation =
  | {
      mode: 'form';
      /** What the server asks, in its words. */
      message: string;
      /** The form: a flat object schema of strings, numbers, booleans and enums, with defaults. */
      requestedSchema: { type: 'object'; properties: Record<string, Record<string, unknown>>; required?: string[] };
    }
  | {
      mode: 'url';
      message: string;
      /** The page the server asks the user to open (a sign-in, a payment): never opened without the user. */
      url: string;
      elicitationId: string;
    };

/** The user's answer: accepted (with the form's values), declined, or dismissed. */
export type McpElicitationAnswer = { action: 'accept'; content?: Record<string, unknown> } | { action: 'decline' } | { action: 'cancel' };

/** A server's request for a completion, as MCP's `sampling/createMessage` gives it. */
export interface McpSamplingRequest {
  messages: { role: 'user' | 'assistant'; content: unknown }[];
  systemPrompt?: string;
  maxTokens: number;
  stopSequences?: string[];
  temperature?: number;
  modelPreferences?: unknown;
}

/** The completion given back. */
export interface McpSamplingAnswer {
  role: 'assistant';
  content: { type: 'text'; text: string };
  /** The model that wrote it. */
  model: string;
  stopReason?: 'endTurn' | 'stopSequence' | 'maxTokens' | string;
}

/** One MCP server to keep connected. */
export interface McpServerEntry extends Omit<McpConnectOptions, 'onLost' | 'onToolsChanged' | 'heartbeatMs' | 'fetch'> {
  /** The server's MCP endpoint (absolute, or relative to the page: the app server's relay). */
  readonly url: string;
  /** What the tools panel calls it (default: the name the server gives itself, else the address). */
  readonly label?: string;
}
