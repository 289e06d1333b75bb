import { describe, expect, it } from 'vitest';
import { NexusChat } from '../nexus/index.ts';
import { ScriptedEngine } from '../engine/scripted-engine.ts';
import { when } from '../testing/script-matchers.ts';
import { MANY_TOOLS, TOOL_GROUPS } from '../../tests/fixtures/many-tools/many-tools.ts';
import { DocumentIndex } from './document-index.ts';
import { ToolIndex } from './tool-index.ts';
import { ToolRegistry } from './tool-registry.ts';
import { FIND_TOOLS, selectTools } from './tool-selection.ts';
import { Emitter } from '../loop/emitter.ts';
import { emitStep } from '../loop/step-events.ts';
import type { Step } from '../loop/step-log.ts';
import { CHAT_EVENT_NAMES, type ChatEvents } from '../loop/types.ts';

const call = (name: string, args: Record<string, unknown>) => `<tool_call>\n${JSON.stringify({ name, arguments: args })}\n</tool_call>`;

/** A chat over a scripted Qwen3 with the sixty tools registered, each answering with its own name. */
function manyToolChat(script: ConstructorParameters<typeof ScriptedEngine>[0], options: { groups?: boolean } = {}) {
  const engine = new ScriptedEngine(script);
  const chat = NexusChat.withEngine(engine);
  for (const schema of MANY_TOOLS) {
    const { name, description, parameters } = schema.function;
    chat.tool(name, description, parameters as never, () => ({ from: name }), {
      ...(name === 'web_search' ? { alwaysOffer: true } : {}),
      ...(options.groups ? { group: TOOL_GROUPS[name] } : {}),
    });
  }
  return { chat, engine };
}

/** The chat model's answer to the group question (the rankings were unsure). */
const groupAnswer = (group: string) => ({ when: (p: string) => p.includes('Which kind of tool would help'), output: group });

/** The tool names in a prompt (its tool list, and the worked example that names one of them). */
const offeredIn = (prompt: string) => [...new Set([...prompt.matchAll(/"name": "([a-z_]+)"/g)].map((m) => m[1]))];

describe('selectTools', () => {
  it('offers the best matches, the tools already called or named, the always-offered ones, and find_tools', async () => {
    const registry = new ToolRegistry();
    for (const schema of MANY_TOOLS)
      registry.tool(
        schema.function.name,
        schema.function.description,
        schema.function.parameters as never,
        () => 1,
        schema.function.name === 'web_search' ? { alwaysOffer: true } : {},
      );
    const index = new ToolIndex(registry.schemas);
    const history = [
      { role: 'user', content: 'Use convert currency for this one' },
      { role: 'assistant', content: '', tool_calls: [{ function: { name: 'stock_price' } }] },
    ];
    const selection = await selectTools(index, registry, 'Turn off the lights in the bedroom', history, { threshold: 12, topK: 5 });
    expect(selection.reasons).toMatchObject({
      web_search: 'always',
      stock_price: 'called',
      convert_currency: 'named',
      set_lights: 'lexical',
      [FIND_TOOLS]: 'finder',
    });
    expect(selection.offered.length).toBeLessThanOrEqual(5 + 3 + 1);
  });
});

