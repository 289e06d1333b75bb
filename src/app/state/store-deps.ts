import type { McpServers } from '../../internal.ts';
import type { McpSignInDeps } from '../mcp/mcp-page-client.ts';
import type { ModelOpener } from './model-loader.ts';
import type { Persistence } from '../conversation/persistence.ts';
import type { TabSync } from './tab-sync.ts';
import type { ResearchFactory } from './web-research.ts';

/** What the store is built from; the page passes the real ones, tests pass scripted ones. */
export interface StoreDeps {
  persistence: Persistence;
  opener: ModelOpener;
  research: ResearchFactory;
  /** Where `tools.js` is fetched from. */
  toolsUrl: string;
  /**
   * How `tools.js` runs (see `LoadToolsOptions.evaluate`): the page imports it as a module, which its
   * Content-Security-Policy (no `eval`) allows; default `'function'`, for Node.
   */
  toolsEvaluate?: 'function' | 'module';
  /** Mirrors the model in use into the page address (`?model=`); no-op where there is no address bar. */
  setAddress?: (model: string | undefined) => void;
  /** The page's origin, so a folder it serves is named by its path (`/models/x`); default `location.origin`. */
  origin?: string;
  /**
   * Where the app server lists the MCP servers it relays to (`./mcp-relay/`); none asked when unset.
   * The list is fetched with `fetch` (default the global one).
   */
  mcpRelayUrl?: string;
  fetch?: typeof globalThis.fetch;
  /** How this tab hears the others and takes turns with them (default: alone). */
  tabs?: TabSync;
  /** How the page's MCP servers are kept (heartbeat, backoff); tests shorten them. */
  mcpOptions?: ConstructorParameters<typeof McpServers>[1];
  /**
   * Signing in to MCP servers that ask for authorization (a sign-in window and its callback page), or how to load
   * it with the page's MCP client; none: they are named as needing a token.
   */
  mcpSignIn?: McpSignInDeps | (() => Promise<McpSignInDeps>);
}
