import { zipSync } from 'fflate';
import { describe, expect, it } from 'vitest';
import { filesFromZip } from './picked-models.ts';

describe('filesFromZip', () => {
  it('unpacks a zipped model folder into paths relative to the folder', async () => {
    const zip = zipSync({ 'tiny/config.json': new TextEncoder().encode('{}'), 'tiny/onnx/model_q4.onnx': new Uint8Array([1, 2, 3]) });
    const files = await filesFromZip(new Blob([zip]));
    expect(files.map((f) => [f.path, f.data.size])).toEqual([
      ['config.json', 2],
      ['onnx/model_q4.onnx', 3],
    ]);
  });

  it('keeps paths as they are when the archive has no single top folder', async () => {
    const zip = zipSync({ 'config.json': new TextEncoder().encode('{}'), 'onnx/model.onnx': new Uint8Array([1]) });
    expect((await filesFromZip(new Blob([zip]))).map((f) => f.path)).toEqual(['config.json', 'onnx/model.onnx']);
  });
});
