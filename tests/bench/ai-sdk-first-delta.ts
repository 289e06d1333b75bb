/**
 * Time to the first text delta in the page, through the AI SDK (`NexusChatTransport` →
 * `streamText` → the provider, in the model worker) against `NexusChat.chat` on the same loaded
 * model in the same page, alternating, 5 runs each; headless Chromium on WASM, the trained
 * fixture. Figures for issue 26 (as a ratio: absolute times depend on the machine).
 *
 * Run: `npx tsx tests/bench/ai-sdk-first-delta.ts [--model tiny-tools-qwen3]`
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { launchChromium } from '../e2e/chromium.ts';
import { FIXTURE_MODELS_DIR, prepareFixtureModels } from '../fixtures/prepare-models.ts';
import { openHarnessPage, serveBenchHarness } from './bench-harness.ts';

const at = process.argv.indexOf('--model');
const model = at > 0 ? (process.argv[at + 1] ?? 'tiny-tools-qwen3') : 'tiny-tools-qwen3';
prepareFixtureModels();
const prompts = JSON.parse(readFileSync(join(FIXTURE_MODELS_DIR, model, 'trained-prompts.json'), 'utf8')) as { systemPrompt: string; answerPrompt: string };
const harness = await serveBenchHarness(FIXTURE_MODELS_DIR);
const browser = await launchChromium({ webgpu: false });
try {
  const page = await openHarnessPage(browser, harness);
  // No inner named functions in page code: tsx would wrap them in a helper the page does not have.
  const figures = await page.evaluate(
    async ({ url, prompts }) => {
      const chat = await window.nexus.NexusChat.load({ url }, { device: 'wasm', systemPrompt: prompts.systemPrompt, answerPrompt: prompts.answerPrompt });
      const { createNexus, NexusChatTransport } = window.nexusAiSdk;
      const transport = new NexusChatTransport({ model: createNexus()(undefined, { chat }), maxOutputTokens: 32 });
      const direct: number[] = [];
      const viaSdk: number[] = [];
      const question = 'Write one line about rivers.';
      for (let run = 0; run < 6; run++) {
        let started = performance.now();
        let first: number | undefined;
        const stop = chat.on('token', () => {
          first ??= performance.now() - started;
        });
        await chat.chat(question, { maxNewTokens: 32, toolChoice: 'none' });
        stop();
        if (run > 0) direct.push(first ?? Number.NaN);
        started = performance.now();
        const stream = await transport.sendMessages({
          trigger: 'submit-message',
          chatId: `bench-${run}`,
          messageId: undefined,
          messages: [{ id: `m${run}`, role: 'user', parts: [{ type: 'text', text: question }] }],
          abortSignal: undefined,
        });
        let sdkFirst: number | undefined;
        const reader = stream.getReader();
        for (;;) {
          const { done, value } = await reader.read();
          if (done) break;
          if (value.type === 'text-delta') sdkFirst ??= performance.now() - started;
        }
        if (run > 0) viaSdk.push(sdkFirst ?? Number.NaN);
      }
      await chat.dispose();
      return { direct, viaSdk };
    },
    { url: `${harness.modelsUrl}${model}`, prompts },
  );
  const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)] ?? Number.NaN;
  console.log(`${model}, Chromium WASM, time to the first text delta (median of 5 after a warm-up run):`);
  console.log(
    `NexusChat.chat ${median(figures.direct).toFixed(0)} ms; through the AI SDK transport ${median(figures.viaSdk).toFixed(0)} ms; ratio ${(median(figures.viaSdk) / median(figures.direct)).toFixed(2)}`,
  );
  console.log(`runs: NexusChat ${figures.direct.map((x) => x.toFixed(0)).join(', ')}; transport ${figures.viaSdk.map((x) => x.toFixed(0)).join(', ')}`);
} finally {
  await browser.close();
  await harness.close();
}
