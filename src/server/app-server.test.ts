import { spawn, spawnSync } from 'node:child_process';
import { chmod, mkdir, mkdtemp, rm, symlink, utimes, writeFile } from 'node:fs/promises';
import { request } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startAppServer, type AppServer } from './app-server.ts';
import { TIMEOUTS } from '../../tests/timeouts.ts';

/** A raw GET, so paths like `/../x` reach the server unnormalised (fetch would clean them). */
function rawGet(
  app: AppServer | string,
  path: string,
  method = 'GET',
  headers: Record<string, string> = {},
): Promise<{ status: number; type?: string; body: string }> {
  const { hostname, port } = new URL(typeof app === 'string' ? app : app.url);
  return new Promise((done, fail) => {
    const req = request({ host: hostname, port, path, method, headers }, (res) => {
      let body = '';
      res.setEncoding('utf8');
      res.on('data', (chunk: string) => (body += chunk));
      res.on('end', () => done({ status: res.statusCode ?? 0, type: res.headers['content-type'], body }));
    });
    req.on('error', fail);
    req.end();
  });
}

describe('startAppServer', () => {
  let dir: string;
  let app: AppServer;

  beforeAll(async () => {
    dir = await mkdtemp(join(tmpdir(), 'nexus-app-server-'));
    await mkdir(join(dir, 'site', 'assets'), { recursive: true });
    await writeFile(join(dir, 'site', 'index.html'), '<!doctype html><title>t</title>');
    await writeFile(join(dir, 'site', 'tools.js'), "tool('x', 'y', {}, () => 1);");
    await writeFile(join(dir, 'site', 'assets', 'ort.wasm'), Buffer.from([0, 97, 115, 109]));
    await writeFile(join(dir, 'secret.txt'), 'outside the root');
    await mkdir(join(dir, 'models', 'tiny', 'onnx'), { recursive: true });
    await writeFile(join(dir, 'models', 'tiny', 'config.json'), '{"model_type":"qwen3"}');
    app = await startAppServer({ root: join(dir, 'site'), mounts: { '/models/': join(dir, 'models') } });
  });
  afterAll(async () => {
    await app.close();
    await rm(dir, { recursive: true, force: true });
  });

  it('binds loopback by default', () => {
    expect(app.url).toMatch(/^http:\/\/127\.0\.0\.1:\d+\/$/);
  });

  it('serves every file cross-origin isolated, so WASM can use threads', async () => {
    for (const path of ['/', '/tools.js', '/assets/ort.wasm', '/models/tiny/config.json']) {
      const response = await fetch(new URL(path, app.url));
      expect(response.headers.get('cross-origin-opener-policy')).toBe('same-origin');
      expect(response.headers.get('cross-origin-embedder-policy')).toBe('credentialless');
    }
  });

  it('issue 28, N3: every page file carries the Content-Security-Policy and anti-framing headers', async () => {
    for (const path of ['/', '/tools.js', '/assets/ort.wasm']) {
      const response = await fetch(new URL(path, app.url));
      expect(response.headers.get('content-security-policy'), path).toContain("frame-ancestors 'none'");
      expect(response.headers.get('content-security-policy'), path).toContain("script-src 'self' 'wasm-unsafe-eval'");
      expect(response.headers.get('x-frame-options'), path).toBe('DENY');
    }
  });

  it("serves the page's OAuth client metadata document over https, its client id its own address (issue 53: CIMD by default)", async () => {
    const served = await rawGet(app, '/oauth/client-metadata.json', 'GET', { host: 'localhost:4173', 'x-forwarded-proto': 'https' });
    expect(served.status).toBe(200);
    expect(served.type).toContain('application/json');
    expect(JSON.parse(served.body)).toEqual({
      client_id: 'https://localhost:4173/oauth/client-metadata.json',
      client_name: 'Nexus Chat',
      client_uri: 'https://localhost:4173/',
      redirect_uris: ['https://localhost:4173/mcp-oauth-callback.html'],
      grant_types: ['authorization_code', 'refresh_token'],
      response_types: ['code'],
      token_endpoint_auth_method: 'none',
      application_type: 'web',
    });
    // Over plain http no authorization server would take it: not served.
    expect((await rawGet(app, '/oauth/client-metadata.json', 'GET', { host: 'localhost:4173' })).status).toBe(404);
  });

  it('serves the page at / with its content type', async () => {
    const res = await rawGet(app, '/?model=onnx-community/Qwen3-0.6B-ONNX');
    expect(res.status).toBe(200);
    expect(res.type).toBe('text/html; charset=utf-8');
    expect(res.body).toContain('<title>t</title>');
  });

  it("issue 54: compresses the page's own files as the request accepts (brotli, else gzip), once per version, and never a model folder's", async () => {
    const script = `export const words = ${JSON.stringify('a page script that repeats itself '.repeat(400))};\n`;
    await writeFile(join(dir, 'site', 'assets', 'page.js'), script);
    await writeFile(join(dir, 'models', 'tiny', 'tokenizer.json'), JSON.stringify({ vocab: 'token '.repeat(2000) }));
    const get = (path: string, accept?: string) =>
      new Promise<{ encoding?: string; length: number; body: Buffer; vary?: string }>((done, fail) => {
        const { hostname, port } = new URL(app.url);
        request({ host: hostname, port, path, headers: accept === undefined ? {} : { 'Accept-Encoding': accept } }, (res) => {
          const chunks: Buffer[] = [];
          res.on('data', (chunk: Buffer) => chunks.push(chunk));
          res.on('end', () =>
            done({
              encoding: res.headers['content-encoding'],
              length: Number(res.headers['content-length']),
              body: Buffer.concat(chunks),
              vary: res.headers.vary as string,
            }),
          );
        })
          .on('error', fail)
          .end();
      });
    const { brotliDecompressSync, gunzipSync } = await import('node:zlib');
    const br = await get('/assets/page.js', 'gzip, deflate, br');
    expect(br).toMatchObject({ encoding: 'br', vary: 'Accept-Encoding' });
    expect(br.length).toBe(br.body.length);
    expect(br.length).toBeLessThan(script.length / 10);
    expect(brotliDecompressSync(br.body).toString()).toBe(script);
    const gz = await get('/assets/page.js', 'gzip, br;q=0');
    expect(gz.encoding).toBe('gzip');
    expect(gunzipSync(gz.body).toString()).toBe(script);
    const plain = await get('/assets/page.js');
    expect(plain.encoding).toBeUndefined();
    expect(plain.body.toString()).toBe(script);
    // A model's files go as they are: a download's progress counts their bytes against their size.
    const data = await get('/models/tiny/tokenizer.json', 'br, gzip');
    expect(data.encoding).toBeUndefined();
    // A file changed under the same name is compressed again, not served from the first version.
    const changed = `${script}export const more = 1;\n`;
    await writeFile(join(dir, 'site', 'assets', 'page.js'), changed);
    expect(brotliDecompressSync((await get('/assets/page.js', 'br')).body).toString()).toBe(changed);
    // Rewritten at the same size with its old modification time put back, it is compressed again too (issue 67).
    const path = join(dir, 'site', 'assets', 'page.js');
    const then = new Date('2026-01-01T00:00:00Z');
    await utimes(path, then, then);
    expect(brotliDecompressSync((await get('/assets/page.js', 'br')).body).toString()).toBe(changed);
    const same = changed.replace('more = 1', 'more = 2');
    await writeFile(path, same);
    await utimes(path, then, then);
    expect(brotliDecompressSync((await get('/assets/page.js', 'br')).body).toString()).toBe(same);
  });

  it('keeps one compressed body per file and encoding, and at most its byte budget in all, the least recently used dropped (issue 67)', async () => {
    const { CompressedFiles } = await import('./compressed-files.ts');
    const files = new CompressedFiles(10_000);
    // Text that does not compress much: a MINSTD sequence of printable characters.
    const text = (seed: number) => {
      let x = seed;
      const next = () => {
        x = (x * 48271) % 2147483647;
        return String.fromCharCode(33 + (x % 90));
      };
      return Buffer.from(Array.from({ length: 2_000 }, next).join(''));
    };
    await files.body({ path: '/a.js', version: '0' }, 'gzip', async () => text(1));
    const single = files.keptBytes;
    for (let version = 1; version < 5; version++) await files.body({ path: '/a.js', version: String(version) }, 'gzip', async () => text(version + 1));
    // Five versions of one file: only the last one's body is kept.
    expect(files.keptBytes).toBeGreaterThan(0);
    expect(files.keptBytes).toBeLessThan(2 * single);
    for (let n = 0; n < 12; n++) await files.body({ path: `/f${n}.js`, version: '1' }, 'gzip', async () => text(n + 11));
    expect(files.keptBytes).toBeLessThanOrEqual(10_000);
    expect(files.keptBytes).toBeGreaterThan(10_000 - 2 * single);
  });

  it('serves tools.js as JavaScript and wasm as application/wasm', async () => {
    expect((await rawGet(app, '/tools.js')).type).toBe('text/javascript; charset=utf-8');
    expect((await rawGet(app, '/assets/ort.wasm')).type).toBe('application/wasm');
  });

  it.each(['/../secret.txt', '/%2e%2e/secret.txt', '/assets/..%2f..%2fsecret.txt', '/%00'])('never serves a file outside its root (%s)', async (path) => {
    const res = await rawGet(app, path);
    expect(res.status).toBe(404);
    expect(res.body).not.toContain('outside the root');
  });

  it('serves a mounted folder under its prefix, and nothing outside it', async () => {
    const res = await rawGet(app, '/models/tiny/config.json');
    expect(res).toMatchObject({ status: 200, type: 'application/json; charset=utf-8', body: '{"model_type":"qwen3"}' });
    expect((await rawGet(app, '/models/tiny/onnx/model_q4.onnx')).status).toBe(404);
    expect((await rawGet(app, '/models/%2e%2e/secret.txt')).status).toBe(404);
  });

  it('lists the model folders of a mount when asked for JSON, and never the app root or other folders', async () => {
    await mkdir(join(dir, 'models', 'not-a-model'), { recursive: true });
    await mkdir(join(dir, 'models', '.hidden'), { recursive: true });
    await writeFile(join(dir, 'models', '.hidden', 'config.json'), '{}');
    const listing = await rawGet(app, '/models/', 'GET', { Accept: 'application/json' });
    expect(listing.status).toBe(200);
    expect(listing.type).toContain('application/json');
    expect(JSON.parse(listing.body)).toEqual({ folders: ['tiny'] });
    expect((await rawGet(app, '/models/')).status).toBe(404);
    expect((await rawGet(app, '/', 'GET', { Accept: 'application/json' })).type).toContain('text/html');
    expect((await rawGet(app, '/models/tiny/', 'GET', { Accept: 'application/json' })).status).toBe(404);
  });

  it('issue 28, N4: files in a model folder are data — never HTML or SVG, sandboxed, not sniffed', async () => {
    const folder = join(dir, 'models', 'tiny');
    await writeFile(join(folder, 'readme.html'), '<script>parent.postMessage(document.cookie, "*")</script>');
    await writeFile(join(folder, 'logo.svg'), '<svg xmlns="http://www.w3.org/2000/svg" onload="alert(1)"/>');
    await writeFile(join(folder, 'notes.htm'), '<script>alert(1)</script>');
    await writeFile(join(folder, 'chat_template.jinja'), '{{ messages }}');
    await writeFile(join(folder, 'onnx', 'model.onnx'), Buffer.from([8, 1]));
    const expected: Array<[string, string]> = [
      ['/models/tiny/readme.html', 'application/octet-stream'],
      ['/models/tiny/logo.svg', 'application/octet-stream'],
      ['/models/tiny/notes.htm', 'application/octet-stream'],
      ['/models/tiny/chat_template.jinja', 'application/octet-stream'],
      ['/models/tiny/onnx/model.onnx', 'application/octet-stream'],
      ['/models/tiny/config.json', 'application/json; charset=utf-8'],
    ];
    for (const [path, type] of expected) {
      const response = await fetch(new URL(path, app.url));
      expect(response.status, path).toBe(200);
      expect(response.headers.get('content-type'), path).toBe(type);
      expect(response.headers.get('content-security-policy'), path).toBe('sandbox');
      expect(response.headers.get('x-content-type-options'), path).toBe('nosniff');
    }
    // The page's own files keep their types.
    expect((await fetch(new URL('/', app.url))).headers.get('content-type')).toBe('text/html; charset=utf-8');
  });

  it('issue 28, N11: a FIFO in a model folder is not opened, and does not tie up the threads other files need', async () => {
    const fifo = join(dir, 'models', 'tiny', 'weights.fifo');
    const made = spawnSync('mkfifo', [fifo]);
    if (made.status !== 0) throw new Error(`mkfifo failed: ${made.stderr}`);
    // More requests at once than libuv has threads (4): a blocking open of each would leave none.
    const fifoStatuses = await Promise.all(Array.from({ length: 8 }, () => rawGet(app, '/models/tiny/weights.fifo').then((r) => r.status)));
    expect(fifoStatuses).toEqual(Array(8).fill(404));
    expect((await rawGet(app, '/models/tiny/config.json')).status).toBe(200);
    await rm(fifo);
  });

  it('answers 404 for a missing file and 405 for a POST', async () => {
    expect((await rawGet(app, '/nope.js')).status).toBe(404);
    expect((await rawGet(app, '/', 'POST')).status).toBe(405);
  });
});

