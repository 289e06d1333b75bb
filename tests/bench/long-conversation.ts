/**
 * A long conversation on the real engine: `tiny-tools-qwen3` (a 4,096-token context, real tokenizer
 * and template, ONNX Runtime in Node) asked a question with a long paragraph turn after turn, with
 * its tools offered. Prints, per turn, the prompt tokens of the first generation against the
 * budget, the share of them read from the KV cache, the answer's time, and whether older messages
 * left the model's memory — the figures of issue 25. Answer times are compared with the first
 * turns of the same run (ratios), never with a clock.
 *
 * Run: `npx tsx tests/bench/long-conversation.ts [--turns 30]`
 */
import { FIXTURE_MODELS_DIR, prepareFixtureModels } from '../fixtures/prepare-models.ts';
import { selfCheckQuestion } from '../../src/check/check-questions.ts';
import { NexusChat } from '../../src/nexus/index.ts';
import type { ChatReply } from '../../src/loop/types.ts';

const turnsArg = process.argv.indexOf('--turns');
const TURNS = turnsArg > 0 ? Number(process.argv[turnsArg + 1]) : 30;
const PARAGRAPH =
  'The river rises in the northern hills, runs past three market towns and a ruined abbey, and meets the sea at a wide estuary where ' +
  'herons feed at low tide. Its valley was farmed for centuries; the mills along its banks ground grain until the last one closed, ' +
  'and the old towpath is now a walking trail that follows the water for most of its length. ';

prepareFixtureModels();
const chat = await NexusChat.load({ path: `${FIXTURE_MODELS_DIR}tiny-tools-qwen3` }, { dtype: 'q4' });
const question = selfCheckQuestion(() => 0.25);
chat.tool(question.tool.name, question.tool.description, question.tool.parameters as never, (args: Record<string, unknown>) =>
  question.result('AB-1234-CD', args),
);
const context = chat.context;
if (!context) throw new Error('The engine reported no context budget.');
const maxNewTokens = 64;
const budget = context.tokens - maxNewTokens;
console.log(`context: ${context.detail}; prompt budget ${budget} (maxNewTokens ${maxNewTokens})`);
console.log('turn  prompt  cached  share  ms      trimmed');

const rows: { prompt: number; cached: number; ms: number; trimmed: boolean }[] = [];
let conversation: Pick<ChatReply, 'messages' | 'memory'> | undefined;
for (let turn = 1; turn <= TURNS; turn++) {
  const started = performance.now();
  const answer = await chat.chat(`Note ${turn}. ${PARAGRAPH.repeat(3)}What is the main point of note ${turn}?`, {
    strategy: 'inline',
    maxNewTokens,
    ...conversation,
  });
  conversation = { messages: answer.messages, memory: answer.memory };
  const ms = performance.now() - started;
  const first = answer.steps.find((s) => s.kind === 'generation');
  const prompt = first?.kind === 'generation' ? first.promptTokens : 0;
  const cached = first?.kind === 'generation' ? first.cachedTokens : 0;
  const over = answer.steps.filter((s) => s.kind === 'generation' && s.promptTokens > budget).length;
  if (over) throw new Error(`Turn ${turn}: ${over} generations over the budget.`);
  const trimmed = answer.steps.some((s) => s.kind === 'memory');
  rows.push({ prompt, cached, ms, trimmed });
  console.log(
    `${String(turn).padStart(4)}  ${String(prompt).padStart(6)}  ${String(cached).padStart(6)}  ${(cached / Math.max(prompt, 1)).toFixed(2).padStart(5)}  ${ms.toFixed(0).padStart(6)}  ${trimmed ? `yes (memory from message ${answer.memory.from})` : ''}`,
  );
}
await chat.dispose();

const median = (values: number[]) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)] ?? 0;
const firstFive = median(rows.slice(0, 5).map((r) => r.ms));
const lastFive = median(rows.slice(-5).map((r) => r.ms));
console.log(
  `max prompt ${Math.max(...rows.map((r) => r.prompt))} of ${budget}; trims at turns ${
    rows
      .map((r, i) => (r.trimmed ? i + 1 : 0))
      .filter(Boolean)
      .join(', ') || 'none'
  }; median answer time, last five turns / first five: ${(lastFive / firstFive).toFixed(2)}`,
);
