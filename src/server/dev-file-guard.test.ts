import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { createServer, type ViteDevServer } from 'vite';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { TIMEOUTS } from '../../tests/timeouts.ts';
import { mcpAppSandboxPolicy } from './mcp-app-sandbox.ts';

/** Starting Vite with the project's config (its plugins, the proxy among them) on a busy 2-core machine. */
const START_TIMEOUT_MS = TIMEOUTS.processStart;

/**
 * `npm run dev` as it runs (the project's own vite.config.ts, a real dev server on 127.0.0.1), serving a
 * folder that holds the server's configuration beside the page, asked as a page on another local port
 * would ask (issue 41).
 */
describe('the dev server serves no other origin what is the server’s', () => {
  let server: ViteDevServer;
  let folder: string;
  let base: string;

  beforeAll(async () => {
    folder = mkdtempSync(join(tmpdir(), 'nexus-dev-'));
    writeFileSync(join(folder, 'index.html'), '<!doctype html><title>t</title>');
    writeFileSync(join(folder, 'mcp-servers.json'), JSON.stringify({ notes: { url: 'http://127.0.0.1:9/mcp', headers: { authorization: 'Bearer s3cret' } } }));
    writeFileSync(join(folder, '.env.local'), 'PROXY_TOKEN=s3cret');
    server = await createServer({
      configFile: fileURLToPath(new URL('../../vite.config.ts', import.meta.url)),
      root: folder,
      logLevel: 'silent',
      server: { host: '127.0.0.1', port: 0, strictPort: false, hmr: false, watch: null },
      optimizeDeps: { noDiscovery: true, include: [] },
    });
    await server.listen();
    const address = server.httpServer?.address();
    if (!address || typeof address === 'string') throw new Error('the dev server has no port');
    base = `http://127.0.0.1:${address.port}`;
  }, START_TIMEOUT_MS);
  afterAll(async () => {
    await server?.close();
    rmSync(folder, { recursive: true, force: true });
  });

  const get = (path: string, headers: Record<string, string> = {}) => fetch(`${base}${path}`, { headers });
  const anotherPort = { origin: 'http://127.0.0.1:9999', 'sec-fetch-site': 'same-site', 'sec-fetch-mode': 'cors' };

  it('never serves mcp-servers.json or .env files, to anyone', async () => {
    for (const path of ['/mcp-servers.json', '/MCP-SERVERS.json', '/%6dcp-servers.json', '/.env.local']) {
      const response = await get(path);
      expect(response.status, path).toBe(404);
      expect(await response.text()).not.toContain('s3cret');
    }
  });

  it('serves tools.js to the page’s own origin, and refuses another local port, with no CORS grant on anything', async () => {
    const own = await get('/tools.js', { 'sec-fetch-site': 'same-origin' });
    expect(own.status).toBe(200);
    expect(await own.text()).toContain('loadTools');
    const other = await get('/tools.js', anotherPort);
    expect(other.status).toBe(403);
    expect(other.headers.get('access-control-allow-origin')).toBeNull();
    expect((await get('/tools.js', { origin: 'null' })).status).toBe(403);
    const page = await get('/', anotherPort);
    expect(page.headers.get('access-control-allow-origin')).toBeNull();
  });

  it('serves the MCP app sandbox with its own policy over the page’s headers, framable by the page alone (issue 69)', async () => {
    const csp = encodeURIComponent(JSON.stringify({ connectDomains: ['https://api.example.org'] }));
    const sandbox = await get(`/mcp-app-sandbox.html?csp=${csp}`);
    expect(sandbox.status).toBe(200);
    expect(sandbox.headers.get('content-security-policy')).toBe(mcpAppSandboxPolicy({ connectDomains: ['https://api.example.org'] }));
    expect(sandbox.headers.get('x-frame-options')).toBe('SAMEORIGIN');
    const page = await get('/');
    expect(page.headers.get('content-security-policy')).toContain("frame-ancestors 'none'");
  });
});
