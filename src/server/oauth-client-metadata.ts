/** Where the page's OAuth client metadata document is served (OAuth Client ID Metadata Documents, MCP SEP-991). */
export const CLIENT_METADATA_PATH = '/oauth/client-metadata.json';

/**
 * The page's OAuth client metadata document: with it an MCP server's authorization server that accepts
 * URL-based client ids knows the page by its address, with no registration. Its `client_id` is its own
 * address, and its one redirect is the page's sign-in callback; a public client (no secret), a web
 * application. Served only over https, where an authorization server will fetch it.
 *
 * @param origin - the page's origin, `https://chat.example.com`.
 */
export function clientMetadataDocument(origin: string): Record<string, unknown> {
  return {
    client_id: `${origin}${CLIENT_METADATA_PATH}`,
    client_name: 'Nexus Chat',
    client_uri: `${origin}/`,
    redirect_uris: [`${origin}/mcp-oauth-callback.html`],
    grant_types: ['authorization_code', 'refresh_token'],
    response_types: ['code'],
    token_endpoint_auth_method: 'none',
    application_type: 'web',
  };
}
