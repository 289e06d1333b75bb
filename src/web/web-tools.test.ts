import { describe, expect, it } from 'vitest';
import { ToolRegistry } from '../tools/tool-registry.ts';
import { ProxyClient } from './proxy-client.ts';
import { READ_PAGE, registerWebTools } from './web-tools.ts';

/** A proxy client whose fetch records each request body and answers a fixed read. */
function recordingClient(): { client: ProxyClient; bodies: Record<string, unknown>[] } {
  const bodies: Record<string, unknown>[] = [];
  const client = new ProxyClient('/api', async (_input, init) => {
    bodies.push(JSON.parse(String(init?.body ?? '{}')) as Record<string, unknown>);
    return Response.json({ ok: true, text: 'Read it.', pages: [] });
  });
  return { client, bodies };
}

describe('the web tools', () => {
  it('ask the proxy for a read no larger than what the model will read of it', async () => {
    const { client, bodies } = recordingClient();
    const registry = new ToolRegistry();
    registerWebTools(registry, client, { answer: 'a'.repeat(22), last: new Map(), sources: new Map() });
    await registry.runTool(READ_PAGE, { url: 'https://site.example/' }, { maxResultChars: 3000.5 });
    await registry.runTool(READ_PAGE, { url: 'https://site.example/' }, {});
    // Below the proxy's smallest sized read, the proxy's own limits apply and the loop cuts the result.
    await registry.runTool(READ_PAGE, { url: 'https://site.example/' }, { maxResultChars: 400 });
    expect(bodies.map((b) => b.maxChars)).toEqual([3000, undefined, undefined]);
  });
});
