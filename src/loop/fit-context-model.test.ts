import { beforeAll, describe, expect, it } from 'vitest';
import { FIXTURE_MODELS_DIR, prepareFixtureModels } from '../../tests/fixtures/prepare-models.ts';
import { selfCheckQuestion } from '../check/check-questions.ts';
import { NexusChat } from '../nexus/index.ts';
import { FULL_MEMORY } from './fit-context.ts';
import type { ChatReply } from './types.ts';
import { TIMEOUTS } from '../../tests/timeouts.ts';

const PARAGRAPH =
  'The river rises in the northern hills, runs past three market towns and a ruined abbey, and meets the sea at a wide estuary where ' +
  'herons feed at low tide. Its valley was farmed for centuries, and the old towpath is now a walking trail. ';
/** Turns enough to pass the 4,096-token context with long notes: few turns, as each costs a generation (issue 70). */
const TURNS = 9;

describe('a long conversation on the real engine (tiny-tools-qwen3: 4,096-token context, real tokenizer and template)', () => {
  beforeAll(() => prepareFixtureModels());

  it('keeps every prompt within the budget the config gives, says when older messages leave the memory, and stores them all', {
    timeout: TIMEOUTS.modelTest,
  }, async () => {
    const chat = await NexusChat.load({ path: `${FIXTURE_MODELS_DIR}tiny-tools-qwen3` }, { dtype: 'q4' });
    try {
      const question = selfCheckQuestion(() => 0.25);
      chat.tool(question.tool.name, question.tool.description, question.tool.parameters as never, (args: Record<string, unknown>) =>
        question.result('AB-1234-CD', args),
      );
      expect(chat.context).toMatchObject({ contextLength: 4096, source: 'config', tokens: 4096 });
      const maxNewTokens = 24;
      const budget = 4096 - maxNewTokens;
      const trims: number[] = [];
      chat.on('memory', (trim) => trims.push(trim.from));
      let largest = 0;
      let conversation: Pick<ChatReply, 'messages' | 'memory'> = { messages: [], memory: FULL_MEMORY };
      for (let turn = 1; turn <= TURNS; turn++) {
        const answer = await chat.chat(`Note ${turn}. ${PARAGRAPH.repeat(12)}What is note ${turn} about?`, {
          strategy: 'inline',
          maxNewTokens,
          ...conversation,
        });
        conversation = answer;
        for (const step of answer.steps) if (step.kind === 'generation') largest = Math.max(largest, step.promptTokens);
      }
      expect(largest).toBeLessThanOrEqual(budget);
      // The prompts reached the budget, so older blocks left the model's memory; every message is still stored.
      expect(trims.length).toBeGreaterThan(0);
      expect(conversation.memory.from).toBe(trims.at(-1));
      expect(conversation.messages.filter((m) => m.role === 'user')).toHaveLength(TURNS);
      expect(conversation.messages[conversation.memory.from]?.role).toBe('user');
    } finally {
      await chat.dispose();
    }
  });
});
