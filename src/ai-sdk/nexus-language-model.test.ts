import type { LanguageModelV4CallOptions, LanguageModelV4StreamPart } from '@ai-sdk/provider';
import { createProviderRegistry, generateText, jsonSchema, tool } from 'ai';
import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { ScriptedEngine, type ScriptedOutput } from '../engine/scripted-engine.ts';
import { qwen3 } from '../loop/__fixtures__/qwen3-outputs.ts';
import { NexusChat } from '../nexus/index.ts';
import { when } from '../testing/script-matchers.ts';
import { createNexus } from './create-nexus.ts';

const WEATHER = {
  type: 'function' as const,
  name: 'get_weather',
  description: 'Get current weather for a city',
  inputSchema: { type: 'object' as const, properties: { city: { type: 'string' as const } }, required: ['city'] },
};

function modelOn(script: ScriptedOutput[], settings = {}) {
  const engine = new ScriptedEngine(script);
  const chat = NexusChat.withEngine(engine);
  return { engine, model: createNexus(settings)(undefined, { chat }) };
}

const ask = (text: string, extra: Partial<LanguageModelV4CallOptions> = {}): LanguageModelV4CallOptions => ({
  prompt: [{ role: 'user', content: [{ type: 'text', text }] }],
  tools: [WEATHER],
  ...extra,
});

async function partsOf(stream: ReadableStream<LanguageModelV4StreamPart>): Promise<LanguageModelV4StreamPart[]> {
  const parts: LanguageModelV4StreamPart[] = [];
  for await (const part of stream as unknown as AsyncIterable<LanguageModelV4StreamPart>) parts.push(part);
  return parts;
}

describe('the provider in the AI SDK', () => {
  it("is a ProviderV4: the SDK's provider registry finds its models by hub id, without loading them", () => {
    const registry = createProviderRegistry({ nexus: createNexus() });
    const model = registry.languageModel('nexus:onnx-community/Qwen3-0.6B-ONNX');
    expect(model).toMatchObject({ specificationVersion: 'v4', provider: 'nexus', modelId: 'onnx-community/Qwen3-0.6B-ONNX' });
    expect(() => registry.embeddingModel('nexus:x')).toThrow(/chat models only/);
  });
});

