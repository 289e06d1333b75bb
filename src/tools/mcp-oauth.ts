/**
 * The shapes the SDK's OAuth client provider exchanges, written here (structurally the SDK's own) so the
 * package's type declarations do not reach into the SDK's, which older module resolutions cannot follow.
 */
type OAuthClientMetadata = Record<string, unknown> & { redirect_uris: string[] };
type OAuthClientInformationMixed = Record<string, unknown> & { client_id: string };
type OAuthTokens = Record<string, unknown> & { access_token: string; token_type: string };

/**
 * How {@link connectMcp} signs in to an MCP server that asks for authorization (HTTP 401), as MCP
 * specifies for public clients: OAuth 2.1 with PKCE, the server's protected-resource metadata and its
 * authorization server discovered, the client registered dynamically (or given), the scopes the server
 * names in `WWW-Authenticate`, a step-up when a call needs more, and tokens refreshed.
 */
export interface McpOAuthOptions {
  /** Where the authorization server sends the user back with the code: registered with it as the redirect URI. */
  redirectUrl: string;
  /**
   * Shows the user the authorization page and resolves with what the redirect back carried (in a page, a
   * sign-in window; in Node, a callback of yours: a local server, a pasted code): the whole address it
   * redirected to (best: its `iss` is then checked against the authorization server, RFC 9207), its
   * `{ code, iss }`, or the `code` alone. Reject to refuse.
   */
  authorize(authorizationUrl: URL): Promise<AuthorizationResponse>;
  /** The name the authorization server shows for this client when it registers (default "Nexus Chat"). */
  clientName?: string;
  /** A client registered with the authorization server beforehand: used instead of registering one. */
  client?: { client_id: string; client_secret?: string };
  /** The address of this client's metadata document (OAuth Client ID Metadata), where the server accepts one. */
  clientMetadataUrl?: string;
  /** Keeps the registration and the tokens between connections (default: this connection's memory only). */
  store?: McpOAuthStore;
  /**
   * Binds the tokens to a key of this client's (DPoP, RFC 9449; MCP's SEP-1932): every token request and MCP
   * request carries a proof signed with a non-extractable WebCrypto key, so a token read out of storage is of
   * no use elsewhere. The key is kept in `store` beside the tokens (a store that keeps only JSON makes a new one
   * per connection, and the sign-in is then asked again). Proofs are sent only where the authorization server's
   * metadata offers DPoP (`dpop_signing_alg_values_supported`) or the tokens kept are bound to the key. Default
   * true; false sends none.
   */
  dpop?: boolean;
}

/** What a redirect back from the authorization server carried: its address, its parameters, or the code alone. */
export type AuthorizationResponse = string | URL | { code: string; iss?: string };

/**
 * The code of an authorization response and the issuer it names, checked (RFC 9207, OAuth's mix-up defence): an `iss`
 * that is not the authorization server this sign-in discovered is refused, and so is a response without
 * one from a server that says it always sends one.
 *
 * @param response - what `authorize` resolved with.
 * @param server - the authorization server's metadata, as discovered (its `issuer`, and whether it sends `iss`).
 * @throws Error naming both issuers, or the missing code.
 */
export function codeOfResponse(
  response: AuthorizationResponse,
  server: { issuer?: string; authorization_response_iss_parameter_supported?: boolean } | undefined,
): { code: string; iss?: string } {
  let code: string | undefined;
  let iss: string | undefined;
  let whole = false;
  if (typeof response === 'object' && !(response instanceof URL)) ({ code, iss } = response);
  else {
    const text = String(response);
    const address = /^https?:\/\/|^[a-z][a-z0-9+.-]*:\/\//i.test(text) ? new URL(text) : undefined;
    whole = address !== undefined;
    code = address ? (address.searchParams.get('code') ?? undefined) : text;
    iss = address?.searchParams.get('iss') ?? undefined;
  }
  if (!code) throw new Error('the authorization server sent no code back');
  if (iss !== undefined && server?.issuer && iss !== server.issuer) {
    throw new Error(`the authorization response comes from issuer ${iss}, not from ${server.issuer}, the authorization server this sign-in asked (RFC 9207)`);
  }
  if (iss === undefined && (whole || typeof response === 'object') && server?.authorization_response_iss_parameter_supported === true) {
    throw new Error(`the authorization server ${server.issuer ?? ''} always names itself in its response (iss), and this response does not (RFC 9207)`);
  }
  // The issuer goes on to the SDK, which checks it again against what it discovered before redeeming the code.
  return iss === undefined ? { code } : { code, iss };
}

