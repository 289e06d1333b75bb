import { zipSync } from 'fflate';
import { describe, expect, it } from 'vitest';
import { defaultZipLimit, filesFromZip, modelSourceFromZip, ZipReadError } from './picked-models.ts';

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

describe('filesFromZip limits (issue 28, N12)', () => {
  it('stops a zip bomb at the inflated-size limit with an error naming the limit and what to do', async () => {
    // 64 MiB of zeros deflate to about 64 KB.
    const bomb = zipSync({ 'm/config.json': new TextEncoder().encode('{}'), 'm/onnx/model.onnx': new Uint8Array(64 * 1024 * 1024) }, { level: 9 });
    expect(bomb.length).toBeLessThan(1024 * 1024);
    const error = await filesFromZip(new File([bomb], 'bomb.zip'), { maxTotalBytes: 8 * 1024 * 1024 }).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(ZipReadError);
    expect(error).toMatchObject({
      failure: 'too-large',
      message: expect.stringMatching(/^bomb\.zip inflates to more than 8 MiB, .*unzip it yourself and pick the folder instead\.$/),
    });
  });

  it('the default limit is a multiple of the archive size, within a floor and a ceiling', () => {
    const MiB = 1024 * 1024;
    expect(defaultZipLimit(786 * 1024)).toBe(256 * MiB); // the review's 786 KB bomb inflated to 768 MB
    expect(defaultZipLimit(20 * MiB)).toBe(800 * MiB);
    expect(defaultZipLimit(900 * MiB)).toBe(4096 * MiB);
  });

  it('refuses too many entries, a file that is not a zip, and an empty archive, each by name', async () => {
    const many = zipSync(Object.fromEntries(Array.from({ length: 20 }, (_, i) => [`f${i}.txt`, new Uint8Array([1])])));
    await expect(filesFromZip(new File([many], 'many.zip'), { maxEntries: 10 })).rejects.toMatchObject({ failure: 'too-many-entries' });
    await expect(filesFromZip(new File(['not a zip'], 'bad.zip'))).rejects.toMatchObject({
      failure: 'not-zip',
      message: expect.stringContaining('bad.zip is not a readable .zip'),
    });
    await expect(filesFromZip(new File([zipSync({})], 'empty.zip'))).rejects.toMatchObject({ failure: 'empty' });
  });

  it('names a picked model by its top folder', async () => {
    const zip = zipSync({ 'qwen/config.json': new TextEncoder().encode('{}') });
    expect((await modelSourceFromZip(new File([zip], 'download.zip'))).name).toBe('qwen');
  });
});
