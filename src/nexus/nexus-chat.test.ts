import { afterEach, beforeAll, beforeEach, describe, expect, it, vi } from 'vitest';
import { FIXTURE_MODELS_DIR, TINY_QWEN3, prepareFixtureModels } from '../../tests/fixtures/prepare-models.ts';
import { ScriptedEngine } from '../engine/scripted-engine.ts';
import { ToolTemplateError } from '../loop/answer-request.ts';
import { NexusChat } from './index.ts';
import { ToolRegistry } from '../tools/tool-registry.ts';

describe('NexusChat.load in Node, over the real engine on the tiny fixture', () => {
  // Each test gets its own chat over its own engine.
  let chat: NexusChat;
  beforeAll(() => {
    prepareFixtureModels();
  });
  beforeEach(async () => {
    chat = await NexusChat.load({ path: `${FIXTURE_MODELS_DIR}${TINY_QWEN3}` });
  });
  afterEach(() => chat?.dispose());

  it('picks CPU q4 from the ladder', () => {
    expect(chat.info).toMatchObject({ device: 'cpu', dtype: 'q4' });
  });

  it('runs a whole answer: a stepwise call from the closed list, its handler, and a non-empty answer', async () => {
    const weather = vi.fn(({ city }: { city: string }) => ({ city, temperature_c: 21 }));
    chat.tool('get_weather', 'Get current weather for a city', { city: 'string' }, weather);
    chat.tool('current_datetime', 'Current date and time', { time_zone: 'string' }, () => '2026-11-29T14:00:00Z');
    const steps: string[] = [];
    chat.on('step', (which) => steps.push(which));

    const answer = await chat.chat('Weather in Paris?', { toolChoice: 'required', strategy: 'stepwise', maxRounds: 1, maxNewTokens: 16 });

    expect(answer.calls.length).toBeGreaterThanOrEqual(1);
    expect(['get_weather', 'current_datetime']).toContain(answer.calls[0]?.name);
    expect(steps[0]).toBe('select');
    expect(answer.text.trim()).not.toBe('');
    // The argument question extends the select question's prompt, so it reuses the whole round prompt.
    expect(steps.slice(0, 2)).toEqual(['select', expect.stringMatching(/^arg:/)]);
    expect(answer.metrics.cachedTokens).toBeGreaterThan(250);
  });

  it("self-checks honestly: random weights do not call tools, and the user's tools survive the check", async () => {
    chat.tool('get_weather', 'Get current weather for a city', { city: 'string' }, () => 'sunny');
    chat.tool('current_datetime', 'Current date and time', { time_zone: 'string' }, () => '2026-11-29T14:00:00Z');
    const check = await chat.selfCheck();
    expect(check).toMatchObject({ ok: false, grounded: false, device: 'cpu', dtype: 'q4' });
    expect(check.detail).toMatch(/does not call tools|reports something else/);
    expect(check.generations).toBeGreaterThan(0);
    expect(chat.tools.names).toEqual(['get_weather', 'current_datetime']);
  });

  it('rejects an explicit dtype the source does not serve, naming it', async () => {
    await expect(NexusChat.load({ path: `${FIXTURE_MODELS_DIR}${TINY_QWEN3}` }, { dtype: 'bnb4' })).rejects.toThrow(/bnb4 on cpu/);
  });
});