describe('the AI SDK provider (LanguageModelV4) on a scripted Qwen3', () => {
  it('returns a call written inline as a tool-call part, input as JSON text, and says which rung wrote it', async () => {
    const { model } = modelOn([{ when: when.userAsked('Weather in Chennai?'), output: qwen3.callWeatherChennai }]);
    const result = await model.doGenerate(ask('Weather in Chennai?'));
    expect(result.content).toEqual([{ type: 'tool-call', toolCallId: 'call_1', toolName: 'get_weather', input: '{"city":"Chennai"}' }]);
    expect(result.finishReason).toEqual({ unified: 'tool-calls', raw: 'tool-calls' });
    expect(result.providerMetadata?.nexus).toMatchObject({
      rungs: ['inline'],
      forced: false,
      calls: [{ name: 'get_weather', source: 'inline', forced: false }],
    });
    expect(result.usage.inputTokens.total).toBeGreaterThan(0);
    expect(result.warnings).toEqual([]);
  });

  it('never lets a hallucinated tool name reach the SDK: the forced rungs write a registered call instead', async () => {
    const { model } = modelOn([
      { when: when.userAsked('Weather in Chennai?'), output: qwen3.unknownTool },
      { when: when.primed(), output: qwen3.callWeatherChennai.replace('<tool_call>\n{"name": "', '') },
    ]);
    const result = await model.doGenerate(ask('Weather in Chennai?', { toolChoice: { type: 'required' } }));
    const calls = result.content.filter((c) => c.type === 'tool-call');
    expect(calls.map((c) => c.toolName)).toEqual(['get_weather']);
    expect(result.providerMetadata?.nexus).toMatchObject({ forced: true, rungs: ['inline', 'primed'] });
  });

  it('renders a tool written in zod (as the SDK docs write it) byte for byte as the same tool in plain JSON Schema (issue 42)', async () => {
    const prompts: string[] = [];
    for (const inputSchema of [
      z.object({ city: z.string().describe('The city'), days: z.number().int().optional() }),
      jsonSchema<{ city: string; days?: number }>({
        type: 'object',
        properties: { city: { type: 'string', description: 'The city' }, days: { type: 'integer' } },
        required: ['city'],
      }),
    ]) {
      const { model, engine } = modelOn([
        { when: when.userAsked('Weather in Paris?'), output: 'Mild.' },
        { when: when.gate(), output: 'No' },
      ]);
      await generateText({ model, tools: { get_weather: tool({ description: WEATHER.description, inputSchema }) }, prompt: 'Weather in Paris?' });
      prompts.push(engine.generations[0]?.prompt ?? '');
    }
    // zod's JSON Schema carries $schema and additionalProperties: false; neither reaches the model.
    expect(prompts[0]).not.toContain('$schema');
    expect(prompts[0]).not.toContain('additionalProperties');
    expect(prompts[0]).toBe(prompts[1]);
  });

  it('through generateText: a hallucinated name never becomes a tool call the SDK sees or runs', async () => {
    const { model } = modelOn([
      { when: when.userAsked('Forecast for Chennai?'), output: qwen3.unknownTool },
      { when: when.gate(), output: 'No' },
    ]);
    let ran = 0;
    const result = await generateText({
      model,
      tools: {
        get_weather: tool({
          description: WEATHER.description,
          inputSchema: jsonSchema<{ city: string }>(WEATHER.inputSchema),
          execute: async () => {
            ran++;
            return 'sunny';
          },
        }),
      },
      prompt: 'Forecast for Chennai?',
    });
    expect(result.toolCalls).toEqual([]);
    expect(ran).toBe(0);
    expect(JSON.stringify(result.steps)).not.toContain('get_forecast"');
  });

  it('streams text deltas, then the finish with usage; a stop through abortSignal ends the stream with the AbortError', async () => {
    const { model } = modelOn([{ when: when.userAsked('Hello'), output: qwen3.greeting }]);
    const streamed = await partsOf((await model.doStream(ask('Hello', { toolChoice: { type: 'none' } }))).stream);
    expect(streamed.map((p) => p.type)).toEqual([
      'stream-start',
      'response-metadata',
      'text-start',
      ...Array(streamed.length - 5).fill('text-delta'),
      'text-end',
      'finish',
    ]);
    expect(
      streamed
        .filter((p) => p.type === 'text-delta')
        .map((p) => p.delta)
        .join(''),
    ).toBe(qwen3.greeting);

    const again = modelOn([{ when: when.userAsked('Hello'), output: qwen3.greeting }]).model;
    const controller = new AbortController();
    const { stream } = await again.doStream(ask('Hello', { toolChoice: { type: 'none' }, abortSignal: controller.signal }));
    const parts: LanguageModelV4StreamPart[] = [];
    let afterStop = 0;
    for await (const part of stream as unknown as AsyncIterable<LanguageModelV4StreamPart>) {
      parts.push(part);
      if (controller.signal.aborted && part.type === 'text-delta') afterStop++;
      if (part.type === 'text-delta') controller.abort();
    }
    // As the page's Stop: no text after the stop.
    expect(afterStop).toBe(0);
    const last = parts.at(-1);
    expect(last?.type).toBe('error');
    expect(last?.type === 'error' && (last.error as Error).name).toBe('AbortError');
    expect(parts.some((p) => p.type === 'finish')).toBe(false);
  });

  it('gives the thinking of a reasoning model as a reasoning part, never in the text', async () => {
    const { model } = modelOn([{ when: () => true, output: '<think>\nThe user greets me.\n</think>\n\nHello! How can I help you today?' }], {
      enableThinking: true,
    });
    const result = await model.doGenerate(ask('Hi', { toolChoice: { type: 'none' } }));
    expect(result.content).toEqual([
      { type: 'reasoning', text: 'The user greets me.' },
      { type: 'text', text: 'Hello! How can I help you today?' },
    ]);
  });

  it('streams the reasoning as the model writes it, piece by piece, before the answer text (issue 42)', async () => {
    const { model } = modelOn(
      [{ when: () => true, output: '<think>\nThe user greets me, so I greet them back.\n</think>\n\nHello! How can I help you today?' }],
      {
        enableThinking: true,
      },
    );
    const { stream } = await model.doStream(ask('Hi', { toolChoice: { type: 'none' } }));
    const parts = await partsOf(stream);
    const kinds = parts.map((p) => p.type);
    const deltas = parts.flatMap((p) => (p.type === 'reasoning-delta' ? [p.delta] : []));
    expect(deltas.length).toBeGreaterThan(3);
    expect(deltas.join('').trim()).toBe('The user greets me, so I greet them back.');
    expect(kinds.filter((k) => k === 'reasoning-start')).toHaveLength(1);
    expect(kinds.indexOf('reasoning-end')).toBeLessThan(kinds.indexOf('text-start'));
    expect(parts.flatMap((p) => (p.type === 'text-delta' ? [p.delta] : [])).join('')).toBe('Hello! How can I help you today?');
  });

  it('refuses a tool whose schema it cannot use, naming the tool', async () => {
    const { model } = modelOn([]);
    await expect(model.doGenerate(ask('Hi', { tools: [{ ...WEATHER, name: 'get weather!' }] }))).rejects.toThrow(/get weather!/);
  });

  it('warns about each setting it cannot honour instead of dropping it silently', async () => {
    const { model } = modelOn([{ when: when.userAsked('Hi'), output: qwen3.greeting }]);
    const result = await model.doGenerate(
      ask('Hi', {
        toolChoice: { type: 'none' },
        seed: 7,
        responseFormat: { type: 'json', schema: { type: 'object' } },
        stopSequences: ['END'],
        tools: [WEATHER, { type: 'provider', id: 'openai.web_search', name: 'web_search', args: {} }],
      }),
    );
    expect(result.warnings.map((w) => (w.type === 'unsupported' ? w.feature : w.type))).toEqual([
      'responseFormat',
      'seed',
      'stopSequences',
      'provider tool web_search',
    ]);
  });

  it("never forces a model whose self-check failed, unless the caller sets a strategy (the page's rule; issue 42)", async () => {
    const { model, engine } = modelOn([{ when: () => true, output: 'I do not know.', repeat: true }]);
    const verdict = await model.check();
    expect(verdict.ok).toBe(false);
    const generationsAfterCheck = engine.generations.length;
    const result = await model.doGenerate(ask('Weather in Chennai?', { toolChoice: { type: 'required' } }));
    expect(result.content.filter((p) => p.type === 'tool-call')).toEqual([]);
    // One free generation, no primed or stepwise rung.
    expect(engine.generations.slice(generationsAfterCheck).map((g) => g.options.choices ?? 'free')).toEqual(['free']);
    const forced = modelOn([{ when: () => true, output: 'I do not know.', repeat: true }], { strategy: 'auto' });
    await forced.model.check();
    const before = forced.engine.generations.length;
    await forced.model.doGenerate(ask('Weather in Chennai?', { toolChoice: { type: 'required' } })).catch(() => undefined);
    expect(forced.engine.generations.length - before).toBeGreaterThan(1);
  });

  it('refuses a model whose self-check fails when requireToolCalling is set, with the verdict in the error', async () => {
    const { model } = modelOn([{ when: () => true, output: 'I do not know.' }], { requireToolCalling: true });
    await expect(model.doGenerate(ask('Weather in Chennai?'))).rejects.toMatchObject({
      name: 'ModelCannotCallToolsError',
      verdict: { ok: false, called: false },
    });
  });
});
