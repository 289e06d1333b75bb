import { createServer, type Server } from 'node:http';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { diagnoseSource, sourceWideFailure } from './diagnose-source.ts';

/** A loopback stand-in for the hub and for a model server: status per path, and a folder listing. */
let server: Server;
let base = '';
const requests: string[] = [];

beforeAll(async () => {
  server = createServer((req, res) => {
    const path = req.url ?? '/';
    requests.push(`${req.method} ${path}`);
    if (path === '/models/' && req.headers.accept?.includes('application/json')) {
      res.writeHead(200, { 'Content-Type': 'application/json' }).end(JSON.stringify({ folders: ['tiny-random-qwen3', 'tiny-tools-qwen3'] }));
    } else if (path.startsWith('/gated/')) res.writeHead(403).end();
    else if (
      /^\/(?:models\/here|owner\/real\/resolve\/main)\/(?:config|tokenizer|tokenizer_config)\.json$/.test(path) ||
      path === '/models/untokenized/config.json'
    )
      res.writeHead(200, { 'Content-Type': 'application/json' }).end('{}');
    else if (path.startsWith('/spa/')) res.writeHead(200, { 'Content-Type': 'text/html' }).end('<!doctype html>');
    else res.writeHead(404).end();
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', () => resolve()));
  base = `http://127.0.0.1:${(server.address() as { port: number }).port}/`;
});
afterAll(() => new Promise<void>((resolve) => server.close(() => resolve())));

/** A loopback port nothing listens on: the connection is refused, never sent anywhere else. */
async function closedPort(): Promise<string> {
  const probe = createServer();
  await new Promise<void>((resolve) => probe.listen(0, '127.0.0.1', () => resolve()));
  const port = (probe.address() as { port: number }).port;
  await new Promise<void>((resolve) => probe.close(() => resolve()));
  return `http://127.0.0.1:${port}/`;
}

describe('diagnoseSource', () => {
  it('says a hub id that does not exist is not on the hub, with how an id reads', async () => {
    const error = await diagnoseSource({ hub: 'nobody/nothing' }, { hubUrl: base });
    expect(error?.name).toBe('ModelNotFoundError');
    expect(error?.message).toBe(
      `There is no model nobody/nothing on the hub (${new URL(base).host} answered 404 for config.json). Check the id: it reads owner/name, e.g. onnx-community/Qwen3-0.6B-ONNX.`,
    );
  });

  it('names the revision when the model exists but the revision does not', async () => {
    const error = await diagnoseSource({ hub: 'owner/real', revision: 'v9' }, { hubUrl: base });
    expect(error?.message).toContain('There is no model owner/real at revision v9 on the hub');
  });

  it('says a served folder that does not exist was not found, and lists the folders the server serves', async () => {
    const error = await diagnoseSource({ url: `${base}models/no-such-model` });
    expect(error?.name).toBe('ModelNotFoundError');
    expect(error?.message).toBe(
      `The model folder ${base}models/no-such-model was not found on this server (404 for config.json). This server serves: tiny-random-qwen3, tiny-tools-qwen3.`,
    );
  });

  it('takes a web page where config.json should be (a development server) for a missing folder', async () => {
    const error = await diagnoseSource({ url: `${base}spa/model` });
    expect(error?.message).toMatch(/was not found on this server \(a web page instead of config\.json\)\. Check the address\.$/);
  });

  it('says a gated or private hub model needs signing in', async () => {
    const error = await diagnoseSource({ hub: 'gated/model' }, { hubUrl: base });
    expect(error?.name).toBe('ModelAccessError');
    expect(error?.message).toContain('is private or gated on the hub (403 for config.json)');
  });

  it('says the hub cannot be reached, and that the device is offline when the browser says so', async () => {
    const hubUrl = await closedPort();
    const error = await diagnoseSource({ hub: 'onnx-community/Qwen3-0.6B-ONNX' }, { hubUrl, online: false });
    expect(error?.name).toBe('ModelUnreachableError');
    expect(error?.message).toMatch(
      /^Cannot reach the model hub \(127\.0\.0\.1:\d+\) to download onnx-community\/Qwen3-0\.6B-ONNX: this device is offline \(.+\)\. Connect and load again, or load a model folder or \.zip from this computer\.$/,
    );
    expect((await diagnoseSource({ url: `${hubUrl}models/x` }))?.message).toMatch(/^Cannot reach 127\.0\.0\.1:\d+ to load .*: the connection failed/);
  });

  it('names a tokenizer file a served folder lacks: transformers.js would fail naming none (issue 68, P2.6)', async () => {
    const error = await diagnoseSource({ url: `${base}models/untokenized` });
    expect(error?.name).toBe('ModelFilesError');
    expect(error?.message).toMatch(
      /has no tokenizer\.json \(404\): a transformers\.js model folder needs config\.json, tokenizer\.json and tokenizer_config\.json next to onnx\//,
    );
  });

  it('finds nothing wrong with a source that answers, nor with picked files or a Node folder', async () => {
    expect(await diagnoseSource({ url: `${base}models/here` })).toBeUndefined();
    expect(await diagnoseSource({ hub: 'owner/real' }, { hubUrl: base })).toBeUndefined();
    expect(await diagnoseSource({ path: '/nowhere' })).toBeUndefined();
    expect(await diagnoseSource({ files: [] })).toBeUndefined();
  });
});

describe('sourceWideFailure', () => {
  it("ends the load on a file every quantization shares, and lets a quantization's own failure go on down the ladder", async () => {
    const source = { url: `${base}models/here` };
    const shared = await sourceWideFailure(source, new Error(`Could not locate file: "${base}models/here/tokenizer.json".`));
    expect(shared?.name).toBe('ModelFilesError');
    expect(shared?.message).toContain('Every quantization needs this file, so no other was tried.');
    expect(await sourceWideFailure(source, new Error('Could not locate file: "…/onnx/model_q4.onnx".'))).toBeUndefined();
  });
});
