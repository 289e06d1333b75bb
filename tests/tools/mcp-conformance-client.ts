/**
 * The client `@modelcontextprotocol/conformance` runs against each of its client scenarios: this project's
 * `connectMcp`, configured as an app would (trusting the scenario's server so no user is asked, answering
 * elicitation forms by accepting, signing in with OAuth). The runner appends the server's address and sets
 * `MCP_CONFORMANCE_SCENARIO`, and for some scenarios `MCP_CONFORMANCE_CONTEXT` (a pre-registered client).
 * It lists the tools, calls each once, and closes (ending the session).
 */
import { connectMcp } from '../../src/tools/mcp-tools.ts';
import { ToolRegistry } from '../../src/tools/tool-registry.ts';

const url = process.argv.at(-1) ?? '';
const context = JSON.parse(process.env.MCP_CONFORMANCE_CONTEXT ?? '{}') as { client_id?: string; client_secret?: string };

/**
 * The user's part of a sign-in, as a test plays it: opens the authorization page (the scenario's server
 * approves at once) and takes the code from where it redirects.
 */
async function authorize(page: URL): Promise<string> {
  const response = await fetch(page, { redirect: 'manual' });
  const location = response.headers.get('location');
  const code = location ? new URL(location).searchParams.get('code') : null;
  if (!code) throw new Error(`the authorization page answered ${response.status} without a code`);
  return code;
}

const registry = new ToolRegistry();
const connection = await connectMcp(url, registry, {
  trust: true,
  connectTimeoutMs: 20_000,
  elicit: async () => ({ action: 'accept', content: {} }),
  oauth: {
    redirectUrl: 'http://localhost:3000/callback',
    authorize,
    // The scenario's own client metadata document (used where the authorization server accepts one).
    clientMetadataUrl: 'https://conformance-test.local/client-metadata.json',
    ...(context.client_id ? { client: { client_id: context.client_id, ...(context.client_secret ? { client_secret: context.client_secret } : {}) } } : {}),
  },
});
for (const name of connection.tools) {
  const args = name.endsWith('add_numbers') ? { a: 2, b: 3 } : {};
  const outcome = await registry.runTool(name, args);
  console.log(`${name}: ${outcome.ok ? String(outcome.result).slice(0, 200) : `failed: ${outcome.error}`}`);
}
await connection.close();
