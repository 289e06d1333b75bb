/**
 * Signing in to an MCP server without a user at the keyboard: a confidential client's own credentials
 * (OAuth `client_credentials`, MCP's SEP-1046, with a secret or a signed assertion), or an enterprise's
 * identity provider vouching for its user (cross-app access, SEP-990: the user's ID token exchanged for
 * an identity assertion grant, which the server's authorization server takes as a JWT bearer grant).
 * For servers, CLIs and back ends that hold such credentials — never a page, which cannot keep a secret.
 */

/** A confidential client's credentials for `client_credentials` (SEP-1046). */
export interface McpClientCredentials {
  /** The client id the authorization server knows. */
  clientId: string;
  /** Authenticates with `client_secret_basic`. */
  clientSecret?: string;
  /** Authenticates with a signed assertion (`private_key_jwt`): the private key, PEM. */
  privateKey?: string;
  /** The assertion's signing algorithm (default `ES256`; `RS256`, `EdDSA`… as the key is). */
  algorithm?: string;
  /**
   * The authorization server these credentials were registered with: they are presented to no other
   * (the MCP server names its authorization server; a server may not send the credentials elsewhere).
   */
  issuer?: string;
  /** Scopes to ask for, space-separated (default: what the server names). */
  scope?: string;
}

/** What cross-app access needs (SEP-990): the user's ID token from the identity provider, and the client at both ends. */
export interface McpCrossAppAccess {
  /** The user's ID token, as the enterprise identity provider issued it at single sign-on. */
  idToken: string;
  /** The identity provider's token endpoint, where the ID token is exchanged for an identity assertion grant. */
  idpTokenEndpoint: string;
  /** This client's id at the identity provider. */
  idpClientId: string;
  /** This client's secret at the identity provider, where it has one. */
  idpClientSecret?: string;
  /** This client's id at the MCP server's authorization server. */
  clientId: string;
  /** This client's secret there (`client_secret_basic`). */
  clientSecret: string;
  /** Scopes to ask for, space-separated. */
  scope?: string;
}

type Metadata = Record<string, unknown> & { redirect_uris: string[] };
type Tokens = Record<string, unknown> & { access_token: string; token_type: string };
type DiscoveryState = { authorizationServerUrl: string; resourceMetadata?: { resource?: string }; authorizationServerMetadata?: { issuer?: string } };

const TOKEN_EXCHANGE = 'urn:ietf:params:oauth:grant-type:token-exchange';
const JWT_BEARER = 'urn:ietf:params:oauth:grant-type:jwt-bearer';
const ID_TOKEN = 'urn:ietf:params:oauth:token-type:id_token';
const ID_JAG = 'urn:ietf:params:oauth:token-type:id-jag';

/**
 * The SDK's provider for a client's own credentials: `client_secret_basic` with a secret, `private_key_jwt`
 * with a key. Loaded only when asked for (it brings a JWT library).
 *
 * @param credentials - the client's id and its secret or key.
 * @throws Error naming what is missing when neither a secret nor a key is given.
 */
export async function clientCredentialsProvider(credentials: McpClientCredentials): Promise<unknown> {
  const { ClientCredentialsProvider, PrivateKeyJwtProvider } = await import('@modelcontextprotocol/client');
  const issuer = credentials.issuer ? { expectedIssuer: credentials.issuer } : {};
  const scope = credentials.scope ? { scope: credentials.scope } : {};
  if (credentials.privateKey) {
    return new PrivateKeyJwtProvider({
      clientId: credentials.clientId,
      privateKey: credentials.privateKey,
      algorithm: credentials.algorithm ?? 'ES256',
      ...scope,
      ...issuer,
    } as ConstructorParameters<typeof PrivateKeyJwtProvider>[0]);
  }
  if (credentials.clientSecret) {
    return new ClientCredentialsProvider({
      clientId: credentials.clientId,
      clientSecret: credentials.clientSecret,
      ...scope,
      ...issuer,
    } as ConstructorParameters<typeof ClientCredentialsProvider>[0]);
  }
  throw new Error(`clientCredentials for ${credentials.clientId} need a clientSecret (client_secret_basic) or a privateKey (private_key_jwt)`);
}