describe('NexusChat with a model whose chat template cannot hold tools', () => {
  const family = {
    id: 'generic' as const,
    label: 'generic (Hermes-style <tool_call>)',
    detectedBy: 'no known family',
    templateProblem: 'ignores the tools it is given (it has no tool support)',
  };

  it('refuses to offer tools with an error that names the cause and what to do, and still chats without them', async () => {
    const chat = NexusChat.withEngine(new ScriptedEngine([{ output: 'Hello!' }], { model: 'gemma-3-270m', family }));
    chat.tool('get_weather', 'Get current weather for a city', { city: 'string' }, () => 'sunny');
    const refused = chat.chat('Weather in Paris?');
    await expect(refused).rejects.toBeInstanceOf(ToolTemplateError);
    await expect(refused).rejects.toThrow(/gemma-3-270m ignores the tools it is given.*toolChoice: 'none'.*Qwen3\.5, Qwen3, Qwen2\.5/);
    expect((await chat.chat('Hi', { toolChoice: 'none' })).text).toBe('Hello!');
  });

  it('gets an honest verdict from selfCheck, naming the template and the profile', async () => {
    const chat = NexusChat.withEngine(new ScriptedEngine([], { model: 'gemma-3-270m', family }));
    const check = await chat.selfCheck();
    expect(check).toMatchObject({ ok: false, called: false, generations: 0, family });
    expect(check.detail).toBe(
      'gemma-3-270m (none on none, generic (Hermes-style <tool_call>) profile) cannot be offered tools: its chat template ignores the tools it is given (it has no tool support). Use a model of a family with tool support.',
    );
  });
});

describe('a side conversation (toolkit + isolated), as the checks run', () => {
  it("leaves the chat's tools and listeners as they were, and sees only the conversation it is given", async () => {
    const engine = new ScriptedEngine([
      { output: 'Hi there.' },
      { output: '<tool_call>\n{"name": "lookup", "arguments": {"word": "ember"}}\n</tool_call>' },
      { output: 'It means a glowing coal.' },
    ]);
    const chat = NexusChat.withEngine(engine).tool('get_weather', 'Weather', { city: 'string' }, () => 'sunny');
    await chat.chat('Hello', { toolChoice: 'none' });
    const heard: string[] = [];
    chat.on('token', (t) => heard.push(t));
    chat.on('toolCall', (c) => heard.push(c.name));

    const tools = new ToolRegistry().tool('lookup', 'Looks a word up', { word: 'string' }, () => 'a glowing coal');
    const answer = await chat.chat('What is an ember?', { toolkit: { tools }, isolated: true });

    expect(answer.calls.map((c) => c.name)).toEqual(['lookup']);
    expect(answer.text).toBe('It means a glowing coal.');
    expect(chat.tools.names).toEqual(['get_weather']);
    expect(heard).toEqual([]);
    // The side conversation did not see the earlier answer, nor offer the chat's tools.
    const prompt = engine.generations[1]?.prompt ?? '';
    expect(prompt).not.toContain('Hello');
    expect(prompt).not.toContain('get_weather');
  });

  it("stays isolated with more tools than the selection threshold: no events, no step, the chat's tool index and search state untouched (issue 24, item 6)", async () => {
    const engine = new ScriptedEngine([{ output: 'Fine.', repeat: true }]);
    const chat = NexusChat.withEngine(engine);
    for (let i = 0; i < 14; i++) chat.tool(`chat_tool_${i}`, `Chat tool number ${i} for weather and time`, { city: 'string' }, () => 'x');
    await chat.chat('weather in Paris');
    const selection = chat.lastToolSelection;
    const search = chat.toolSearch;
    const heard: string[] = [];
    chat.on('toolSearch', () => heard.push('toolSearch'));
    chat.on('step', (kind) => heard.push(`step:${kind}`));
    chat.on('token', () => heard.push('token'));

    const side = new ToolRegistry();
    for (let i = 0; i < 20; i++) side.tool(`side_tool_${i}`, `Side tool ${i} about calendars and events`, { day: 'string' }, () => 'y');
    await chat.chat('What is on my calendar?', { toolkit: { tools: side }, isolated: true });

    expect(heard).toEqual([]);
    expect(chat.lastToolSelection).toBe(selection);
    expect(chat.toolSearch).toEqual(search);
    // The chat's own next answer ranks its own tools, not the side conversation's.
    engine.generations.length = 0;
    await chat.chat('weather in Rome');
    expect(engine.generations[0]?.prompt).toContain('chat_tool_');
    expect(engine.generations[0]?.prompt).not.toContain('side_tool_');
    expect(chat.lastToolSelection?.offered.every((name) => name.startsWith('chat_tool_') || name === 'find_tools')).toBe(true);
  });
});
