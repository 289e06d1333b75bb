/**
 * What the AI SDK provider costs over the project's own loop, per fixture: the same two-tool
 * question answered through `generateText` (one SDK step per model turn) and through
 * `NexusChat.chat`, on the same loaded model: steps, generations, prompt tokens (and how many of
 * them came from the KV cache). Figures for issue 26 (the provider should cost at most 10% more
 * prompt tokens).
 *
 * Run: `npx tsx tests/bench/ai-sdk-cost.ts`
 */
import { generateText, jsonSchema, stepCountIs, tool } from 'ai';
import { createNexus } from '../../src/ai-sdk/create-nexus.ts';
import { freshToken, modelCheckQuestions, selfCheckQuestion } from '../../src/check/check-questions.ts';
import { NexusChat } from '../../src/nexus/index.ts';
import { FIXTURE_MODELS_DIR, prepareFixtureModels, trainedPrompts } from '../fixtures/prepare-models.ts';
import { seededRandom } from '../fixtures/tools-model/gen-data.ts';

prepareFixtureModels();
for (const model of ['tiny-tools-qwen3', 'tiny-tools-lfm2']) {
  const { systemPrompt, answerPrompt } = trainedPrompts(model);
  const chat = await NexusChat.load({ path: `${FIXTURE_MODELS_DIR}${model}` }, { systemPrompt, answerPrompt });
  for (const offered of [1, 2]) {
    const rows: { how: string; steps: number; generations: number; prompt: number; cached: number; grounded: boolean }[] = [];
    for (let run = 0; run < 3; run++) {
      const question = selfCheckQuestion(seededRandom(71_000_000 + run));
      const other = modelCheckQuestions(seededRandom(71_100_000 + run))[0];
      const token = freshToken(seededRandom(71_200_000 + run));
      if (!other) throw new Error('no second question');
      const both = offered === 1 ? [question] : [question, other];
      // Through NexusChat: its own registry.
      for (const name of chat.tools.names) chat.tools.unregister(name);
      for (const q of both) chat.tool(q.tool.name, q.tool.description, q.tool.parameters as never, (args: Record<string, unknown>) => q.result(token, args));
      const direct = await chat.chat(question.question, { maxNewTokens: 96 });
      rows.push({
        how: 'NexusChat',
        steps: direct.metrics.rounds,
        generations: direct.metrics.generations,
        prompt: direct.totalUsage.promptTokens,
        cached: direct.totalUsage.cachedTokens,
        grounded: direct.text.includes(token),
      });
      for (const name of chat.tools.names) chat.tools.unregister(name);
      // Through the AI SDK: the same tools as SDK tools, the same model.
      const tools = Object.fromEntries(
        both.map((q) => {
          const [arg, spec] = Object.entries(q.tool.parameters)[0] as [string, object];
          return [
            q.tool.name,
            tool({
              description: q.tool.description,
              inputSchema: jsonSchema<Record<string, unknown>>({ type: 'object', properties: { [arg]: spec }, required: [arg] }),
              execute: async (input: Record<string, unknown>) => q.result(token, input),
            }),
          ];
        }),
      );
      const sdk = await generateText({
        model: createNexus()(undefined, { chat }),
        tools,
        stopWhen: stepCountIs(5),
        prompt: question.question,
        maxOutputTokens: 96,
      });
      const generations = sdk.steps.reduce((sum, s) => sum + Number((s.providerMetadata?.nexus as { generations?: number } | undefined)?.generations ?? 0), 0);
      rows.push({
        how: 'generateText',
        steps: sdk.steps.length,
        generations,
        prompt: sdk.totalUsage.inputTokens ?? 0,
        cached: sdk.totalUsage.inputTokenDetails.cacheReadTokens ?? 0,
        grounded: sdk.text.includes(token),
      });
    }
    const sum = (how: string, key: 'prompt' | 'cached' | 'generations' | 'steps') => rows.filter((r) => r.how === how).reduce((s, r) => s + r[key], 0);
    console.log(`\n== ${model}: the check question with ${offered === 1 ? 'its tool' : 'its tool and another'} offered, 3 runs`);
    for (const r of rows)
      console.log(`${r.how.padEnd(13)} steps ${r.steps}  generations ${r.generations}  prompt tokens ${r.prompt} (cached ${r.cached})  grounded ${r.grounded}`);
    console.log(
      `generateText / NexusChat prompt tokens ${(sum('generateText', 'prompt') / sum('NexusChat', 'prompt')).toFixed(3)}; computed (not cached) ${((sum('generateText', 'prompt') - sum('generateText', 'cached')) / (sum('NexusChat', 'prompt') - sum('NexusChat', 'cached'))).toFixed(3)}`,
    );
  }
  await chat.dispose();
}