describe('startAppServer hardening (issue 12, findings 4 and 5)', () => {
  let dir: string;
  let app: AppServer;

  beforeAll(async () => {
    dir = await mkdtemp(join(tmpdir(), 'nexus-app-hardening-'));
    const site = join(dir, 'site');
    await mkdir(join(site, 'assets'), { recursive: true });
    await mkdir(join(site, '.git'), { recursive: true });
    await mkdir(join(dir, 'outside'), { recursive: true });
    await writeFile(join(site, 'index.html'), '<!doctype html><title>t</title>');
    await writeFile(join(site, 'tools.js'), "tool('x', 'y', {}, () => 'API_KEY=secret');");
    await writeFile(join(site, 'inner.txt'), 'inside');
    await writeFile(join(site, '.env'), 'API_KEY=dotfile-secret');
    await writeFile(join(site, '.git', 'config'), '[core] dotdir-secret');
    await writeFile(join(site, 'assets', '.hidden.js'), 'hidden-secret');
    await writeFile(join(dir, 'outside', 'passwd'), 'root:x:0:0:symlink-secret');
    await symlink(join(dir, 'outside', 'passwd'), join(site, 'passwd.txt'));
    await symlink(join(dir, 'outside'), join(site, 'linked-dir'));
    await symlink(join(site, 'inner.txt'), join(site, 'alias.txt'));
    app = await startAppServer({ root: site, allowedHosts: ['chat.example.org'] });
  });
  afterAll(async () => {
    await app.close();
    await rm(dir, { recursive: true, force: true });
  });

  it.each(['evil.example', 'evil.example:4173', 'rebind.attacker.test', '127.0.0.1.nip.io'])(
    'refuses a request whose Host is %s (DNS rebinding cannot read tools.js)',
    async (host) => {
      const res = await rawGet(app, '/tools.js', 'GET', { host });
      expect(res.status).toBe(403);
      expect(res.body).not.toContain('API_KEY');
    },
  );

  it.each(['localhost', '127.0.0.1:4173', '[::1]:4173', 'app.localhost', 'chat.example.org'])('serves a request whose Host is %s', async (host) => {
    expect((await rawGet(app, '/tools.js', 'GET', { host })).status).toBe(200);
  });

  it('never follows a symlink out of the served root', async () => {
    for (const path of ['/passwd.txt', '/linked-dir/passwd']) {
      const res = await rawGet(app, path);
      expect(res.status).toBe(404);
      expect(res.body).not.toContain('symlink-secret');
    }
    expect((await rawGet(app, '/alias.txt')).body).toBe('inside');
  });

  it('never serves dotfiles or dot-folders', async () => {
    for (const path of ['/.env', '/.git/config', '/assets/.hidden.js', '/%2eenv', '/.%65nv']) {
      const res = await rawGet(app, path);
      expect(res.status).toBe(404);
      expect(res.body).not.toContain('secret');
    }
  });

  it(
    'a file that passes stat but cannot be read does not bring the server down',
    async () => {
      // Run as an unprivileged user: root reads a mode-000 file anyway. The server is the real one, in a
      // child process, so a crash shows as the child exiting.
      const unreadableRoot = join(dir, 'unreadable');
      await mkdir(unreadableRoot, { recursive: true });
      await writeFile(join(unreadableRoot, 'index.html'), 'ok');
      await writeFile(join(unreadableRoot, 'locked.js'), 'locked');
      await chmod(join(unreadableRoot, 'locked.js'), 0o000);
      await chmod(dir, 0o755);
      const asRoot = process.getuid?.() === 0;
      // The unprivileged user may not be able to enter this checkout (a clone under /root, say): the
      // server it runs is bundled into the test's own world-readable folder, and runs without a loader.
      const bundle = join(dir, 'app-server.mjs');
      const { build } = await import('esbuild');
      await build({
        entryPoints: [fileURLToPath(new URL('./app-server.ts', import.meta.url))],
        bundle: true,
        platform: 'node',
        format: 'esm',
        outfile: bundle,
        logLevel: 'silent',
      });
      await chmod(bundle, 0o644);
      const script = `import { startAppServer } from ${JSON.stringify(bundle)};
const app = await startAppServer({ root: ${JSON.stringify(unreadableRoot)} });
console.log(app.url);`;
      const child = spawn(process.execPath, ['--input-type=module', '-e', script], {
        ...(asRoot ? { uid: 65534, gid: 65534 } : {}),
        cwd: dir,
        stdio: ['ignore', 'pipe', 'pipe'],
      });
      let exited = false;
      child.on('exit', () => (exited = true));
      try {
        const url = await new Promise<string>((done, fail) => {
          let out = '';
          let err = '';
          child.stdout.on('data', (chunk: Buffer) => {
            out += chunk.toString();
            const match = /http:\/\/\S+/.exec(out);
            if (match) done(match[0]);
          });
          child.stderr.on('data', (chunk: Buffer) => (err += chunk.toString()));
          child.on('exit', (code) => fail(new Error(`server exited (${code}): ${err}`)));
        });
        const locked = await rawGet(url, '/locked.js');
        expect(locked.status).toBeGreaterThanOrEqual(400);
        expect(locked.body).not.toContain('locked\n');
        const page = await rawGet(url, '/');
        expect(page).toMatchObject({ status: 200, body: 'ok' });
        expect(exited).toBe(false);
      } finally {
        child.kill();
      }
    },
    TIMEOUTS.networkTest,
  );
});
