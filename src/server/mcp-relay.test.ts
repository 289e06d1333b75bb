import { mkdtemp, writeFile } from 'node:fs/promises';
import { createServer, request as httpRequest } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startModernMcpServer } from '../../tests/tools/modern-mcp-server.ts';
import { startMcpServer, type TestMcpServer } from '../../tests/tools/start-mcp-server.ts';
import { connectMcp } from '../tools/mcp-tools.ts';
import { ToolRegistry } from '../tools/tool-registry.ts';
import { type AppServer, startAppServer } from './app-server.ts';
import { createMcpRelay, type McpRelayOptions, mcpRelayServersFromEnv } from './mcp-relay.ts';
import { TIMEOUTS } from '../../tests/timeouts.ts';

let mcp: TestMcpServer;
let root: string;
/** Every address the relay fetched. */
const fetched: string[] = [];
const spyFetch: typeof fetch = (input, init) => {
  fetched.push(String(input));
  return fetch(input, init);
};

beforeAll(async () => {
  mcp = await startMcpServer({ REQUIRE_TOKEN: 'server-secret' });
  root = await mkdtemp(join(tmpdir(), 'nexus-relay-'));
  await writeFile(join(root, 'index.html'), '<!doctype html><title>t</title>');
}, TIMEOUTS.processStart);

afterAll(() => mcp?.kill());

async function appWith(options: Partial<McpRelayOptions> = {}): Promise<AppServer> {
  const relay = createMcpRelay({
    servers: [{ name: 'notes', url: mcp.url, headers: { Authorization: 'Bearer server-secret' }, label: 'Team notes' }],
    fetch: spyFetch,
    ...options,
  });
  return startAppServer({ root, port: 0, before: relay });
}

/** An address on the app server. */
const at = (app: AppServer, path: string) => new URL(path, app.url).href.replace(/^(http:\/\/[^/]+)\/+/, '$1/');

/** A raw request, so Host and Origin can be whatever an attacker's page would send. */
function raw(url: string, headers: Record<string, string>, method = 'GET'): Promise<{ status: number; body: string }> {
  return new Promise((resolve, reject) => {
    const req = httpRequest(url, { method, headers }, (res) => {
      let body = '';
      res.on('data', (chunk) => {
        body += chunk;
      });
      res.on('end', () => resolve({ status: res.statusCode ?? 0, body }));
    });
    req.on('error', reject);
    req.end();
  });
}

