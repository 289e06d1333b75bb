import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startAppsServer, type AppsServer } from '../../tests/tools/mcp-apps-server.ts';
import { TIMEOUTS } from '../../tests/timeouts.ts';
import { appDomains, appResourceOf, appResultOf, appUriOf, McpAppError, visibilityOf } from './mcp-apps.ts';
import { asMcpAppCall, MAX_APP_RESULT_CHARS } from './mcp-app-call.ts';
import { connectMcp, type McpConnection } from './mcp-tools.ts';
import { ToolRegistry } from './tool-registry.ts';

describe('what a server declares for MCP Apps', () => {
  it('finds a tool’s view in _meta.ui.resourceUri or the drafts’ flat key, ui:// only', () => {
    expect(appUriOf({ _meta: { ui: { resourceUri: 'ui://a/b' } } })).toBe('ui://a/b');
    expect(appUriOf({ _meta: { 'ui/resourceUri': 'ui://a/c' } })).toBe('ui://a/c');
    expect(appUriOf({ _meta: { ui: { resourceUri: 'https://a.test/view.html' } } })).toBeUndefined();
    expect(appUriOf({})).toBeUndefined();
  });

  it('reads who may call a tool: both by default, the view only where it says so', () => {
    expect(visibilityOf({})).toEqual({ model: true, app: true });
    expect(visibilityOf({ _meta: { ui: { visibility: ['app'] } } })).toEqual({ model: false, app: true });
    expect(visibilityOf({ _meta: { ui: { visibility: ['model'] } } })).toEqual({ model: true, app: false });
  });

  it('keeps only origins from declared domains: an entry that could end a CSP directive never reaches a policy', () => {
    const { domains, refused } = appDomains({
      connectDomains: ['https://api.example.org/', 'https://a.test; script-src *', 'javascript:alert(1)'],
      resourceDomains: ['https://*.cdn.example.org'],
      frameDomains: 'https://x.test',
    });
    expect(domains).toEqual({ connectDomains: ['https://api.example.org'], resourceDomains: ['https://*.cdn.example.org'] });
    expect(refused).toHaveLength(3);
    expect(refused.join('\n')).toContain('script-src');
    expect(refused.join('\n')).toContain('frameDomains is not a list of origins');
  });

  it('takes a view of the app MIME type only, whole or from a blob, and says what is wrong otherwise', () => {
    const html = '<!doctype html><p>hi</p>';
    const text = appResourceOf('ui://x/v', {
      contents: [{ uri: 'ui://x/v', mimeType: 'text/html;profile=mcp-app', text: html, _meta: { ui: { prefersBorder: false } } }],
    });
    expect(text).toMatchObject({ uri: 'ui://x/v', html, prefersBorder: false, domains: {} });
    const blob = appResourceOf('ui://x/v', {
      contents: [{ uri: 'ui://x/v', mimeType: 'text/html; profile=mcp-app', blob: Buffer.from(html).toString('base64') }],
    });
    expect(blob.html).toBe(html);
    expect(() => appResourceOf('ui://x/v', { contents: [{ uri: 'ui://x/v', mimeType: 'text/html', text: html }] })).toThrow(
      /of type text\/html; an MCP app view is text\/html;profile=mcp-app/,
    );
    expect(() => appResourceOf('https://x/v', {})).toThrow(McpAppError);
    expect(() => appResourceOf('ui://x/v', { contents: [{ uri: 'ui://x/v', mimeType: 'text/html;profile=mcp-app', text: 'x'.repeat(4_000_001) }] })).toThrow(
      /at most 4,000,000/,
    );
  });

  it('hands a view a large result as its text only, cut, and keeps a call’s view only when it is well-formed', () => {
    const big = appResultOf({ content: [{ type: 'text', text: 'a'.repeat(300_000) }], structuredContent: { rows: 'b'.repeat(300_000) } });
    expect(big.structuredContent).toBeUndefined();
    expect(JSON.stringify(big).length).toBeLessThanOrEqual(MAX_APP_RESULT_CHARS);
    const call = { server: 'http://127.0.0.1:1/mcp', uri: 'ui://x/v', tool: 't', arguments: {}, result: { content: [] } };
    expect(asMcpAppCall(call)).toEqual(call);
    expect(asMcpAppCall({ ...call, uri: 'https://x' })).toBeUndefined();
    expect(asMcpAppCall({ ...call, server: 'javascript:1' })).toBeUndefined();
  });
});

describe('an MCP Apps server through connectMcp (the extension’s own server helpers)', () => {
  let server: AppsServer;
  let connection: McpConnection;
  let plain: McpConnection;
  const registry = new ToolRegistry();
  const plainRegistry = new ToolRegistry();

  beforeAll(async () => {
    server = await startAppsServer({ declaredOrigin: 'http://127.0.0.1:9', undeclaredOrigin: 'http://127.0.0.1:9', pageOrigin: 'http://127.0.0.1:9' });
    connection = await connectMcp(server.url, registry, { apps: true, trust: true });
    plain = await connectMcp(server.url, plainRegistry, { trust: true });
  }, TIMEOUTS.processStart);

  afterAll(async () => {
    await Promise.all([connection?.close(), plain?.close()]);
    await server?.close();
  });

  it('offers the extension, and never offers the model a tool meant for its view only', () => {
    expect(server.bodies.some((body) => body.includes('io.modelcontextprotocol/ui') && body.includes('text/html;profile=mcp-app'))).toBe(true);
    expect(connection.tools).toEqual(['show_color', 'read_resource']);
    expect(connection.skipped).toEqual([]);
    expect(plain.tools).toEqual(['show_color', 'read_resource']);
  });

  it('a call of a tool with a view carries the view, its arguments and its whole result for the page; not where apps are off', async () => {
    const result = await registry.runTool('show_color', { color: 'teal' });
    expect(result.ok && result.details?.app).toMatchObject({
      server: server.url,
      uri: 'ui://colors/picker',
      tool: 'show_color',
      arguments: { color: 'teal' },
      result: { content: [{ type: 'text', text: 'Showing teal in the picker.' }], structuredContent: { color: 'teal' } },
    });
    const without = await plainRegistry.runTool('show_color', { color: 'teal' });
    expect(without.ok).toBe(true);
    expect(without.ok && without.details?.app).toBeUndefined();
  });

  it('reads the view with the origins it declared, and calls a view-only tool for the view, naming those it may call otherwise', async () => {
    const view = await connection.readApp('ui://colors/picker');
    expect(view.html).toContain('<script>');
    expect(view.domains).toEqual({ connectDomains: ['http://127.0.0.1:9'] });
    expect(view.prefersBorder).toBe(true);
    await expect(connection.readApp('https://example.org/x')).rejects.toThrow(McpAppError);
    const result = await connection.callForApp('record_choice', { choice: 'green' });
    expect(result.content).toEqual([{ type: 'text', text: 'recorded green' }]);
    expect(server.choices).toEqual(['green']);
    await expect(connection.callForApp('delete_everything', {})).rejects.toThrow(/may call: show_color, record_choice/);
  });
});
