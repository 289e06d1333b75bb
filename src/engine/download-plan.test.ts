import { stat } from 'node:fs/promises';
import { createServer, type Server } from 'node:http';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startAppServer, type AppServer } from '../server/app-server.ts';
import { FIXTURE_MODELS_DIR, TINY_QWEN3, prepareFixtureModels } from '../../tests/fixtures/prepare-models.ts';
import { filesFor, planDownload } from './download-plan.ts';

let app: AppServer;
let hub: Server;
let hubUrl = '';
const hubRequests: string[] = [];

beforeAll(async () => {
  prepareFixtureModels();
  app = await startAppServer({ root: FIXTURE_MODELS_DIR, port: 0, mounts: { '/models/': FIXTURE_MODELS_DIR } });
  // A hub whose weights answer like LFS files do: a small pointer body, the real size in x-linked-size.
  hub = createServer((req, res) => {
    hubRequests.push(`${req.method} ${req.url}`);
    if (req.url === '/o/m/resolve/main/config.json') {
      res
        .writeHead(200, { 'Content-Type': 'application/json' })
        .end(JSON.stringify({ 'transformers.js_config': { use_external_data_format: { 'model_q4.onnx': 2 } } }));
    } else if (req.url?.startsWith('/o/m/resolve/main/onnx/')) res.writeHead(200, { 'Content-Length': '0', 'X-Linked-Size': '300000000' }).end();
    else if (req.url?.endsWith('generation_config.json')) res.writeHead(404).end();
    else res.writeHead(200, { 'Content-Length': '1000' }).end();
  });
  await new Promise<void>((resolve) => hub.listen(0, '127.0.0.1', () => resolve()));
  hubUrl = `http://127.0.0.1:${(hub.address() as { port: number }).port}/`;
});
afterAll(async () => {
  await app?.close();
  await new Promise<void>((resolve) => hub.close(() => resolve()));
});

describe('planDownload', () => {
  it('knows every file of a served folder and its exact size before the first byte of weights', async () => {
    const plan = await planDownload({ url: `${app.url}models/${TINY_QWEN3}` }, 'q4');
    const size = async (file: string) => (await stat(join(FIXTURE_MODELS_DIR, TINY_QWEN3, file))).size;
    expect(plan).toEqual([
      { file: 'config.json', total: await size('config.json') },
      { file: 'generation_config.json', total: await size('generation_config.json') },
      { file: 'tokenizer.json', total: await size('tokenizer.json') },
      { file: 'tokenizer_config.json', total: await size('tokenizer_config.json') },
      { file: 'onnx/model_q4.onnx', total: await size('onnx/model_q4.onnx') },
    ]);
  });

  it("reads the hub's real sizes, the external-data chunks config.json names, and leaves out a file the hub lacks", async () => {
    hubRequests.length = 0;
    const plan = await planDownload({ hub: 'o/m' }, 'q4', { hubUrl });
    expect(plan).toEqual([
      { file: 'config.json', total: 75 },
      { file: 'tokenizer.json', total: 1000 },
      { file: 'tokenizer_config.json', total: 1000 },
      { file: 'onnx/model_q4.onnx', total: 300_000_000 },
      { file: 'onnx/model_q4.onnx_data', total: 300_000_000 },
      { file: 'onnx/model_q4.onnx_data_1', total: 300_000_000 },
    ]);
    // One GET (config.json), then only headers: nothing of the weights is downloaded to measure them.
    expect(hubRequests.filter((r) => r.startsWith('GET'))).toEqual(['GET /o/m/resolve/main/config.json']);
  });

  it('measures picked files directly, and says nothing it cannot know', async () => {
    const files = [
      { path: 'm/config.json', data: new Blob(['{}']) },
      { path: 'm/onnx/model_q4.onnx', data: new Blob([new Uint8Array(1234)]) },
    ];
    expect(await planDownload({ files }, 'q4')).toEqual([
      { file: 'config.json', total: 2 },
      { file: 'onnx/model_q4.onnx', total: 1234 },
    ]);
    expect(await planDownload({ path: '/somewhere' }, 'q4')).toBeUndefined();
  });

  it('lists both sessions of a multimodal model loaded text-only (Qwen3.5, Gemma 4): the embedding and the decoder', () => {
    const qwen35 = { architectures: ['Qwen3_5ForConditionalGeneration'], text_config: { model_type: 'qwen3_5_text' } };
    expect(filesFor('q4f16', qwen35).slice(-2)).toEqual(['onnx/embed_tokens_q4f16.onnx', 'onnx/decoder_model_merged_q4f16.onnx']);
    // A causal LM keeps its one file, whatever its config says besides.
    expect(filesFor('q4', { architectures: ['Qwen3ForCausalLM'] }).at(-1)).toBe('onnx/model_q4.onnx');
  });

  it('lists the weights file for each dtype the way transformers.js names it', () => {
    expect(filesFor('q8').at(-1)).toBe('onnx/model_quantized.onnx');
    expect(filesFor('fp16', { 'transformers.js_config': { use_external_data_format: true } }).slice(-2)).toEqual([
      'onnx/model_fp16.onnx',
      'onnx/model_fp16.onnx_data',
    ]);
  });
});