describe('the app server relays MCP to the servers its operator listed, and to nothing else', () => {
  it('an MCP client reaches a listed server through the relay; the server’s token is added there and never shown', async () => {
    const app = await appWith();
    try {
      // Without the relay the token is needed: the page could not call it directly.
      await expect(connectMcp(mcp.url, new ToolRegistry(), { connectTimeoutMs: 3000 })).rejects.toThrow(/401/);
      const registry = new ToolRegistry();
      const connection = await connectMcp(at(app, `/mcp-relay/notes`), registry);
      expect(connection.serverName).toBe('notes');
      // Every tool of a server asks (issue 41): approved here.
      expect(await registry.runTool('add_numbers', { a: 40, b: 2 }, { approve: () => true })).toMatchObject({ ok: true, result: '42' });
      await connection.close();

      const listing = await fetch(at(app, `/mcp-relay/`));
      const text = await listing.text();
      expect(JSON.parse(text)).toEqual({ servers: [{ name: 'notes', url: '/mcp-relay/notes', label: 'Team notes', trust: false }] });
      expect(text).not.toContain('server-secret');
      expect(text).not.toContain(String(mcp.port));
    } finally {
      await app.close();
    }
  });

  it('relays a server of the 2026-07-28 revision: its discovery, and the Mcp-Method, Mcp-Name and Mcp-Param headers each request must carry', async () => {
    const modern = await startModernMcpServer({ legacy: 'reject' });
    const app = await appWith({ servers: [{ name: 'modern', url: modern.url }] });
    try {
      const registry = new ToolRegistry();
      const connection = await connectMcp(at(app, '/mcp-relay/modern'), registry, { trust: true });
      expect(connection.protocolVersion).toBe('2026-07-28');
      expect(await registry.runTool('echo', { text: 'hi', region: 'eu' })).toMatchObject({ ok: true, result: 'echo: hi' });
      await connection.close();
      const call = modern.requests.find((request) => request.headers['mcp-method'] === 'tools/call');
      expect(call?.headers).toMatchObject({ 'mcp-name': 'echo', 'mcp-param-region': 'eu', 'mcp-protocol-version': '2026-07-28' });
    } finally {
      await app.close();
      await modern.close();
    }
  });

  it('no path, query, encoding or header makes it reach an address that was not listed', async () => {
    const app = await appWith();
    const elsewhere = `http://127.0.0.1:${mcp.port}/other`;
    try {
      fetched.length = 0;
      for (const path of [
        '/mcp-relay/other',
        `/mcp-relay/${encodeURIComponent(elsewhere)}`,
        '/mcp-relay/notes/../other',
        '/mcp-relay/%2e%2e%2fother',
        '/mcp-relay/notes%00',
        '/mcp-relay/%E0%A4%A',
      ]) {
        const response = await raw(`${new URL(app.url).origin}${path}`, { host: new URL(app.url).host });
        expect(response.status, path).toBe(404);
        expect(JSON.parse(response.body)).toMatchObject({ error: 'unknown_server', message: expect.stringContaining('listed: notes') });
      }
      // The name picks the entry; what follows it never reaches the server's address.
      await raw(at(app, `/mcp-relay/notes?url=${encodeURIComponent(elsewhere)}`), { host: new URL(app.url).host, 'x-forwarded-host': 'evil.example' });
      expect(fetched.length).toBeGreaterThan(0);
      expect(new Set(fetched)).toEqual(new Set([mcp.url]));
    } finally {
      await app.close();
    }
  });

  it('does not follow a listed server’s redirect to another address', async () => {
    let reachedTarget = false;
    const target = createServer((_req, res) => {
      reachedTarget = true;
      res.end('{}');
    });
    await new Promise<void>((resolve) => target.listen(0, '127.0.0.1', resolve));
    const redirecting = createServer((_req, res) => {
      res.writeHead(307, { location: `http://127.0.0.1:${(target.address() as AddressInfo).port}/mcp` });
      res.end();
    });
    await new Promise<void>((resolve) => redirecting.listen(0, '127.0.0.1', resolve));
    const app = await appWith({ servers: [{ name: 'moved', url: `http://127.0.0.1:${(redirecting.address() as AddressInfo).port}/mcp` }] });
    try {
      const response = await fetch(at(app, `/mcp-relay/moved`), { method: 'POST', headers: { 'content-type': 'application/json' }, body: '{}' });
      expect(response.status).toBe(502);
      expect(await response.json()).toMatchObject({ error: 'redirect' });
      expect(reachedTarget).toBe(false);
    } finally {
      await app.close();
      target.close();
      redirecting.close();
    }
  });

  it('keeps the proxy’s guard: another site’s Origin, a rebound Host, a missing token', async () => {
    const app = await appWith({ guard: { token: 'page-token' } });
    const host = new URL(app.url).host;
    try {
      fetched.length = 0;
      expect((await raw(at(app, `/mcp-relay/notes`), { host, origin: 'https://evil.example', authorization: 'Bearer page-token' }, 'POST')).status).toBe(403);
      expect((await raw(at(app, `/mcp-relay/notes`), { host: 'evil.example', authorization: 'Bearer page-token' }, 'POST')).status).toBe(403);
      expect((await raw(at(app, `/mcp-relay/notes`), { host }, 'POST')).status).toBe(401);
      expect((await raw(at(app, `/mcp-relay/`), { host, 'sec-fetch-site': 'cross-site', authorization: 'Bearer page-token' })).status).toBe(403);
      expect(fetched).toEqual([]);
      expect((await raw(at(app, `/mcp-relay/`), { host, authorization: 'Bearer page-token' })).status).toBe(200);
    } finally {
      await app.close();
    }
  });

  it("never puts a listed server's HTML or SVG on the app's origin: only MCP's own types pass, every answer sandboxed and unframeable (issue 41)", async () => {
    const hostile = createServer((req, res) => {
      const kind = (req.url ?? '').includes('svg') ? 'image/svg+xml' : (req.url ?? '').includes('json') ? 'application/json' : 'text/html';
      res.writeHead(200, { 'content-type': kind });
      res.end(kind === 'application/json' ? '{"jsonrpc":"2.0","id":1,"result":{}}' : '<script>parent.stolen = indexedDB</script>');
    });
    await new Promise<void>((resolve) => hostile.listen(0, '127.0.0.1', () => resolve()));
    const base = `http://127.0.0.1:${(hostile.address() as AddressInfo).port}`;
    const app = await appWith({
      servers: [
        { name: 'html', url: `${base}/html` },
        { name: 'svg', url: `${base}/svg` },
        { name: 'json', url: `${base}/json` },
      ],
    });
    try {
      for (const name of ['html', 'svg']) {
        const answer = await fetch(at(app, `/mcp-relay/${name}`), { method: 'POST', headers: { 'content-type': 'application/json' }, body: '{}' });
        expect(answer.status).toBe(502);
        expect(answer.headers.get('content-type')).toMatch(/^application\/json/);
        const body = await answer.text();
        expect(body).not.toContain('<script>');
        expect(JSON.parse(body)).toMatchObject({ error: 'not_mcp' });
        expect(answer.headers.get('content-security-policy')).toContain('sandbox');
      }
      const json = await fetch(at(app, '/mcp-relay/json'), { method: 'POST', headers: { 'content-type': 'application/json' }, body: '{}' });
      expect(json.status).toBe(200);
      expect(json.headers.get('content-security-policy')).toBe("sandbox; default-src 'none'; frame-ancestors 'none'");
      expect(json.headers.get('x-frame-options')).toBe('DENY');
      expect(json.headers.get('cross-origin-resource-policy')).toBe('same-origin');
      // Opened as a page, it is refused before the server is asked.
      const host = new URL(app.url).host;
      const opened = await raw(at(app, '/mcp-relay/json'), { host, 'sec-fetch-mode': 'navigate', 'sec-fetch-dest': 'document', 'sec-fetch-site': 'none' });
      expect(opened.status).toBe(403);
      expect(JSON.parse(opened.body)).toMatchObject({ error: 'navigation_refused' });
    } finally {
      await app.close();
      hostile.close();
    }
  });

  it('names a listed server that is down, and bounds a request body', async () => {
    const app = await appWith({ servers: [{ name: 'gone', url: 'http://127.0.0.1:9/mcp' }], maxRequestBytes: 1000 });
    try {
      const down = await fetch(at(app, `/mcp-relay/gone`), { method: 'POST', headers: { 'content-type': 'application/json' }, body: '{}' });
      expect(down.status).toBe(502);
      expect(await down.json()).toMatchObject({ error: 'unreachable', message: expect.stringContaining('The MCP server "gone" cannot be reached') });
      const big = await fetch(at(app, `/mcp-relay/gone`), { method: 'POST', headers: { 'content-type': 'application/json' }, body: 'x'.repeat(5000) });
      expect(big.status).toBe(413);
    } finally {
      await app.close();
    }
  });
});

