import { cp, mkdtemp, rm } from 'node:fs/promises';
import { createServer, type Server } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startAppServer, type AppServer } from '../server/app-server.ts';
import { FIXTURE_MODELS_DIR, TINY_QWEN3, prepareFixtureModels } from '../../tests/fixtures/prepare-models.ts';
import { NexusChat } from '../nexus/index.ts';
import { loadCandidate } from './load-engine.ts';

/**
 * Loads that fail for the source as a whole, in Node over loopback only: the "hub" is a local
 * server that knows no model, the model server is the app's own, serving fixture folders.
 */
let hub: Server;
let hubUrl = '';
const hubRequests: string[] = [];
let app: AppServer;
let models = '';
let appRequests: string[] = [];

beforeAll(async () => {
  prepareFixtureModels();
  hub = createServer((req, res) => {
    hubRequests.push(req.url ?? '');
    res.writeHead(404).end('Repository not found');
  });
  await new Promise<void>((resolve) => hub.listen(0, '127.0.0.1', () => resolve()));
  hubUrl = `http://127.0.0.1:${(hub.address() as { port: number }).port}/`;
  models = await mkdtemp(join(tmpdir(), 'nexus-load-'));
  await cp(join(FIXTURE_MODELS_DIR, TINY_QWEN3), join(models, 'no-tokenizer'), { recursive: true });
  await rm(join(models, 'no-tokenizer', 'tokenizer.json'));
  await cp(join(FIXTURE_MODELS_DIR, TINY_QWEN3), join(models, 'tiny-random-qwen3'), { recursive: true });
  app = await startAppServer({
    root: models,
    port: 0,
    mounts: { '/models/': models },
    before: (req) => {
      appRequests.push(`${req.method} ${req.url ?? ''}`);
      return false;
    },
  });
});
afterAll(async () => {
  await new Promise<void>((resolve) => hub.close(() => resolve()));
  await app?.close();
  await rm(models, { recursive: true, force: true });
});

describe('a load that fails for the source as a whole', () => {
  it('says a hub id that does not exist is not on the hub, once, without trying each quantization', async () => {
    const error = await NexusChat.load({ hub: 'nobody/nothing' }, { hubUrl }).catch((e: Error) => e);
    expect(error).toMatchObject({ name: 'ModelNotFoundError' });
    expect((error as Error).message).toMatch(/^There is no model nobody\/nothing on the hub/);
    expect((error as Error).message).not.toContain('Tried:');
    // No model file was asked for: the first failure was diagnosed, nothing more was tried.
    expect(hubRequests.filter((r) => r.includes('/onnx/'))).toEqual([]);
  });

  it('says a served folder that does not exist was not found and lists what the server serves', async () => {
    const error = await NexusChat.load({ url: `${app.url}models/no-such-model` }).catch((e: Error) => e);
    expect(error).toMatchObject({ name: 'ModelNotFoundError' });
    expect((error as Error).message).toBe(
      `The model folder ${app.url}models/no-such-model was not found on this server (404 for config.json). This server serves: no-tokenizer, tiny-random-qwen3.`,
    );
  });

  it('does not retry other quantizations after a file every quantization shares failed', async () => {
    appRequests = [];
    const error = await NexusChat.load({ url: `${app.url}models/no-tokenizer` }).catch((e: Error) => e);
    expect(error).toMatchObject({ name: 'ModelFilesError' });
    expect((error as Error).message).toContain('tokenizer.json');
    expect((error as Error).message).toContain('so no other was tried');
    // The quantizations were probed (HEAD), none was downloaded.
    expect(appRequests.filter((r) => r.startsWith('GET') && /\/onnx\//.test(r))).toEqual([]);
    // One attempt: each quantization would have asked for the missing tokenizer again.
    expect(appRequests.filter((r) => r === 'GET /models/no-tokenizer/tokenizer.json')).toHaveLength(1);
  });

  it('still loads a folder that is all there', async () => {
    const chat = await NexusChat.load({ url: `${app.url}models/tiny-random-qwen3` }, { dtype: 'q4' });
    expect(chat.info.dtype).toBe('q4');
    await chat.dispose();
  });

  it('parses a tokenizer once: another quantization of the same folder takes the one parsed, and says its files are done', async () => {
    const source = { url: `${app.url}models/tiny-random-qwen3` };
    type Event = { status?: string; file?: string };
    const tokenizerEvents = (events: Event[]) => events.filter((e) => e.file === 'tokenizer.json').map((e) => e.status);
    const load = async (dtype: string) => {
      const events: Event[] = [];
      const engine = await loadCandidate(source, { device: 'cpu', dtype }, { onProgress: (e) => events.push(e) });
      return { engine, events };
    };
    const first = await load('q8');
    const second = await load('q4');
    // Whether the first load reads the file depends on the tests before it; the second reads nothing.
    expect(tokenizerEvents(first.events).at(-1)).toBe('done');
    expect(tokenizerEvents(second.events)).toEqual(['done']);
    expect(second.engine.countTokens('What is the weather in Paris?')).toBe(first.engine.countTokens('What is the weather in Paris?'));
    await Promise.all([first.engine.dispose(), second.engine.dispose()]);
  });
});