/**
 * The OIDC `application_type` of a client redirected to `redirectUrl`: `native` where the redirect goes to
 * this machine (a CLI's loopback server) or to an app's own scheme, `web` for a page on the web.
 */
export function applicationTypeOf(redirectUrl: string): 'native' | 'web' {
  try {
    const url = new URL(redirectUrl);
    if (url.protocol !== 'https:' && url.protocol !== 'http:') return 'native';
    return ['localhost', '127.0.0.1', '[::1]'].includes(url.hostname) ? 'native' : 'web';
  } catch {
    return 'web';
  }
}

/** Where a sign-in's registration and tokens are kept, by server address. */
export interface McpOAuthStore {
  get(key: string): unknown | Promise<unknown>;
  set(key: string, value: unknown): void | Promise<void>;
  delete(key: string): void | Promise<void>;
}

/** The provider the SDK's transports take (its `OAuthClientProvider`), plus what connectMcp needs to finish a sign-in. */
export interface McpOAuthProvider {
  readonly redirectUrl: string;
  readonly clientMetadata: OAuthClientMetadata;
  readonly clientMetadataUrl?: string;
  clientInformation(at?: IssuerContext): Promise<OAuthClientInformationMixed | undefined>;
  saveClientInformation(information: OAuthClientInformationMixed, at?: IssuerContext): Promise<void>;
  tokens(at?: IssuerContext): Promise<OAuthTokens | undefined>;
  saveTokens(tokens: OAuthTokens, at?: IssuerContext): Promise<void>;
  redirectToAuthorization(url: URL): void;
  saveCodeVerifier(codeVerifier: string): void;
  codeVerifier(): string;
  invalidateCredentials(scope: 'all' | 'client' | 'tokens' | 'verifier' | 'discovery'): Promise<void>;
  /** A fresh `state` for each authorization request, so a redirect back is matched to the sign-in that asked for it. */
  state(): Promise<string>;
  /** The authorization page the last sign-in asked for, consumed once. */
  takeAuthorizationUrl(): URL | undefined;
  /** Keeps what discovery found (the SDK calls it), so the authorization response's issuer can be checked. */
  saveDiscoveryState(state: unknown): void;
  discoveryState(): undefined;
  /** The authorization server's metadata, as discovered. */
  authorizationServer(): { issuer?: string; authorization_response_iss_parameter_supported?: boolean } | undefined;
  /** The DPoP session proofs are signed with (the SDK's `DpopSession`), or undefined where `dpop` is false. */
  dpop(): Promise<unknown>;
}

/** The authorization server a registration or tokens belong to, by its issuer, as the SDK names it. */
interface IssuerContext {
  issuer: string;
}

/** A store in memory, for one process or page. */
function memoryStore(): McpOAuthStore {
  const values = new Map<string, unknown>();
  return { get: (key) => values.get(key), set: (key, value) => void values.set(key, value), delete: (key) => void values.delete(key) };
}

/**
 * The OAuth client provider of one MCP server's connection: the SDK runs discovery, registration, PKCE and
 * the token requests; this keeps their results and hands the authorization page to `authorize`.
 * @param serverUrl - the MCP endpoint (the key its state is kept under).
 * @param options - redirect, the user's part, client identity, store.
 */
