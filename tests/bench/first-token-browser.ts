/**
 * Time to first token and peak memory in headless Chromium on WASM, at real size (the benchmark
 * model of `npm run bench -- --real-size`), through the library's public API in its model worker:
 * the first question of a new conversation, the first question of a second conversation with the
 * same tools, the turns around the first trim of a long conversation, then the largest context the
 * budget lets through at 4k, 8k and 16k tokens with the peak memory of Chromium's processes.
 * Figures for issue 25, the browser half of `first-token.ts`.
 *
 * Time to first token here is what a user waits for: from `chat()` to the first `token` event in
 * the page, render and worker messages included.
 *
 * Run: `npx tsx tests/bench/first-token-browser.ts [--dtype q8] [--threads 2] [--no-trim]`
 */
import { readdirSync, readFileSync } from 'node:fs';
import { CHROMIUM_PATH, launchChromium } from '../e2e/chromium.ts';
import { ensureChromium } from '../setup/ensure-chromium.ts';
import { openHarnessPage, serveBenchHarness } from './bench-harness.ts';
import { ensureRealSizeModel } from './real-size.ts';
import { fileURLToPath } from 'node:url';
import { join } from 'node:path';

const arg = (name: string) => {
  const at = process.argv.indexOf(name);
  return at > 0 ? process.argv[at + 1] : undefined;
};
const dtype = arg('--dtype') ?? 'q8';
const threads = Number(arg('--threads') ?? 2);
const CACHE = join(fileURLToPath(new URL('../../', import.meta.url)), '.cache');

/** Resident memory of every Chromium process now: the largest one (the renderer running the model worker) and the sum. */
function chromiumRss(): { largest: number; total: number } {
  let largest = 0;
  let total = 0;
  for (const pid of readdirSync('/proc').filter((name) => /^\d+$/.test(name))) {
    try {
      // Debian's /usr/bin/chromium is a script that runs /usr/lib/chromium/chromium: match the process name.
      if (readFileSync(`/proc/${pid}/comm`, 'utf8').trim() !== 'chromium') continue;
      const rss = Number(/VmRSS:\s+(\d+) kB/.exec(readFileSync(`/proc/${pid}/status`, 'utf8'))?.[1] ?? 0) * 1024;
      largest = Math.max(largest, rss);
      total += rss;
    } catch {
      // The process ended between the listing and the read.
    }
  }
  return { largest, total };
}

/** Samples {@link chromiumRss} until stopped; the peaks. */
function samplePeak(): () => { largest: number; total: number } {
  const peak = { largest: 0, total: 0 };
  const take = () => {
    const now = chromiumRss();
    peak.largest = Math.max(peak.largest, now.largest);
    peak.total = Math.max(peak.total, now.total);
  };
  take();
  const timer = setInterval(take, 100);
  return () => {
    clearInterval(timer);
    take();
    return peak;
  };
}

const gib = (bytes: number) => `${(bytes / 1024 ** 3).toFixed(2)} GiB`;

