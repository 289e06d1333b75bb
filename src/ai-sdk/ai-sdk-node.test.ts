import { generateText, jsonSchema, stepCountIs, streamText, tool } from 'ai';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { FIXTURE_MODELS_DIR, prepareFixtureModels, trainedPrompts } from '../../tests/fixtures/prepare-models.ts';
import { seededRandom } from '../../tests/fixtures/tools-model/gen-data.ts';
import { freshToken, selfCheckQuestion } from '../check/check-questions.ts';
import { NexusChat } from '../nexus.ts';
import { createNexus } from './create-nexus.ts';

/** The fixtures trained to call tools, each in its family's own dialect, through the real `ai` package. */
const TRAINED = ['tiny-tools-qwen3', 'tiny-tools-lfm2'] as const;

for (const model of TRAINED) {
  describe(`the AI SDK provider in Node on ${model}`, () => {
    let chat: NexusChat;
    beforeAll(async () => {
      prepareFixtureModels();
      chat = await NexusChat.load({ path: `${FIXTURE_MODELS_DIR}${model}` });
      const prompts = trainedPrompts(model);
      chat.systemPrompt = prompts.systemPrompt;
      chat.answerPrompt = prompts.answerPrompt;
    });
    afterAll(() => chat?.dispose());

    /** The check question as an AI SDK tool whose `execute` returns a fresh token. */
    function checkTool(seed: number) {
      const question = selfCheckQuestion(seededRandom(seed));
      const token = freshToken(seededRandom(seed + 1));
      const [name, spec] = Object.entries(question.tool.parameters)[0] as [string, { type: string; description: string }];
      const executed: unknown[] = [];
      const tools = {
        [question.tool.name]: tool({
          description: question.tool.description,
          inputSchema: jsonSchema<Record<string, unknown>>({ type: 'object', properties: { [name]: spec }, required: [name] }),
          execute: async (input: Record<string, unknown>) => {
            executed.push(input);
            return question.result(token, input);
          },
        }),
      };
      return { question, token, tools, executed };
    }

    it('generateText: the SDK runs the call the model wrote and the model answers from its result, in two steps', async () => {
      const { question, token, tools, executed } = checkTool(70_100_001);
      const provider = createNexus();
      const result = await generateText({
        model: provider(undefined, { chat }),
        tools,
        stopWhen: stepCountIs(5),
        prompt: question.question,
        maxOutputTokens: 96,
      });
      expect(executed).toHaveLength(1);
      expect(result.steps).toHaveLength(2);
      expect(result.steps[0]?.toolCalls.map((c) => c.toolName)).toEqual([question.tool.name]);
      expect(result.steps[0]?.finishReason).toBe('tool-calls');
      expect(result.steps[0]?.providerMetadata?.nexus).toMatchObject({ rungs: ['inline'], forced: false });
      expect(result.text).toContain(token);
      expect(result.finishReason).toBe('stop');
      // Usage as the SDK reads it; the second step reused the first step's KV (the transcript).
      expect(result.steps[1]?.usage.inputTokenDetails.cacheReadTokens).toBeGreaterThan(0);
      expect(result.totalUsage.inputTokens).toBeGreaterThan(result.totalUsage.outputTokens ?? 0);
    });

    it('streamText: text deltas without call markup, tool-input parts and the call, then the grounded answer', async () => {
      const { question, token, tools } = checkTool(70_100_011);
      const result = streamText({ model: createNexus()(undefined, { chat }), tools, stopWhen: stepCountIs(5), prompt: question.question, maxOutputTokens: 96 });
      const kinds: string[] = [];
      let text = '';
      for await (const part of result.fullStream) {
        kinds.push(part.type);
        if (part.type === 'text-delta') text += part.text;
      }
      for (const kind of ['tool-input-start', 'tool-input-delta', 'tool-input-end', 'tool-call', 'tool-result', 'text-delta', 'finish'])
        expect(kinds).toContain(kind);
      expect(kinds.indexOf('tool-call')).toBeLessThan(kinds.indexOf('tool-result'));
      expect(text).toContain(token);
      expect(text).not.toMatch(/<tool_call>|<\|tool_call_start\|>|\{"name"/);
      expect(await result.finishReason).toBe('stop');
    });

    it("toolChoice 'none' answers without a call; a named tool is called even when the question asks for none", async () => {
      const { question, tools, executed } = checkTool(70_100_021);
      const none = await generateText({ model: createNexus()(undefined, { chat }), tools, toolChoice: 'none', prompt: question.question, maxOutputTokens: 32 });
      expect(none.toolCalls).toEqual([]);
      expect(executed).toEqual([]);
      const forced = await generateText({
        model: createNexus()(undefined, { chat }),
        tools,
        toolChoice: { type: 'tool', toolName: question.tool.name },
        prompt: 'Hello there!',
        maxOutputTokens: 32,
      });
      expect(forced.toolCalls.map((c) => c.toolName)).toEqual([question.tool.name]);
      expect(executed).toHaveLength(1);
    });
  });
}
