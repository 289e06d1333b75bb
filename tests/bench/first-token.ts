/**
 * Time to first token, in Node, on the real engine: the first question of a new conversation (the
 * system prompt and tools computed), the first question of a second conversation with the same tools
 * (their KV reused), a turn right after older messages left the model's memory, and the turns
 * around it; then peak memory with 4k, 8k and 16k tokens of context. Figures for issue 25, as
 * ratios to the cold first question of the same run.
 *
 * Run: `npx tsx tests/bench/first-token.ts [--model tiny-tools-qwen3 | --real-size] [--dtype q4] [--no-trim] [--memory]`
 * (`--no-trim` skips the long conversation, which at real size in Node — a 40,960-token budget — takes hours).
 * (`--real-size` needs the benchmark model of `npm run bench -- --real-size`, built into .cache/).
 */
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { selfCheckQuestion } from '../../src/check/check-questions.ts';
import { loadEngine } from '../../src/engine/load-engine.ts';
import type { GenerateOptions, GenerateResult } from '../../src/engine/engine.ts';
import { PARSER_MARKERS } from '../../src/loop/answer-runner.ts';
import { NexusChat } from '../../src/nexus/index.ts';
import type { ChatReply } from '../../src/loop/types.ts';
import { DelegatingEngine } from '../../src/testing/delegating-engine.ts';
import { FIXTURE_MODELS_DIR, prepareFixtureModels } from '../fixtures/prepare-models.ts';

const arg = (name: string) => {
  const at = process.argv.indexOf(name);
  return at > 0 ? process.argv[at + 1] : undefined;
};
const realSize = process.argv.includes('--real-size');
const folder = realSize
  ? join(fileURLToPath(new URL('../../.cache/', import.meta.url)), 'real-size-qwen3')
  : `${FIXTURE_MODELS_DIR}${arg('--model') ?? 'tiny-tools-qwen3'}`;
const dtype = arg('--dtype') ?? 'q4';

/** Records, per generation, the time from the call to the first generated text and what the prompt cost. */
class Timed extends DelegatingEngine {
  readonly timings: { firstTokenMs: number; promptTokens: number; cachedTokens: number }[] = [];
  override async generate(prompt: string, options: GenerateOptions): Promise<GenerateResult> {
    const started = performance.now();
    let first: number | undefined;
    const result = await super.generate(prompt, {
      ...options,
      onText: (text) => {
        first ??= performance.now();
        options.onText?.(text);
      },
    });
    this.timings.push({ firstTokenMs: (first ?? performance.now()) - started, promptTokens: result.promptTokens, cachedTokens: result.cachedTokens });
    return result;
  }
}

prepareFixtureModels();
const { engine } = await loadEngine(
  { path: folder },
  { runtime: 'node', webgpu: false, shaderF16: false },
  { dtype: dtype as 'q4', keepMarkers: PARSER_MARKERS },
);
const timed = new Timed(engine);
const chat = NexusChat.withEngine(timed);
const question = selfCheckQuestion(() => 0.25);
chat.tool(question.tool.name, question.tool.description, question.tool.parameters as never, (args: Record<string, unknown>) =>
  question.result('AB-1234-CD', args),
);
const budget = chat.context;
console.log(`${folder.split('/').at(-1)} ${dtype} in Node; context ${budget?.detail}`);
/** The conversation so far (the chat keeps none): each reply hands it on. */
let conversation: { messages?: ChatReply['messages']; memory?: ChatReply['memory'] } = {};
const ask = async (text: string) => {
  const before = timed.timings.length;
  const answer = await chat.chat(text, { strategy: 'inline', maxNewTokens: 64, ...conversation });
  conversation = { messages: answer.messages, memory: answer.memory };
  if (answer.steps.some((s) => s.kind === 'round' && s.phase === 'answer'))
    console.log(`  (${JSON.stringify(text.slice(0, 30))}: the answer needed an answer round, rendered without tools)`);
  const first = timed.timings[before] ?? { firstTokenMs: 0, promptTokens: 0, cachedTokens: 0 };
  return { ...first, trimmed: answer.steps.some((s) => s.kind === 'memory') };
};

const cold = await ask('Write one line about rivers.');
conversation = {};
const second = await ask('Write one line about mountains.');
console.log(
  `first question, new conversation: ${cold?.firstTokenMs.toFixed(0)} ms to the first token (prompt ${cold?.promptTokens}, cached ${cold?.cachedTokens})`,
);
console.log(
  `second conversation, same tools: ${second?.firstTokenMs.toFixed(0)} ms (prompt ${second?.promptTokens}, cached ${second?.cachedTokens}); ratio to the first ${((second?.firstTokenMs ?? 0) / (cold?.firstTokenMs ?? 1)).toFixed(2)}`,
);

const paragraph = 'The river rises in the northern hills, runs past three market towns and a ruined abbey, and meets the sea at a wide estuary. '.repeat(8);
const rows: Awaited<ReturnType<typeof ask>>[] = [];
const turns = process.argv.includes('--no-trim') ? 0 : 60;
for (let turn = 1; turn <= turns && rows.filter((r) => r.trimmed).length < 2; turn++)
  rows.push(await ask(`Note ${turn}. ${paragraph} What is note ${turn} about?`));
const trimAt = rows.findIndex((r) => r.trimmed);
if (trimAt > 0) {
  const show = (r: (typeof rows)[number] | undefined) => `${r?.firstTokenMs.toFixed(0)} ms (prompt ${r?.promptTokens}, cached ${r?.cachedTokens})`;
  console.log(`turn before the first trim: ${show(rows[trimAt - 1])}`);
  console.log(
    `the trimmed turn: ${show(rows[trimAt])}; ratio to the first question ${((rows[trimAt]?.firstTokenMs ?? 0) / (cold?.firstTokenMs ?? 1)).toFixed(2)}`,
  );
  console.log(`the turn after it: ${show(rows[trimAt + 1])}`);
} else if (turns) console.log(`no trim within ${turns} turns`);

if (process.argv.includes('--memory')) {
  for (const tokens of [4096, 8192, 16384]) {
    await engine.generate('', { maxNewTokens: 1 }).catch(() => undefined);
    const words = tokens - 16;
    const prompt = await engine.render([{ role: 'user', content: 'word '.repeat(words) }], { addGenerationPrompt: true, enableThinking: false });
    let peak = process.memoryUsage().rss;
    const sampler = setInterval(() => (peak = Math.max(peak, process.memoryUsage().rss)), 50);
    const started = performance.now();
    const result = await engine.generate(prompt, { maxNewTokens: 2 });
    clearInterval(sampler);
    peak = Math.max(peak, process.memoryUsage().rss);
    console.log(
      `context ${result.promptTokens} tokens: peak RSS ${(peak / 1024 ** 3).toFixed(2)} GiB, prefill ${((performance.now() - started) / 1000).toFixed(1)} s`,
    );
  }
}
await chat.dispose();
