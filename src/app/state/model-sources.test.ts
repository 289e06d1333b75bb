import { zipSync } from 'fflate';
import { describe, expect, it } from 'vitest';
import { MODEL_FAMILIES } from '../../engine/families.ts';
import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { startAppServer } from '../../server/app-server.ts';
import { KNOWN_MODELS, modelAddress, modelLabel, servedModelFolders, sourceFromFolder, sourceFromZip } from './model-sources.ts';

function picked(path: string, text = 'x'): File {
  const file = new File([text], path.split('/').pop() ?? path);
  Object.defineProperty(file, 'webkitRelativePath', { value: path });
  return file;
}

describe('model sources', () => {
  it('names a picked folder by its top folder and drops it from the paths', () => {
    const source = sourceFromFolder([picked('qwen/config.json'), picked('qwen/onnx/model_q4.onnx')]);
    expect('files' in source && source.files.map((f) => f.path)).toEqual(['config.json', 'onnx/model_q4.onnx']);
    expect(modelLabel(source)).toBe('qwen');
  });

  it('unzips a picked .zip, with or without a top folder', async () => {
    const nested = zipSync({ 'm/config.json': new TextEncoder().encode('{}'), 'm/onnx/model_q4.onnx': new Uint8Array([1, 2]) });
    const source = await sourceFromZip(new File([nested], 'm.zip'));
    expect('files' in source && source.files.map((f) => f.path).sort()).toEqual(['config.json', 'onnx/model_q4.onnx']);
    const flat = zipSync({ 'config.json': new TextEncoder().encode('{}'), 'onnx/model.onnx': new Uint8Array([1]) });
    const flatSource = await sourceFromZip(new File([flat], 'tiny.zip'));
    expect('files' in flatSource && flatSource.name).toBe('tiny');
    await expect(sourceFromZip(new File(['not a zip'], 'bad.zip'))).rejects.toThrow(/bad\.zip is not a readable \.zip/);
  });

  it('writes ?model= the way it is read back', () => {
    expect(modelAddress({ hub: 'onnx-community/Qwen3-0.6B-ONNX' }, 'http://localhost')).toBe('onnx-community/Qwen3-0.6B-ONNX');
    expect(modelAddress({ hub: 'a/b', revision: 'v2' }, 'http://localhost')).toBe('a/b@v2');
    expect(modelAddress({ url: 'http://localhost/models/tiny' }, 'http://localhost')).toBe('/models/tiny');
    expect(modelAddress({ files: [] }, 'http://localhost')).toBeUndefined();
    expect(modelLabel({ url: 'http://localhost/models/tiny/' })).toBe('tiny');
  });
});

describe('KNOWN_MODELS', () => {
  it('offers one browser-ready build of each family the loop speaks, each with its profile and an approximate size', () => {
    const families = new Set(KNOWN_MODELS.map((m) => m.family));
    for (const id of ['qwen3', 'qwen3.5', 'gemma4', 'qwen2.5', 'llama3.2', 'granite4', 'lfm2', 'functiongemma'] as const) expect(families.has(id)).toBe(true);
    for (const m of KNOWN_MODELS) {
      expect(MODEL_FAMILIES[m.family].id).toBe(m.family);
      expect(m.approxBytes).toBeGreaterThan(100e6);
      expect(m.id).toMatch(/^[\w.-]+\/[\w.-]+$/);
    }
    expect(new Set(KNOWN_MODELS.map((m) => m.id)).size).toBe(KNOWN_MODELS.length);
    expect(KNOWN_MODELS[0]?.id).toBe('onnx-community/Qwen3-0.6B-ONNX');
  });

  it("offers today's small models beside the default, each with its own profile (issue 40)", () => {
    expect(KNOWN_MODELS.slice(1, 3).map((m) => [m.label, m.family])).toEqual([
      ['Qwen3.5-0.8B', 'qwen3.5'],
      ['Gemma 4 E2B', 'gemma4'],
    ]);
  });
});

describe('servedModelFolders', () => {
  it('lists the folders with a config.json that the app server serves under /models/, as addresses', async () => {
    const root = await mkdtemp(join(tmpdir(), 'nexus-served-'));
    const models = join(root, 'models');
    await mkdir(join(models, 'tiny-a'), { recursive: true });
    await writeFile(join(models, 'tiny-a', 'config.json'), '{}');
    await mkdir(join(models, 'not-a-model'), { recursive: true });
    const app = await startAppServer({ root, port: 0, mounts: { '/models/': models } });
    try {
      expect(await servedModelFolders(app.url)).toEqual(['/models/tiny-a']);
    } finally {
      await app.close();
      await rm(root, { recursive: true, force: true });
    }
  });

  it('offers nothing where the server lists nothing', async () => {
    const root = await mkdtemp(join(tmpdir(), 'nexus-served-'));
    const app = await startAppServer({ root, port: 0 });
    try {
      expect(await servedModelFolders(app.url)).toEqual([]);
    } finally {
      await app.close();
      await rm(root, { recursive: true, force: true });
    }
  });
});
