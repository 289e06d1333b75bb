/**
 * The client `@modelcontextprotocol/conformance` runs against each of its client scenarios: this project's
 * `connectMcp`, configured as an app would (trusting the scenario's server so no user is asked, answering
 * elicitation forms by accepting, signing in with OAuth). The runner appends the server's address and sets
 * `MCP_CONFORMANCE_SCENARIO`, and for some scenarios `MCP_CONFORMANCE_CONTEXT` (a pre-registered client).
 * It lists the tools, calls each once (or the calls the scenario asks for), and closes (ending the session).
 */
import { connectMcp } from '../../src/tools/mcp-tools.ts';
import { ToolRegistry } from '../../src/tools/tool-registry.ts';

const url = process.argv.at(-1) ?? '';
const scenario = process.env.MCP_CONFORMANCE_SCENARIO ?? '';
const context = JSON.parse(process.env.MCP_CONFORMANCE_CONTEXT ?? '{}') as {
  client_id?: string;
  client_secret?: string;
  private_key_pem?: string;
  signing_algorithm?: string;
  idp_client_id?: string;
  idp_id_token?: string;
  idp_token_endpoint?: string;
  /** The calls a scenario asks for, with their arguments (the 2026-07-28 header scenarios). */
  toolCalls?: { name: string; arguments: Record<string, unknown> }[];
};

/**
 * How this client signs in, as a deployment would configure it: a back end holding its own credentials
 * (a secret, or a private key) uses `clientCredentials`; one whose users sign in at an enterprise identity
 * provider uses `crossAppAccess` with the user's ID token; anything else signs in as a user (OAuth, PKCE).
 */
function signInOptions() {
  if (context.client_id && context.private_key_pem) {
    return { clientCredentials: { clientId: context.client_id, privateKey: context.private_key_pem, algorithm: context.signing_algorithm ?? 'ES256' } };
  }
  if (context.client_id && context.client_secret && scenario.startsWith('auth/client-credentials')) {
    return { clientCredentials: { clientId: context.client_id, clientSecret: context.client_secret } };
  }
  if (context.idp_id_token && context.idp_token_endpoint && context.idp_client_id && context.client_id && context.client_secret) {
    return {
      crossAppAccess: {
        idToken: context.idp_id_token,
        idpTokenEndpoint: context.idp_token_endpoint,
        idpClientId: context.idp_client_id,
        clientId: context.client_id,
        clientSecret: context.client_secret,
      },
    };
  }
  return {
    oauth: {
      redirectUrl: 'http://localhost:3000/callback',
      authorize,
      // The scenario's own client metadata document (used where the authorization server accepts one).
      clientMetadataUrl: 'https://conformance-test.local/client-metadata.json',
      ...(context.client_id ? { client: { client_id: context.client_id, ...(context.client_secret ? { client_secret: context.client_secret } : {}) } } : {}),
    },
  };
}

/**
 * The user's part of a sign-in, as a test plays it: opens the authorization page (the scenario's server
 * approves at once) and takes the code from where it redirects.
 */
async function authorize(page: URL): Promise<string> {
  const response = await fetch(page, { redirect: 'manual' });
  const location = response.headers.get('location');
  if (!location) throw new Error(`the authorization page answered ${response.status} without a redirect`);
  // The whole address, so the client checks its issuer (RFC 9207) as well as taking the code.
  return location;
}

const registry = new ToolRegistry();
const connection = await connectMcp(url, registry, {
  trust: true,
  connectTimeoutMs: 20_000,
  elicit: async () => ({ action: 'accept', content: {} }),
  ...signInOptions(),
});
/**
 * Arguments a call of `name` can run with: the scenario's own, where it gives them, or a value of each
 * required parameter's type (as a model would fill them), so the registry's validation lets the call through.
 */
function argumentsFor(name: string): Record<string, unknown> {
  const asked = context.toolCalls?.find((call) => call.name === name);
  if (asked) return asked.arguments;
  if (name.endsWith('add_numbers')) return { a: 2, b: 3 };
  // The 2020-12 scenario's echo tool takes another tool's schema, as this client keeps it, to compare with what was sent.
  if (name === 'json_schema_echo') return { schema: connection.definition('json_schema_2020_12_tool')?.inputSchema ?? {} };
  const parameters = registry.get(name)?.parameters;
  const sample = { string: 'x', integer: 1, number: 1, boolean: true, array: [], object: {} } as Record<string, unknown>;
  return Object.fromEntries(
    (parameters?.required ?? []).map((key) => [key, sample[String((parameters?.properties[key] as { type?: unknown } | undefined)?.type)] ?? 'x']),
  );
}

console.log(`protocol ${connection.protocolVersion}`);
const calls = context.toolCalls?.map((call) => call.name) ?? connection.tools;
for (const name of calls) {
  if (!connection.tools.includes(name)) {
    console.log(`${name}: not registered (${connection.skipped.find((s) => s.name === name)?.reason ?? 'not listed'})`);
    continue;
  }
  const outcome = await registry.runTool(name, argumentsFor(name));
  console.log(`${name}: ${outcome.ok ? String(outcome.result).slice(0, 200) : `failed: ${outcome.error}`}`);
}
await connection.close();
