import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { launchChromium, watchPage } from './chromium.ts';
import { openLibraryHarness } from './harness/open-harness.ts';
import { MANY_TOOLS } from '../fixtures/many-tools/many-tools.ts';
import { TIMEOUTS } from '../timeouts.ts';

/** In the page: load the tiny chat model in its worker, register sixty tools, answer once with the fixture sentence encoder. */
async function answerWithToolSearch(page: Page, message: string) {
  return page.evaluate(
    async ({ chatModel, embedModel, tools, message }) => {
      const chat = await window.nexus.NexusChat.load(
        { url: chatModel },
        { dtype: 'q4', toolSelection: { semantic: { source: { url: embedModel }, dtype: 'q8' }, askGroup: false } },
      );
      for (const t of tools) chat.tool(t.function.name, t.function.description, t.function.parameters as never, () => ({ ok: true }));
      const states: string[] = [];
      chat.on('toolSearch', (s) => states.push(s.state));
      await chat.chat(message, { strategy: 'inline', maxRounds: 1, maxNewTokens: 4 });
      const result = { states, status: chat.toolSearch, reasons: chat.lastToolSelection?.reasons ?? {} };
      await chat.dispose();
      const cache = await caches.open('transformers-cache');
      const cached = (await cache.keys()).map((r) => r.url).filter((u) => u.includes('tiny-embed-bert'));
      const stored = await new Promise<number>((resolve, reject) => {
        const open = indexedDB.open('nexus-tool-vectors');
        open.onerror = () => reject(open.error);
        open.onsuccess = () => {
          const count = open.result.transaction('vectors').objectStore('vectors').count();
          count.onsuccess = () => resolve(count.result);
          count.onerror = () => reject(count.error);
        };
      });
      return { ...result, cached, stored };
    },
    {
      chatModel: new URL('models/tiny-random-qwen3', inject('appUrl')).href,
      embedModel: new URL('models/tiny-embed-bert', inject('appUrl')).href,
      tools: MANY_TOOLS,
      message,
    },
  );
}

describe('semantic tool search in Chromium: the sentence encoder in the model worker, tool vectors in IndexedDB', () => {
  let browser: Browser;
  let page: Page;
  let foreign: string[];
  beforeAll(async () => {
    browser = await launchChromium({ webgpu: false });
    page = await browser.newPage();
    ({ foreign } = watchPage(page, new URL(inject('appUrl')).origin));
    await openLibraryHarness(page);
  });
  afterAll(() => browser?.close());

  it('loads the encoder beside the chat model on first need, ranks with it, and keeps the model files and tool vectors', {
    timeout: TIMEOUTS.browserTest,
  }, async () => {
    const first = await answerWithToolSearch(page, "It's too dark in the kitchen");
    expect(first.status.error ?? '').toBe('');
    expect(first.states).toEqual(expect.arrayContaining(['idle', 'loading', 'ready']));
    expect(first.status).toMatchObject({ state: 'ready', info: { dimensions: 48, dtype: 'q8' }, vectors: { computed: 60, reused: 0 } });
    expect(first.reasons.set_lights).toMatch(/semantic|combined/);
    expect(first.cached.some((u) => u.endsWith('onnx/model_quantized.onnx'))).toBe(true);
    expect(first.stored).toBe(60);
  });

  it('embeds no tool again after a reload: the vectors come from IndexedDB', { timeout: TIMEOUTS.browserTest }, async () => {
    await openLibraryHarness(page);
    const again = await answerWithToolSearch(page, 'Will it rain tomorrow in Lisbon?');
    expect(again.status).toMatchObject({ state: 'ready', vectors: { computed: 0, reused: 60 } });
    expect(again.stored).toBe(60);
  });

  it('sent no request anywhere but its own origin', () => {
    expect(foreign).toEqual([]);
  });
});
