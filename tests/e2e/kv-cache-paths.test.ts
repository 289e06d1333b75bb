import type { Page } from 'playwright-core';
import { describe, expect, inject, it } from 'vitest';
import { useLibraryHarness } from './harness/open-harness.ts';

/**
 * Issue 31: how the KV cache travels between tokens in a real browser. On WASM a model with the
 * appended layout (tiny-random-qwen3-appended: the same weights as tiny-random-qwen3) answers
 * exactly as the present layout does, through ONNX Runtime Web's CPU build; on WebGPU the present
 * layout's cache stays in GPU buffers between tokens. And the Qwen3.5 layout (linear-attention layers
 * with a recurrent state) loads and answers on WASM.
 */

/** Two turns of one conversation (the second reuses the first's cache) and what the engine said of its cache. */
function answerTwice(page: Page, model: string, options: { dtype: string; device: string }, maxNewTokens = 20) {
  return page.evaluate(
    async ({ url, options, maxNewTokens }) => {
      const chat = await window.nexus.NexusChat.load({ url }, { ...options, allowFallbackAdapter: true });
      const ask = { toolChoice: 'none', repetitionPenalty: 1, maxNewTokens } as const;
      const first = await chat.chat('What is the weather in Paris?', ask);
      const second = await chat.chat('And in Rome?', { ...ask, messages: first.messages, memory: first.memory });
      const result = { kvCache: chat.info.kvCache, texts: [first.text, second.text], cached: second.metrics.cachedTokens };
      await chat.dispose();
      return result;
    },
    { url: new URL(`models/${model}`, inject('appUrl')).href, options, maxNewTokens },
  );
}

describe('the KV cache in Chromium, WASM', () => {
  const page = useLibraryHarness({ webgpu: false });

  it('answers from the appended layout word for word as from the present one, reusing the cache across turns', async () => {
    const present = await answerTwice(page(), 'tiny-random-qwen3', { dtype: 'q8', device: 'wasm' });
    const appended = await answerTwice(page(), 'tiny-random-qwen3-appended', { dtype: 'q8', device: 'wasm' });
    expect(present.kvCache).toBe('present-copied');
    expect(appended.kvCache).toBe('appended');
    expect(appended.texts).toEqual(present.texts);
    expect(appended.texts.join('').length).toBeGreaterThan(0);
    expect(appended.cached).toBe(present.cached);
    expect(appended.cached).toBeGreaterThan(0);
  });

  it('loads the Qwen3.5 layout (recurrent state beside the KV) and answers with a tool through it (issue 40)', async () => {
    const result = await page().evaluate(
      async ({ url }) => {
        const chat = await window.nexus.NexusChat.load({ url }, { dtype: 'q8', device: 'wasm' });
        let calls = 0;
        chat.tool('get_weather', 'Get current weather for a city', { city: 'string' }, () => {
          calls++;
          return { temperature_c: 12 };
        });
        const answer = await chat.chat('What is the weather in Paris?', { toolChoice: 'required', maxNewTokens: 12 });
        const out = { kvCache: chat.info.kvCache, family: chat.info.family.id, calls, called: answer.calls.map((c) => c.name), text: answer.text };
        await chat.dispose();
        return out;
      },
      { url: new URL('models/tiny-random-qwen3_5', inject('appUrl')).href },
    );
    expect(result).toMatchObject({ kvCache: 'recurrent', family: 'qwen3.5', called: ['get_weather'] });
    expect(result.calls).toBe(1);
    expect(result.text.length).toBeGreaterThan(0);
  });
});

describe('the KV cache in Chromium, WebGPU (the software adapter)', () => {
  const page = useLibraryHarness({ webgpu: true });

  it('stays in GPU buffers between tokens with the present layout; the appended layout answers the same', async () => {
    const present = await answerTwice(page(), 'tiny-random-qwen3', { dtype: 'q4', device: 'webgpu' }, 6);
    expect(present.kvCache).toBe('present-on-gpu');
    expect(present.cached).toBeGreaterThan(0);
    const appended = await answerTwice(page(), 'tiny-random-qwen3-appended', { dtype: 'q4', device: 'webgpu' }, 6);
    expect(appended.kvCache).toBe('appended');
    expect(appended.texts).toEqual(present.texts);
  });
});
