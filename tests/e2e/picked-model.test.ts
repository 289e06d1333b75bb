import { describe, expect, it } from 'vitest';
import { useLibraryHarness } from './harness/open-harness.ts';

const FILES = ['config.json', 'generation_config.json', 'tokenizer.json', 'tokenizer_config.json', 'onnx/model_q4.onnx'];

describe('a model picked from disk (files handed to the worker, remembered in IndexedDB)', () => {
  const page = useLibraryHarness({ webgpu: false });

  it('loads from the picked files, and after a reload from what was remembered, with no re-pick', async () => {
    // Stand in for <input type=file webkitdirectory>: the same Blobs with their relative paths.
    await page().evaluate(async (files) => {
      const picked = await Promise.all(files.map(async (path) => ({ path, data: await (await fetch(`/models/tiny-random-qwen3/${path}`)).blob() })));
      await window.nexus.rememberPickedModel('my-tiny-model', picked);
    }, FILES);
    await page().reload();
    await page().waitForFunction(() => document.body.dataset.ready === 'true');

    const requests: string[] = [];
    page().on('request', (r) => requests.push(r.url()));
    const loaded = await page().evaluate(async () => {
      const names = await window.nexus.listPickedModels();
      const source = await window.nexus.pickedModel('my-tiny-model');
      if (!source) return { names, info: undefined };
      const chat = await window.nexus.NexusChat.load(source, { dtype: 'q4' });
      const info = chat.info;
      await chat.dispose();
      return { names, info };
    });
    expect(loaded.names).toContain('my-tiny-model');
    expect(loaded.info).toMatchObject({ model: 'my-tiny-model', device: 'wasm', dtype: 'q4', family: { id: 'qwen3' } });
    // The model files came from IndexedDB, not from the server.
    expect(requests.filter((u) => u.includes('/models/'))).toEqual([]);
  });
});
