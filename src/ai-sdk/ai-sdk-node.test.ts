import { generateText, jsonSchema, stepCountIs, streamText, tool } from 'ai';
import { z } from 'zod';
import { z as z3 } from 'zod/v3';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { FIXTURE_MODELS_DIR, prepareFixtureModels, trainedChatPrompts } from '../../tests/fixtures/prepare-models.ts';
import { seededRandom } from '../../tests/fixtures/tools-model/gen-data.ts';
import { argumentsMatch, freshToken, selfCheckQuestion } from '../check/check-questions.ts';
import { NexusChat } from '../nexus/index.ts';
import { TIMEOUTS } from '../../tests/timeouts.ts';
import { createNexus } from './create-nexus.ts';

/** The fixtures trained to call tools, each in its family's own dialect, through the real `ai` package. */
const TRAINED = ['tiny-tools-qwen3', 'tiny-tools-lfm2'] as const;

for (const model of TRAINED) {
  describe(`the AI SDK provider in Node on ${model}`, () => {
    let chat: NexusChat;
    beforeAll(async () => {
      prepareFixtureModels();
      chat = await NexusChat.load({ path: `${FIXTURE_MODELS_DIR}${model}` }, trainedChatPrompts(model));
    });
    afterAll(() => chat?.dispose());

    /** The check question as an AI SDK tool whose `execute` returns a fresh token. */
    function checkTool(seed: number) {
      const question = selfCheckQuestion(seededRandom(seed));
      const token = freshToken(seededRandom(seed + 1));
      const [name, spec] = Object.entries(question.tool.parameters)[0] as [string, { type: 'string'; description: string }];
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

    it("the SDK's tool approval: a call that needs the user's approval is not run; refused, the model hears so and answers without it", async () => {
      const { question, tools, executed } = checkTool(70_100_031);
      const approval = { [question.tool.name]: 'user-approval' as const };
      const model = createNexus()(undefined, { chat });
      const asked = await generateText({ model, tools, toolApproval: approval, stopWhen: stepCountIs(3), prompt: question.question, maxOutputTokens: 64 });
      const request = asked.content.find((part) => part.type === 'tool-approval-request');
      expect(request, JSON.stringify(asked.content)).toBeDefined();
      expect(executed).toEqual([]);
      const refused = await generateText({
        model,
        tools,
        toolApproval: approval,
        stopWhen: stepCountIs(3),
        messages: [
          { role: 'user', content: question.question },
          ...asked.response.messages,
          {
            role: 'tool',
            content: [{ type: 'tool-approval-response', approvalId: (request as { approvalId: string }).approvalId, approved: false, reason: 'not now' }],
          },
        ],
        maxOutputTokens: 64,
      });
      expect(executed).toEqual([]);
      expect(refused.finishReason).not.toBe('error');
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

/**
 * Tools as the AI SDK's users write them (issue 42): in zod 4, and in zod 3 through the SDK's adapter, beside the
 * same tools in plain JSON Schema, on every trained fixture. The SDK hands the provider `$schema` and
 * `additionalProperties: false` for zod; the provider renders the same prompt bytes either way, so greedy
 * decoding writes the same calls and the same answers: the figures below are equal by construction, and the
 * test fails if they ever differ.
 */
const ALL_TRAINED = ['tiny-tools-qwen3', 'tiny-tools-lfm2', 'tiny-tools-qwen3-plain', 'tiny-tools-qwen3_5'] as const;
const QUESTION_SEEDS = [70_200_001, 70_200_011, 70_200_021];
const figures: string[] = [];

for (const model of ALL_TRAINED) {
  describe(`AI SDK tools in zod 4, zod 3 and JSON Schema on ${model}`, () => {
    let chat: NexusChat;
    beforeAll(async () => {
      prepareFixtureModels();
      chat = await NexusChat.load({ path: `${FIXTURE_MODELS_DIR}${model}` }, trainedChatPrompts(model));
    }, TIMEOUTS.modelLoad);
    afterAll(() => chat?.dispose());

    type Kind = 'json' | 'zod4' | 'zod3';
    /** The check question's tool, written as `kind`; its `execute` returns a fresh token. */
    function toolsAs(kind: Kind, seed: number) {
      const question = selfCheckQuestion(seededRandom(seed));
      const token = freshToken(seededRandom(seed + 1));
      const [name, spec] = Object.entries(question.tool.parameters)[0] as [string, { type: 'string'; description: string }];
      const calls: unknown[] = [];
      const execute = async (input: Record<string, unknown>) => {
        calls.push(input);
        return question.result(token, input);
      };
      const inputSchema =
        kind === 'json'
          ? jsonSchema<Record<string, unknown>>({ type: 'object', properties: { [name]: spec }, required: [name] })
          : kind === 'zod4'
            ? z.object({ [name]: z.string().describe(spec.description) })
            : z3.object({ [name]: z3.string().describe(spec.description) });
      const tools = { [question.tool.name]: tool({ description: question.tool.description, inputSchema: inputSchema as never, execute }) };
      return { question, token, tools, calls };
    }

    it('writes the same calls and the same grounded answers whichever way the tools are written', { timeout: TIMEOUTS.modelRun }, async () => {
      const outcomes: Record<Kind, { right: number; grounded: number; transcript: string[] }> = {
        json: { right: 0, grounded: 0, transcript: [] },
        zod4: { right: 0, grounded: 0, transcript: [] },
        zod3: { right: 0, grounded: 0, transcript: [] },
      };
      for (const seed of QUESTION_SEEDS) {
        for (const kind of ['json', 'zod4', 'zod3'] as const) {
          const { question, token, tools, calls } = toolsAs(kind, seed);
          const result = await generateText({
            model: createNexus()(undefined, { chat }),
            tools,
            stopWhen: stepCountIs(4),
            prompt: question.question,
            maxOutputTokens: 96,
          });
          const outcome = outcomes[kind];
          if (calls.length === 1 && argumentsMatch(question.expected, calls[0] as Record<string, unknown>)) outcome.right++;
          if (result.text.includes(token)) outcome.grounded++;
          outcome.transcript.push(JSON.stringify({ calls, text: result.text }));
        }
      }
      figures.push(
        `${model}: JSON Schema ${outcomes.json.right}/${QUESTION_SEEDS.length} right calls, ${outcomes.json.grounded} grounded; zod 4 ${outcomes.zod4.right}, ${outcomes.zod4.grounded}; zod 3 ${outcomes.zod3.right}, ${outcomes.zod3.grounded}`,
      );
      expect(outcomes.zod4.transcript).toEqual(outcomes.json.transcript);
      expect(outcomes.zod3.transcript).toEqual(outcomes.json.transcript);
      expect(outcomes.zod4.right).toBeGreaterThan(0);
    });
  });
}

afterAll(() => {
  if (figures.length) console.log(`AI SDK tools, zod vs JSON Schema (issue 42):\n${figures.join('\n')}`);
});
