import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { FIXTURE_MODELS_DIR, prepareFixtureModels, trainedPrompts } from '../../tests/fixtures/prepare-models.ts';
import { seededRandom } from '../../tests/fixtures/tools-model/gen-data.ts';
import { NexusChat } from '../nexus.ts';

/** The fixtures trained to call tools, each in its family's own dialect. */
const TRAINED = [
  { model: 'tiny-tools-qwen3', family: 'qwen3' },
  // LFM2_TRAINED
] as const;

for (const { model, family } of TRAINED) {
  describe(`selfCheck in Node on ${model}, trained to call tools in the ${family} dialect`, () => {
    let chat: NexusChat;
    beforeAll(async () => {
      prepareFixtureModels();
      chat = await NexusChat.load({ path: `${FIXTURE_MODELS_DIR}${model}` });
      // Asked in the words it was trained on, so the product's prompts may change without retraining it.
      const prompts = trainedPrompts(model);
      chat.systemPrompt = prompts.systemPrompt;
      chat.answerPrompt = prompts.answerPrompt;
    });
    afterAll(() => chat?.dispose());

    it('passes: the tool is called inline and its fresh token comes back in the answer, in about one question', async () => {
      // Seeded (with seeds the training never used), so a failure is the same failure on the next run.
      const check = await chat.selfCheck({ random: seededRandom(70_000_001) });
      expect(check).toMatchObject({ ok: true, called: true, grounded: true, needed_forcing: false, device: 'cpu', dtype: 'q4', family: { id: family } });
      expect(check.detail).toMatch(/calls tools and answers from their results\.$/);
      expect(check.answer).toMatch(/[A-Z]{2}-\d{4}-[A-Z]{2}/);
      expect(check.generations).toBe(2);
    });

    it('passes with fresh tokens run after run', async () => {
      const results = [];
      for (let i = 0; i < 5; i++) results.push(await chat.selfCheck({ random: seededRandom(70_000_100 + i) }));
      expect(results.filter((r) => r.ok)).toHaveLength(5);
      expect(new Set(results.map((r) => r.answer)).size).toBe(5);
    });
  });
}