ensureRealSizeModel();
ensureChromium(CHROMIUM_PATH);
const harness = await serveBenchHarness(CACHE);
const browser = await launchChromium({ webgpu: false });
try {
  const page = await openHarnessPage(browser, harness);
  // No inner named functions in the page code: tsx would wrap them in a helper the page does not have.
  const loaded = await page.evaluate(
    async ({ url, dtype, threads }) => {
      const chat = await window.nexus.NexusChat.load({ url }, { dtype: dtype as 'q8', device: 'wasm', numThreads: threads });
      chat.tool(
        'get_order_status',
        'Look up the delivery status of an order by its order number.',
        { order_id: 'string' },
        () => 'Order AB-1234-CD: shipped on Monday, arriving Thursday.',
      );
      (window as unknown as { benchChat: typeof chat }).benchChat = chat;
      return { detail: chat.context?.detail ?? 'no budget', tokens: chat.context?.tokens ?? 0, threads: chat.info.threads ?? 1 };
    },
    { url: `${harness.modelsUrl}real-size-qwen3`, dtype, threads },
  );
  console.log(`real-size-qwen3 ${dtype} in Chromium WASM, ${loaded.threads} threads; context ${loaded.detail}`);

  const ask = (text: string, reset = false) =>
    page.evaluate(
      async ({ text, reset }) => {
        // The chat keeps no conversation: the page keeps each reply's, and a reset starts a new one.
        const bench = window as unknown as {
          benchChat: import('../../src/nexus/index.ts').NexusChat;
          benchConversation?: Pick<import('../../src/loop/types.ts').ChatReply, 'messages' | 'memory'>;
        };
        const chat = bench.benchChat;
        if (reset) bench.benchConversation = undefined;
        const started = performance.now();
        let first: number | undefined;
        const stop = chat.on('token', () => {
          first ??= performance.now();
        });
        try {
          const answer = await chat.chat(text, { strategy: 'inline', maxNewTokens: 8, ...bench.benchConversation });
          bench.benchConversation = { messages: answer.messages, memory: answer.memory };
          const generation = answer.steps.find((s) => s.kind === 'generation');
          return {
            firstTokenMs: (first ?? performance.now()) - started,
            promptTokens: generation?.kind === 'generation' ? generation.promptTokens : 0,
            cachedTokens: generation?.kind === 'generation' ? generation.cachedTokens : 0,
            trimmed: answer.steps.some((s) => s.kind === 'memory'),
            answerRound: answer.steps.some((s) => s.kind === 'round' && s.phase === 'answer'),
          };
        } finally {
          stop();
        }
      },
      { text, reset },
    );
  const show = (r: Awaited<ReturnType<typeof ask>> | undefined) =>
    `${r?.firstTokenMs.toFixed(0)} ms (prompt ${r?.promptTokens}, cached ${r?.cachedTokens})${r?.answerRound ? ' [needed an answer round, rendered without tools]' : ''}`;

  const cold = await ask('Write one line about rivers.');
  const second = await ask('Write one line about mountains.', true);
  console.log(`first question, new conversation: ${show(cold)}`);
  console.log(`second conversation, same tools: ${show(second)}; ratio to the first ${(second.firstTokenMs / cold.firstTokenMs).toFixed(2)}`);

  if (!process.argv.includes('--no-trim')) {
    await page.evaluate(() => {
      (window as unknown as { benchConversation?: unknown }).benchConversation = undefined;
    });
    const paragraph = 'The river rises in the northern hills, runs past three market towns and a ruined abbey, and meets the sea at a wide estuary. '.repeat(8);
    const rows: Awaited<ReturnType<typeof ask>>[] = [];
    for (let turn = 1; turn <= 60 && rows.filter((r) => r.trimmed).length < 2; turn++)
      rows.push(await ask(`Note ${turn}. ${paragraph} What is note ${turn} about?`));
    const trimAt = rows.findIndex((r) => r.trimmed);
    console.log(`turns: ${rows.map((r, i) => `${i + 1}:${r.firstTokenMs.toFixed(0)}${r.trimmed ? '*' : ''}`).join(' ')} (ms to the first token; * a trim)`);
    if (trimAt > 0) {
      console.log(`turn before the first trim: ${show(rows[trimAt - 1])}`);
      console.log(`the trimmed turn: ${show(rows[trimAt])}; ratio to the first question ${((rows[trimAt]?.firstTokenMs ?? 0) / cold.firstTokenMs).toFixed(2)}`);
      console.log(`the turn after it: ${show(rows[trimAt + 1])}`);
    } else console.log('no trim within 60 turns');
  }

  for (const tokens of [4096, 8192, 16384]) {
    const stopSampling = samplePeak();
    const result = await page.evaluate(
      async ({ words }) => {
        const chat = (window as unknown as { benchChat: import('../../src/nexus/index.ts').NexusChat }).benchChat;
        const started = performance.now();
        try {
          const answer = await chat.chat('word '.repeat(words), { maxNewTokens: 2, toolChoice: 'none', isolated: true });
          return { ok: true, promptTokens: answer.metrics.promptTokens, ms: performance.now() - started, message: '' };
        } catch (error) {
          return { ok: false, promptTokens: 0, ms: performance.now() - started, message: `${(error as Error).name}: ${(error as Error).message}` };
        }
      },
      { words: tokens - 16 },
    );
    const peak = stopSampling();
    console.log(
      result.ok
        ? `context ${result.promptTokens} tokens: peak RSS renderer ${gib(peak.largest)}, all Chromium processes ${gib(peak.total)}, prefill ${(result.ms / 1000).toFixed(1)} s`
        : `context ~${tokens} tokens: refused before generation (${result.message.slice(0, 160)}…); peak RSS renderer ${gib(peak.largest)}`,
    );
  }
  await page.evaluate(() => (window as unknown as { benchChat: import('../../src/nexus/index.ts').NexusChat }).benchChat.dispose());
} finally {
  await browser.close();
  await harness.close();
}