describe('many tools in an answer (issue 17)', () => {
  it('offers only the selected tools above the threshold: at least 5× fewer prompt tokens than offering all sixty', async () => {
    const script = [
      { when: when.userAsked('Turn off the lights in the bedroom'), output: call('set_lights', { room: 'bedroom', state: 'off' }) },
      { when: when.afterResults(), output: 'Done.', repeat: true },
    ];
    const selected = manyToolChat(script);
    await selected.chat.chat('Turn off the lights in the bedroom');
    const all = manyToolChat(script);
    await all.chat.chat('Turn off the lights in the bedroom', { toolSelection: { threshold: 0, topK: 5 } });
    const firstPrompt = (e: ScriptedEngine) => e.generations[0]?.prompt ?? '';
    const tokensSelected = selected.engine.generations[0]?.result.promptTokens ?? 0;
    const tokensAll = all.engine.generations[0]?.result.promptTokens ?? 0;
    console.log(`60 tools: first-generation prompt tokens all ${tokensAll}, selected ${tokensSelected} (${(tokensAll / tokensSelected).toFixed(1)}×)`);
    expect(tokensAll / tokensSelected).toBeGreaterThanOrEqual(5);
    expect(offeredIn(firstPrompt(all.engine))).toHaveLength(60);
    expect(offeredIn(firstPrompt(selected.engine))).toEqual(expect.arrayContaining(['set_lights', 'web_search', FIND_TOOLS]));
    expect(selected.chat.lastToolSelection?.reasons.set_lights).toBe('lexical');
  });

  it('accepts a call to a registered tool that was not offered, reports it, and counts it', async () => {
    const { chat } = manyToolChat([
      { when: when.userAsked('Turn off the lights in the bedroom'), output: call('account_balance', {}) },
      { when: when.afterResults(), output: 'Your balance is there.', repeat: true },
    ]);
    const steps: string[][] = [];
    chat.on('step', (which, raw, resolved) => steps.push([which, raw, resolved]));
    const answer = await chat.chat('Turn off the lights in the bedroom');
    expect(answer.calls.map((c) => [c.name, c.status])).toEqual([['account_balance', 'ok']]);
    expect(answer.metrics.unofferedCalls).toBe(1);
    expect(steps).toContainEqual(['unoffered', 'account_balance', 'account_balance']);
  });

  it('makes the tools find_tools found callable from the next round', async () => {
    const { chat, engine } = manyToolChat([
      groupAnswer('none'),
      { when: when.userAsked('I need help with something odd'), output: call(FIND_TOOLS, { query: 'robot vacuum cleaner' }) },
      { when: (p) => p.includes('vacuum_start: Start the robot vacuum cleaner') && !p.includes('"from"'), output: call('vacuum_start', { room: 'kitchen' }) },
      { when: when.afterResults(), output: 'The vacuum is on its way.', repeat: true },
    ]);
    const answer = await chat.chat('I need help with something odd');
    expect(answer.calls.map((c) => c.name)).toEqual([FIND_TOOLS, 'vacuum_start']);
    // generations[0] is the group question (answered `none`); the answer's own start at [1].
    expect(chat.lastToolSelection?.group?.chosen).toBe('none');
    expect(offeredIn(engine.generations[1]?.prompt ?? '')).not.toContain('vacuum_start');
    expect(offeredIn(engine.generations[2]?.prompt ?? '')).toContain('vacuum_start');
    expect(answer.metrics.unofferedCalls).toBe(0);
  });

  it('asks the chat model for a group when neither ranking is sure, as a closed choice, and offers that group', async () => {
    const { chat, engine } = manyToolChat(
      [
        groupAnswer('smart home'),
        { when: when.userAsked('The floor is covered in crumbs'), output: call('vacuum_start', { room: 'kitchen' }) },
        { when: when.afterResults(), output: 'The robot is on it.', repeat: true },
      ],
      { groups: true },
    );
    const steps: string[][] = [];
    chat.on('step', (which, raw, resolved) => steps.push([which, raw, resolved]));
    const heard = listenToAll(chat);
    const answer = await chat.chat('The floor is covered in crumbs');
    const question = engine.generations[0]!;
    expect(question.options.choices).toEqual([
      'calendar',
      'mail',
      'messaging',
      'files',
      'notes',
      'maths',
      'units',
      'weather',
      'smart home',
      'travel',
      'food',
      'finance',
      'language',
      'knowledge',
      'none',
    ]);
    expect(question.prompt).toContain('- smart home: set lights, set thermostat, set blinds, lock door, play music, set volume');
    expect(chat.lastToolSelection?.ranking.confident).toBe(false);
    expect(chat.lastToolSelection?.group).toMatchObject({ chosen: 'smart home', among: 14 });
    expect(chat.lastToolSelection?.reasons.vacuum_start).toBe('group');
    expect(offeredIn(engine.generations[1]?.prompt ?? '')).toContain('vacuum_start');
    expect(answer.calls.map((c) => c.name)).toEqual(['vacuum_start']);
    expect(answer.metrics.unofferedCalls).toBe(0);
    expect(steps).toContainEqual(['group', 'smart home', 'smart home']);
    // The group choice is in the answer's steps, its tokens counted (issue 43): the first step records why each tool was offered.
    expect(answer.steps.slice(0, 3).map((step) => step.kind)).toEqual(['started', 'generation', 'choice']);
    expect(answer.steps[0]).toMatchObject({ kind: 'started', selection: { group: { chosen: 'smart home', among: 14 }, reasons: { vacuum_start: 'group' } } });
    expect(answer.metrics.generations).toBe(engine.generations.length);
    const group = answer.steps[1];
    expect(group?.kind === 'generation' && group.strategy === 'group' && group.promptTokens).toBeGreaterThan(0);
    expect(answer.totalUsage.promptTokens).toBe(answer.steps.reduce((n, step) => n + (step.kind === 'generation' ? step.promptTokens : 0), 0));
    // Every event but `token` is a projection of a step: the saved steps, replayed, say the same things in the same order.
    const replay = new Emitter<ChatEvents>();
    const replayed = listenToAll(replay);
    for (const step of JSON.parse(JSON.stringify(answer.steps)) as Step[]) emitStep(replay, step);
    expect(replayed.filter(([name]) => name !== 'toolSearch')).toEqual(
      JSON.parse(JSON.stringify(heard.filter(([name]) => name !== 'token' && name !== 'toolSearch'))),
    );
    expect(heard.some(([name]) => name === 'step')).toBe(true);
  });

  it('does not ask for a group when a ranking is sure, or when asked not to', async () => {
    const sure = manyToolChat([
      { when: when.userAsked('Turn off the lights in the bedroom'), output: call('set_lights', { room: 'bedroom', state: 'off' }) },
      { when: when.afterResults(), output: 'Done.', repeat: true },
    ]);
    await sure.chat.chat('Turn off the lights in the bedroom');
    expect(sure.engine.generations.some((g) => g.prompt.includes('Which kind of tool'))).toBe(false);
    expect(sure.chat.lastToolSelection?.ranking.confident).toBe(true);
    const off = manyToolChat([{ when: () => true, output: 'Sorry?', repeat: true }]);
    await off.chat.chat('The floor is covered in crumbs', { strategy: 'inline', toolSelection: { askGroup: false } });
    expect(off.engine.generations.some((g) => g.prompt.includes('Which kind of tool'))).toBe(false);
    expect(off.chat.lastToolSelection?.group).toBeUndefined();
  });

  it('ranks with an injected embedder, fused with the lexical ranking, and embeds each tool once', async () => {
    // A fake embedder: one dimension per topic word, so the combination logic is what is tested.
    const topics = ['crumb|floor|vacuum|clean', 'light|dark|lamp', 'mail|email'];
    const embedded: string[][] = [];
    const embedder = async (texts: readonly string[]) => {
      embedded.push([...texts]);
      return texts.map((t) => topics.map((words) => (new RegExp(words, 'i').test(t) ? 1 : 0.01)));
    };
    const engine = new ScriptedEngine([{ when: () => true, output: 'Fine.', repeat: true }]);
    const chat = NexusChat.withEngine(engine, { embedder });
    for (const schema of MANY_TOOLS) chat.tool(schema.function.name, schema.function.description, schema.function.parameters as never, () => 1);
    await chat.chat("It's too dark in here", { strategy: 'inline' });
    expect(chat.lastToolSelection?.reasons.set_lights).toMatch(/semantic|combined/);
    expect(chat.toolSearch).toMatchObject({ state: 'ready', model: 'custom' });
    await chat.chat('Something else dark', { strategy: 'inline' });
    // 60 tool texts once, then one query per answer.
    expect(embedded.map((batch) => batch.length)).toEqual([60, 1, 1]);
  });

  it("lends the tool search's sentence encoder to a document index once it is ready: passages rank by meaning with no second model (issue 54)", async () => {
    const topics = ['crumb|floor|vacuum|clean', 'light|dark|lamp', 'mail|email'];
    let documentsEmbedded = 0;
    const embedder = async (texts: readonly string[]) => {
      if (texts.some((t) => t.includes('dust bag'))) documentsEmbedded += texts.length;
      return texts.map((t) => topics.map((words) => (new RegExp(words, 'i').test(t) ? 1 : 0.01)));
    };
    const chat = NexusChat.withEngine(new ScriptedEngine([{ when: () => true, output: 'Fine.', repeat: true }]), { embedder });
    for (const schema of MANY_TOOLS) chat.tool(schema.function.name, schema.function.description, schema.function.parameters as never, () => 1);
    // Nothing to lend before the tool search has loaded: an index given undefined ranks by words.
    expect(chat.sentenceEncoder).toBeUndefined();
    await chat.prepareTools();
    const encoder = chat.sentenceEncoder;
    expect(encoder).toBeDefined();
    const handbook = ['# Care', '', 'Empty the vacuum dust bag every month.', '', '# Lighting', '', 'The desk lamp takes a 5 W bulb.'].join('\n');
    const index = new DocumentIndex({ semantic: encoder, passages: { targetChars: 60 } });
    index.add({ name: 'handbook.md', text: handbook });
    // No word of the question is in the passage that answers it: only the encoder finds it.
    const hits = await index.search('crumbs all over the floor', { limit: 1 });
    expect(hits[0]?.passage.text).toContain('dust bag');
    expect(hits[0]?.by).toBe('semantic');
    expect(documentsEmbedded).toBeGreaterThan(0);
  });

  it('refuses a semantic setting that is not an embedding model, saying what one looks like, before the answer starts', async () => {
    const { chat } = manyToolChat([{ when: () => true, output: 'Hi.', repeat: true }]);
    await expect(chat.chat('Turn off the lights', { toolSelection: { semantic: 'Xenova/all-MiniLM-L6-v2' as never } })).rejects.toThrow(
      /toolSelection\.semantic must be false or an embedding model such as \{ source: \{ hub: 'Xenova\/all-MiniLM-L6-v2' \}, dtype: 'q8' \}, got the string "Xenova\/all-MiniLM-L6-v2"/,
    );
  });

  it('indexes the tools again when only a parameter changes (a tools.js reload that edits an enum)', async () => {
    const { chat } = manyToolChat([{ when: () => true, output: 'Hi.', repeat: true }]);
    await chat.chat('Zorblax, please');
    expect(chat.lastToolSelection?.reasons.set_lights).toBeUndefined();
    // Registered again in the same order with one parameter more, as a reload of an edited tools.js does.
    chat.tools.clear();
    for (const schema of MANY_TOOLS) {
      const { name, description } = schema.function;
      const parameters = schema.function.parameters as { properties: Record<string, unknown> };
      const edited =
        name === 'set_lights' ? { ...parameters, properties: { ...parameters.properties, scene: { type: 'string', enum: ['zorblax'] } } } : parameters;
      chat.tool(name, description, edited as never, () => ({ from: name }), name === 'web_search' ? { alwaysOffer: true } : {});
    }
    await chat.chat('Zorblax, please');
    expect(chat.lastToolSelection?.reasons.set_lights).toBe('lexical');
  });

  it('changes nothing below the threshold, with an explicit tool list, or a forced tool', async () => {
    const few = NexusChat.withEngine(new ScriptedEngine([{ when: () => true, output: 'Hi.', repeat: true }]));
    few.tool('get_weather', 'Weather', { city: 'string' }, () => 'sunny');
    await few.chat('hi', { strategy: 'inline' });
    expect(few.lastToolSelection).toBeUndefined();
    const { chat, engine } = manyToolChat([
      { when: () => true, output: call('get_weather', { city: 'Oslo' }), repeat: false },
      { when: when.afterResults(), output: 'Cold.', repeat: true },
    ]);
    await chat.chat('Weather in Oslo?', { toolChoice: { name: 'get_weather' } });
    expect(offeredIn(engine.generations[0]?.prompt ?? '')).toHaveLength(60);
  });
});

/** Every event `source` emits, in order, as [name, ...arguments]. */
function listenToAll(source: { on: NexusChat['on'] }): unknown[][] {
  const heard: unknown[][] = [];
  for (const name of CHAT_EVENT_NAMES) {
    source.on(name, ((...args: unknown[]) => heard.push([name, ...args])) as never);
  }
  return heard;
}