export function mcpOAuthProvider(serverUrl: string, options: McpOAuthOptions): McpOAuthProvider {
  const store = options.store ?? memoryStore();
  const key = (what: string) => `mcp-oauth:${serverUrl}:${what}`;
  let pending: URL | undefined;
  let verifier = '';
  const metadata: OAuthClientMetadata = {
    client_name: options.clientName ?? 'Nexus Chat',
    redirect_uris: [options.redirectUrl],
    grant_types: ['authorization_code', 'refresh_token'],
    response_types: ['code'],
    // A public client (a page, a CLI): it holds no secret, so it proves itself with PKCE alone.
    token_endpoint_auth_method: options.client?.client_secret ? 'client_secret_basic' : 'none',
    // Registration says which kind of client this is (OIDC; the MCP draft asks for it): a page, or a program here.
    application_type: applicationTypeOf(options.redirectUrl),
  };
  let proofs: Promise<unknown> | undefined;
  let boundToKey: boolean | undefined;
  let discovered:
    | {
        authorizationServerMetadata?: {
          issuer?: string;
          authorization_response_iss_parameter_supported?: boolean;
          dpop_signing_alg_values_supported?: unknown;
        };
      }
    | undefined;
  return {
    get redirectUrl() {
      return options.redirectUrl;
    },
    get clientMetadata() {
      return metadata;
    },
    ...(options.clientMetadataUrl ? { clientMetadataUrl: options.clientMetadataUrl } : {}),
    // A registration and its tokens belong to the authorization server that issued them: a server that moves to
    // another (its metadata names a new one, SEP-2352) is registered with afresh, never sent the old client id.
    async clientInformation(at?: IssuerContext) {
      return options.client ?? ((await store.get(key(at ? `client:${at.issuer}` : 'client'))) as OAuthClientInformationMixed | undefined);
    },
    async saveClientInformation(information: OAuthClientInformationMixed, at?: IssuerContext) {
      await store.set(key('client'), information);
      if (at) await store.set(key(`client:${at.issuer}`), information);
    },
    async tokens(at?: IssuerContext) {
      return (await store.get(key(at ? `tokens:${at.issuer}` : 'tokens'))) as OAuthTokens | undefined;
    },
    async saveTokens(tokens: OAuthTokens, at?: IssuerContext) {
      // Unkeyed too: the transport asks for the bearer token of every request without naming a server.
      await store.set(key('tokens'), tokens);
      if (at) await store.set(key(`tokens:${at.issuer}`), tokens);
      boundToKey = tokens.token_type.toLowerCase() === 'dpop';
      // The sign-in that made the verifier is over.
      verifier = '';
    },
    redirectToAuthorization(url: URL) {
      pending = url;
    },
    saveCodeVerifier(codeVerifier: string) {
      verifier = codeVerifier;
    },
    codeVerifier() {
      if (!verifier) throw new Error('No sign-in is in progress (no PKCE code verifier was made)');
      return verifier;
    },
    async invalidateCredentials(scope) {
      const issuer = discovered?.authorizationServerMetadata?.issuer;
      for (const kind of ['client', 'tokens'] as const) {
        if (scope !== 'all' && scope !== kind) continue;
        await store.delete(key(kind));
        if (issuer) await store.delete(key(`${kind}:${issuer}`));
        if (kind === 'tokens') boundToKey = false;
      }
      if (scope === 'all' || scope === 'verifier') verifier = '';
      if (scope === 'all' || scope === 'discovery') discovered = undefined;
    },
    async state() {
      const bytes = crypto.getRandomValues(new Uint8Array(16));
      return Array.from(bytes, (b) => b.toString(16).padStart(2, '0')).join('');
    },
    takeAuthorizationUrl() {
      const url = pending;
      pending = undefined;
      return url;
    },
    saveDiscoveryState(state) {
      discovered = state as typeof discovered;
    },
    // Handed back only to the sign-in that found it (while its PKCE verifier is pending, as the SDK asks):
    // a later sign-in discovers again, so a server whose metadata now names another authorization server
    // (SEP-2352) is followed there, and registered with afresh, not sent back to the one it left.
    discoveryState() {
      return verifier ? (discovered as never) : undefined;
    },
    authorizationServer() {
      return discovered?.authorizationServerMetadata;
    },
    // Proofs only where they are wanted: an authorization server that offers DPoP, or tokens it bound to the key.
    // One that does not would meet a header its CORS answer may not allow, and a sign-in that fails in a page.
    async dpop() {
      if (options.dpop === false) return undefined;
      const offered = discovered?.authorizationServerMetadata?.dpop_signing_alg_values_supported;
      // Read from the store once (tokens kept from an earlier visit), then known from each save: the SDK asks per request.
      boundToKey ??= ((await store.get(key('tokens'))) as OAuthTokens | undefined)?.token_type.toLowerCase() === 'dpop';
      const bound = boundToKey;
      if (!bound && !(Array.isArray(offered) && offered.length > 0)) return undefined;
      proofs ??= dpopSession(store, key('dpop'));
      return proofs;
    },
  };
}

/**
 * The DPoP session of one server's sign-in: its key pair as kept in `store` (a structured-clone store such as
 * IndexedDB keeps the non-extractable key itself), or a new one, kept there.
 */
async function dpopSession(store: McpOAuthStore, where: string): Promise<unknown> {
  const { DpopSession, generateDpopKeyPair } = await import('@modelcontextprotocol/client');
  const kept = (await store.get(where)) as { privateKey?: unknown; publicJwk?: unknown } | undefined;
  if (kept && typeof CryptoKey !== 'undefined' && kept.privateKey instanceof CryptoKey && kept.publicJwk) {
    return DpopSession.create({ keyPair: kept as import('@modelcontextprotocol/client').DpopKeyPair });
  }
  const keyPair = await generateDpopKeyPair();
  await Promise.resolve(store.set(where, keyPair)).catch(() => undefined);
  return DpopSession.create({ keyPair });
}