/**
 * A provider for cross-app access (SEP-990): when the MCP server asks for authorization, the user's ID
 * token is exchanged at the identity provider (RFC 8693) for an identity assertion grant addressed to the
 * server's authorization server and the server itself, which is then presented there as a JWT bearer
 * grant (RFC 7523) with this client's credentials. No user interaction, no redirect.
 *
 * @param access - the ID token, the identity provider, and the client at both ends.
 * @param serverUrl - the MCP endpoint (the resource, where its metadata names none).
 * @param fetchImpl - the fetch for the identity provider (default the global one).
 */
export function crossAppAccessProvider(access: McpCrossAppAccess, serverUrl: string, fetchImpl: typeof fetch = (input, init) => fetch(input, init)) {
  let discovered: DiscoveryState | undefined;
  let tokens: Tokens | undefined;
  const metadata: Metadata = {
    client_name: 'Nexus Chat',
    redirect_uris: [],
    grant_types: [JWT_BEARER],
    token_endpoint_auth_method: 'client_secret_basic',
  };
  return {
    get redirectUrl(): undefined {
      return undefined;
    },
    get clientMetadata() {
      return metadata;
    },
    clientInformation: () => ({ client_id: access.clientId, client_secret: access.clientSecret }),
    saveClientInformation: () => undefined,
    tokens: () => tokens,
    saveTokens: (saved: Tokens) => {
      tokens = saved;
    },
    redirectToAuthorization: () => {
      throw new Error('cross-app access signs in without a user: there is no authorization page to open');
    },
    saveCodeVerifier: () => undefined,
    codeVerifier: (): string => {
      throw new Error('cross-app access uses no authorization code');
    },
    saveDiscoveryState: (state: DiscoveryState) => {
      discovered = state;
    },
    discoveryState: () => discovered,
    invalidateCredentials: (scope: string) => {
      if (scope === 'all' || scope === 'tokens') tokens = undefined;
      if (scope === 'all' || scope === 'discovery') discovered = undefined;
    },
    /** The JWT bearer grant, its assertion fetched from the identity provider for this authorization server. */
    prepareTokenRequest: async (scope?: string): Promise<URLSearchParams> => {
      if (!discovered) throw new Error('cross-app access: the authorization server was not discovered before the token request');
      const audience = discovered.authorizationServerMetadata?.issuer ?? discovered.authorizationServerUrl;
      const resource = discovered.resourceMetadata?.resource ?? serverUrl;
      const wanted = scope ?? access.scope;
      const exchange = new URLSearchParams({
        grant_type: TOKEN_EXCHANGE,
        requested_token_type: ID_JAG,
        subject_token: access.idToken,
        subject_token_type: ID_TOKEN,
        audience,
        resource,
        client_id: access.idpClientId,
        ...(access.idpClientSecret ? { client_secret: access.idpClientSecret } : {}),
        ...(wanted ? { scope: wanted } : {}),
      });
      const response = await fetchImpl(access.idpTokenEndpoint, {
        method: 'POST',
        headers: { 'content-type': 'application/x-www-form-urlencoded', accept: 'application/json' },
        body: exchange,
      });
      const answer = (await response.json().catch(() => ({}))) as {
        access_token?: unknown;
        issued_token_type?: unknown;
        error?: unknown;
        error_description?: unknown;
      };
      if (!response.ok || typeof answer.access_token !== 'string') {
        throw new Error(
          `the identity provider refused the token exchange (HTTP ${response.status}${answer.error ? `: ${String(answer.error)}${answer.error_description ? ` — ${String(answer.error_description)}` : ''}` : ''})`,
        );
      }
      if (answer.issued_token_type !== undefined && answer.issued_token_type !== ID_JAG) {
        throw new Error(`the identity provider issued ${String(answer.issued_token_type)}, not an identity assertion grant (${ID_JAG})`);
      }
      return new URLSearchParams({ grant_type: JWT_BEARER, assertion: answer.access_token, ...(wanted ? { scope: wanted } : {}) });
    },
  };
}
