import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { rememberedTokenizer, tokenizerKey } from './tokenizer-memo.ts';

describe('tokenizers parsed once per realm (tokenizer-memo)', () => {
  it('parses a tokenizer once and hands the same one to the next load from the same place', async () => {
    let parses = 0;
    const load = async () => ({ parse: ++parses });
    const first = rememberedTokenizer('url:http://127.0.0.1/models/a', load);
    const second = rememberedTokenizer('url:http://127.0.0.1/models/a', load);
    expect([first.remembered, second.remembered]).toEqual([false, true]);
    expect(await second.tokenizer).toBe(await first.tokenizer);
    expect(parses).toBe(1);
  });

  it('parses again where the place has no key (picked files), and after a failed parse', async () => {
    let parses = 0;
    const picked = () => rememberedTokenizer(undefined, async () => ++parses);
    expect([await picked().tokenizer, await picked().tokenizer]).toEqual([1, 2]);
    const failing = rememberedTokenizer('url:http://127.0.0.1/models/broken', () => Promise.reject(new Error('not JSON')));
    await expect(failing.tokenizer).rejects.toThrow('not JSON');
    const retried = rememberedTokenizer('url:http://127.0.0.1/models/broken', async () => 'parsed');
    expect(retried.remembered).toBe(false);
    expect(await retried.tokenizer).toBe('parsed');
  });

  it('keeps the two used last: a third place lets the least recently used go', async () => {
    const load = (name: string) => async () => name;
    rememberedTokenizer('hub:x', load('x'));
    rememberedTokenizer('hub:y', load('y'));
    expect(rememberedTokenizer('hub:x', load('x again')).remembered).toBe(true);
    rememberedTokenizer('hub:z', load('z'));
    expect(rememberedTokenizer('hub:y', load('y again')).remembered).toBe(false);
    expect(await rememberedTokenizer('hub:z', load('z again')).tokenizer).toBe('z');
  });
});

describe('the key of a place', () => {
  let folder: string;
  beforeAll(async () => {
    folder = await mkdtemp(join(tmpdir(), 'nexus-tokenizer-key-'));
    await writeFile(join(folder, 'tokenizer.json'), '{"model":{}}');
    await writeFile(join(folder, 'tokenizer_config.json'), '{}');
  });
  afterAll(() => rm(folder, { recursive: true, force: true }));

  it('names a hub id with its revision, and a served folder by its address', async () => {
    expect(await tokenizerKey({ kind: 'hub', address: 'https://huggingface.co/onnx-community/Qwen3-0.6B-ONNX@main' })).toBe(
      'hub:https://huggingface.co/onnx-community/Qwen3-0.6B-ONNX@main',
    );
    expect(await tokenizerKey({ kind: 'url', address: 'http://127.0.0.1:5173/models/tiny' })).toBe('url:http://127.0.0.1:5173/models/tiny');
  });

  it('names a folder on disk with its files as they are now: a file written since is parsed again', async () => {
    const before = await tokenizerKey({ kind: 'path', address: folder });
    expect(before).toMatch(/^path:/);
    expect(await tokenizerKey({ kind: 'path', address: `${folder}/` })).toBe(before);
    await writeFile(join(folder, 'tokenizer.json'), '{"model":{"vocab":{}}}');
    expect(await tokenizerKey({ kind: 'path', address: folder })).not.toBe(before);
  });

  it('has no key for a folder without the files: the load itself says what is missing', async () => {
    expect(await tokenizerKey({ kind: 'path', address: join(folder, 'nothing-here') })).toBeUndefined();
  });
});
