import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { request } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startAppServer, type AppServer } from './app-server.ts';

/** A raw GET, so paths like `/../x` reach the server unnormalised (fetch would clean them). */
function rawGet(app: AppServer, path: string, method = 'GET'): Promise<{ status: number; type?: string; body: string }> {
  const { hostname, port } = new URL(app.url);
  return new Promise((done, fail) => {
    const req = request({ host: hostname, port, path, method }, (res) => {
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

  it('serves the page at / with its content type', async () => {
    const res = await rawGet(app, '/?model=onnx-community/Qwen3-0.6B-ONNX');
    expect(res.status).toBe(200);
    expect(res.type).toBe('text/html; charset=utf-8');
    expect(res.body).toContain('<title>t</title>');
  });

  it('serves tools.js as JavaScript and wasm as application/wasm', async () => {
    expect((await rawGet(app, '/tools.js')).type).toBe('text/javascript; charset=utf-8');
    expect((await rawGet(app, '/assets/ort.wasm')).type).toBe('application/wasm');
  });

  it.each(['/../secret.txt', '/%2e%2e/secret.txt', '/assets/..%2f..%2fsecret.txt', '/%00'])(
    'never serves a file outside its root (%s)',
    async (path) => {
      const res = await rawGet(app, path);
      expect(res.status).toBe(404);
      expect(res.body).not.toContain('outside the root');
    },
  );

  it('serves a mounted folder under its prefix, and nothing outside it', async () => {
    const res = await rawGet(app, '/models/tiny/config.json');
    expect(res).toMatchObject({ status: 200, type: 'application/json; charset=utf-8', body: '{"model_type":"qwen3"}' });
    expect((await rawGet(app, '/models/tiny/onnx/model_q4.onnx')).status).toBe(404);
    expect((await rawGet(app, '/models/%2e%2e/secret.txt')).status).toBe(404);
  });

  it('answers 404 for a missing file and 405 for a POST', async () => {
    expect((await rawGet(app, '/nope.js')).status).toBe(404);
    expect((await rawGet(app, '/', 'POST')).status).toBe(405);
  });
});
