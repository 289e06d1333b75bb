import { env } from '@huggingface/transformers';
import { afterEach, describe, expect, it } from 'vitest';
import { useSource } from './use-source.ts';

describe('useSource with a { url } source', () => {
  const had = Object.getOwnPropertyDescriptor(globalThis, 'location');
  afterEach(() => {
    if (had) Object.defineProperty(globalThis, 'location', had);
    else delete (globalThis as { location?: unknown }).location;
  });

  it("resolves an address relative to the page (or worker), as the README writes it: { url: '/models/x' }", () => {
    // transformers.js takes a relative remote host for a local path and never fetches: the load then
    // fails with "Cannot read properties of undefined (reading 'tokenizer_class')".
    Object.defineProperty(globalThis, 'location', { value: { href: 'http://127.0.0.1:4173/assets/nexus-worker.js' }, configurable: true });
    const resolved = useSource({ url: '/models/tiny-random-qwen3' });
    expect(resolved).toMatchObject({ id: 'tiny-random-qwen3', label: '/models/tiny-random-qwen3' });
    expect(env.remoteHost).toBe('http://127.0.0.1:4173/models/');
  });

  it('keeps an absolute address as it is', () => {
    useSource({ url: 'https://models.example/org/qwen3/' });
    expect(env.remoteHost).toBe('https://models.example/org/');
  });
});
