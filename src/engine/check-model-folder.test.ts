import { mkdtemp, mkdir, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { checkModelFolder } from './check-model-folder.ts';
import { loadEngine } from './load-engine.ts';
import { ModelLoadError } from './model-source.ts';

describe('checkModelFolder', () => {
  let dir: string;
  beforeAll(async () => {
    dir = await mkdtemp(join(tmpdir(), 'nexus-model-folder-'));
    await mkdir(join(dir, 'no-tokenizer', 'onnx'), { recursive: true });
    await writeFile(join(dir, 'no-tokenizer', 'config.json'), '{"model_type":"qwen3"}');
    await mkdir(join(dir, 'no-config'), { recursive: true });
    await writeFile(join(dir, 'no-config', 'tokenizer.json'), '{}');
  });
  afterAll(async () => {
    await rm(dir, { recursive: true, force: true });
  });

  it('names the missing tokenizer file instead of failing inside the tokenizer', async () => {
    await expect(checkModelFolder(join(dir, 'no-tokenizer'))).rejects.toThrow(/has no tokenizer\.json/);
    await expect(checkModelFolder(join(dir, 'no-config'))).rejects.toThrow(/has no config\.json/);
    await expect(checkModelFolder(join(dir, 'missing'))).rejects.toThrow(/does not exist/);
  });

  it('tells how to prepare the fixture models when one of them lacks its tokenizer', async () => {
    const seen = new Set(['tests/fixtures/models/tiny-tools-qwen3', 'tests/fixtures/models/tiny-tools-qwen3/config.json']);
    const error = await checkModelFolder('tests/fixtures/models/tiny-tools-qwen3', async (f) => seen.has(f)).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(ModelLoadError);
    expect((error as Error).message).toMatch(/has no tokenizer\.json.*npm run fixtures:prepare/);
  });

  it('loadEngine refuses such a folder before loading anything', async () => {
    const caps = { runtime: 'node', webgpu: false, shaderF16: false } as const;
    await expect(loadEngine({ path: join(dir, 'no-tokenizer') }, caps)).rejects.toThrow(/has no tokenizer\.json/);
  });
});