describe('the relay never shows a listed server’s address (issue 41)', () => {
  it('refuses at start an address with a user name or password, naming the server and showing no secret', () => {
    expect(() => createMcpRelay({ servers: [{ name: 'notes', url: 'http://ops:hunter2@127.0.0.1:9/mcp?key=k1' }] })).toThrow(
      /the address of "notes" \(http:\/\/127\.0\.0\.1:9\/mcp\) holds a user name or password; put credentials in its "headers"/,
    );
    try {
      createMcpRelay({ servers: [{ name: 'notes', url: 'ftp://ops:hunter2@127.0.0.1/x' }] });
    } catch (error) {
      expect((error as Error).message).not.toContain('hunter2');
    }
  });

  it('says why a listed server cannot be reached in words, never with its address or the error’s text', async () => {
    const failing: typeof fetch = async (input) => {
      throw new TypeError(`fetch failed for ${String(input)}`, {
        cause: Object.assign(new Error(`connect ECONNREFUSED ${String(input)}`), { code: 'ECONNREFUSED' }),
      });
    };
    const app = await appWith({ servers: [{ name: 'gone', url: 'http://127.0.0.1:9/mcp?token=t0ps3cret' }], fetch: failing });
    try {
      const down = await fetch(at(app, '/mcp-relay/gone'), { method: 'POST', headers: { 'content-type': 'application/json' }, body: '{}' });
      const body = await down.text();
      expect(down.status).toBe(502);
      expect(body).toContain('cannot be reached from the app server (connection refused)');
      expect(body).not.toContain('t0ps3cret');
      expect(body).not.toContain('127.0.0.1:9');
    } finally {
      await app.close();
    }
  });
});

