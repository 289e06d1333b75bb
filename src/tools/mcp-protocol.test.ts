import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startModernMcpServer, type ModernMcpServer } from '../../tests/tools/modern-mcp-server.ts';
import { startMcpServer, type TestMcpServer } from '../../tests/tools/start-mcp-server.ts';
import { TIMEOUTS } from '../../tests/timeouts.ts';
import { connectMcp } from './mcp-tools.ts';
import { ToolRegistry } from './tool-registry.ts';

/**
 * The protocol revision is negotiated per server (issue 69): a server of 2026-07-28 is spoken to statelessly,
 * found by `server/discover`; one of 2025-11-25 keeps its `initialize` handshake and its session.
 */
describe('MCP 2026-07-28, negotiated per server', () => {
  let modern: ModernMcpServer;
  let modernOnly: ModernMcpServer;
  let legacy: TestMcpServer;
  beforeAll(async () => {
    [modern, modernOnly, legacy] = await Promise.all([startModernMcpServer(), startModernMcpServer({ legacy: 'reject' }), startMcpServer()]);
  }, TIMEOUTS.processStart);
  afterAll(async () => {
    await Promise.all([modern?.close(), modernOnly?.close()]);
    legacy?.kill();
  });

  it('speaks 2026-07-28 to a server that offers it: discovery, no handshake, and the headers each request must carry', async () => {
    for (const server of [modern, modernOnly]) {
      server.requests.length = 0;
      const registry = new ToolRegistry();
      const connection = await connectMcp(server.url, registry, { trust: true });
      expect(connection.protocolVersion).toBe('2026-07-28');
      expect(await registry.runTool('echo', { text: 'hi', region: 'eu' })).toMatchObject({ ok: true, result: 'echo: hi' });
      expect(await registry.runTool('add', { a: 2, b: 3 })).toMatchObject({ ok: true, result: '5' });
      await connection.close();
      const methods = server.requests.map((request) => request.headers['mcp-method']);
      expect(methods[0]).toBe('server/discover');
      expect(methods).not.toContain('initialize');
      expect(server.requests.every((request) => request.headers['mcp-session-id'] === undefined)).toBe(true);
      const call = server.requests.find((request) => request.headers['mcp-name'] === 'echo');
      // The argument the schema marks with x-mcp-header is mirrored into its header (SEP-2243).
      expect(call?.headers).toMatchObject({ 'mcp-method': 'tools/call', 'mcp-param-region': 'eu', 'mcp-protocol-version': '2026-07-28' });
    }
  });

  it('leaves out a tool whose x-mcp-header declarations break the rules, saying why, and keeps the others', async () => {
    const registry = new ToolRegistry();
    const connection = await connectMcp(modern.url, registry, { trust: true });
    expect(connection.tools).toEqual(['echo', 'add']);
    expect(connection.skipped).toEqual([{ name: 'score', reason: expect.stringMatching(/x-mcp-header.*string, integer or boolean.*"number"/) }]);
    await connection.close();
  });

  it('keeps the server’s schema whole, as listed (JSON Schema 2020-12: $schema and all), beside the form the model reads', async () => {
    const registry = new ToolRegistry();
    const connection = await connectMcp(modern.url, registry, { trust: true });
    expect(connection.definition('echo')?.inputSchema).toMatchObject({
      $schema: 'https://json-schema.org/draft/2020-12/schema',
      properties: { region: { type: 'string', 'x-mcp-header': 'Region' } },
    });
    expect(connection.definition('nothing')).toBeUndefined();
    await connection.close();
  });

  it('keeps the 2025-11-25 handshake with a server that does not offer 2026-07-28', async () => {
    const registry = new ToolRegistry();
    const connection = await connectMcp(legacy.url, registry, { trust: true });
    expect(connection.protocolVersion).toBe('2025-11-25');
    expect(await registry.runTool('add_numbers', { a: 40, b: 2 })).toMatchObject({ ok: true, result: '42' });
    await connection.close();
  });
});