describe('npm start with MCP_SERVERS', () => {
  it(
    'refuses a list it cannot read, saying which forms it takes',
    async () => {
      const { spawn } = await import('node:child_process');
      const result = await new Promise<{ code: number | null; err: string }>((done) => {
        const child = spawn(process.execPath, ['--import', 'tsx', 'src/server/start.ts'], {
          env: { ...process.env, PORT: '0', MCP_SERVERS: 'notes' },
          stdio: ['ignore', 'pipe', 'pipe'],
        });
        let err = '';
        child.stderr.on('data', (chunk: Buffer) => {
          err += chunk.toString();
        });
        const timer = setTimeout(() => child.kill(), 20_000);
        child.on('exit', (code) => {
          clearTimeout(timer);
          done({ code, err });
        });
      });
      expect(result.code).toBe(1);
      expect(result.err).toContain('MCP_SERVERS: "notes" is not name=url. Give JSON such as');
    },
    TIMEOUTS.processStart,
  );
});

describe('mcpRelayServersFromEnv', () => {
  it('reads JSON, name=url pairs, or mcp-servers.json beside tools.js; a mistake names the forms', async () => {
    expect(mcpRelayServersFromEnv({ MCP_SERVERS: 'notes=http://127.0.0.1:3001/mcp, files=http://127.0.0.1:3002/mcp' }, '/nonexistent')).toEqual([
      { name: 'notes', url: 'http://127.0.0.1:3001/mcp' },
      { name: 'files', url: 'http://127.0.0.1:3002/mcp' },
    ]);
    expect(mcpRelayServersFromEnv({ MCP_SERVERS: '{"notes":{"url":"http://h/mcp","headers":{"Authorization":"Bearer t"},"trust":true}}' })).toEqual([
      { name: 'notes', url: 'http://h/mcp', headers: { Authorization: 'Bearer t' }, trust: true },
    ]);
    const folder = await mkdtemp(join(tmpdir(), 'nexus-mcp-file-'));
    expect(mcpRelayServersFromEnv({}, folder)).toEqual([]);
    await writeFile(join(folder, 'mcp-servers.json'), '[{"name":"cal","url":"http://127.0.0.1:4000/mcp","label":"Calendar"}]');
    expect(mcpRelayServersFromEnv({}, folder)).toEqual([{ name: 'cal', url: 'http://127.0.0.1:4000/mcp', label: 'Calendar' }]);
    expect(() => mcpRelayServersFromEnv({ MCP_SERVERS: 'notes' })).toThrow(/"notes" is not name=url\. Give JSON such as/);
    expect(() => mcpRelayServersFromEnv({ MCP_SERVERS: '{"notes":{}}' })).toThrow(/the server "notes" has no "url"/);
    expect(() => createMcpRelay({ servers: [{ name: 'a b', url: 'http://h/' }] })).toThrow(/"a b" is not a usable name/);
    expect(() => createMcpRelay({ servers: [{ name: 'f', url: 'file:///etc/passwd' }] })).toThrow(
      /is a file:\/\/ address; the relay speaks MCP over http:\/\/ or https:\/\/ only/,
    );
  });
});
