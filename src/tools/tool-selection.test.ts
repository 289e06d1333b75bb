import { describe, expect, it } from 'vitest';
import { NexusChat } from '../nexus.ts';
import { ScriptedEngine } from '../engine/scripted-engine.ts';
import { when } from '../testing/script-matchers.ts';
import { MANY_TOOLS } from '../../tests/fixtures/many-tools/many-tools.ts';
import { ToolIndex } from './tool-index.ts';
import { ToolRegistry } from './tool-registry.ts';
import { FIND_TOOLS, selectTools } from './tool-selection.ts';

const call = (name: string, args: Record<string, unknown>) => `<tool_call>\n${JSON.stringify({ name, arguments: args })}\n</tool_call>`;

/** A chat over a scripted Qwen3 with the sixty tools registered, each answering with its own name. */
function manyToolChat(script: ConstructorParameters<typeof ScriptedEngine>[0]) {
  const engine = new ScriptedEngine(script);
  const chat = NexusChat.withEngine(engine);
  for (const schema of MANY_TOOLS) {
    const { name, description, parameters } = schema.function;
    chat.tool(name, description, parameters as never, () => ({ from: name }), name === 'web_search' ? { alwaysOffer: true } : {});
  }
  return { chat, engine };
}

/** The tool names in a prompt (its tool list, and the worked example that names one of them). */
const offeredIn = (prompt: string) => [...new Set([...prompt.matchAll(/"name": "([a-z_]+)"/g)].map((m) => m[1]))];

describe('selectTools', () => {
  it('offers the best matches, the tools already called or named, the always-offered ones, and find_tools', async () => {
    const registry = new ToolRegistry();
    for (const schema of MANY_TOOLS) registry.tool(schema.function.name, schema.function.description, schema.function.parameters as never, () => 1, schema.function.name === 'web_search' ? { alwaysOffer: true } : {});
    const index = new ToolIndex(registry.schemas);
    const history = [
      { role: 'user', content: 'Use convert currency for this one' },
      { role: 'assistant', content: '', tool_calls: [{ function: { name: 'stock_price' } }] },
    ];
    const selection = await selectTools(index, registry, 'Turn off the lights in the bedroom', history, { threshold: 12, topK: 5 });
    expect(selection.reasons).toMatchObject({ web_search: 'always', stock_price: 'called', convert_currency: 'named', set_lights: 'lexical', [FIND_TOOLS]: 'finder' });
    expect(selection.offered.length).toBeLessThanOrEqual(5 + 3 + 1);
  });
});

describe('many tools in an answer (issue 17)', () => {
  it('offers only the selected tools above the threshold: at least 5× fewer prompt tokens than offering all sixty', async () => {
    const script = [{ when: when.userAsked('Turn off the lights in the bedroom'), output: call('set_lights', { room: 'bedroom', state: 'off' }) }, { when: when.afterResults(), output: 'Done.', repeat: true }];
    const selected = manyToolChat(script);
    await selected.chat.chat('Turn off the lights in the bedroom');
    const all = manyToolChat(script);
    all.chat.toolSelection = { threshold: 0, topK: 5 };
    await all.chat.chat('Turn off the lights in the bedroom');
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
      { when: when.userAsked('I need help with something odd'), output: call(FIND_TOOLS, { query: 'robot vacuum cleaner' }) },
      { when: (p) => p.includes('vacuum_start: Start the robot vacuum cleaner') && !p.includes('"from"'), output: call('vacuum_start', { room: 'kitchen' }) },
      { when: when.afterResults(), output: 'The vacuum is on its way.', repeat: true },
    ]);
    const answer = await chat.chat('I need help with something odd');
    expect(answer.calls.map((c) => c.name)).toEqual([FIND_TOOLS, 'vacuum_start']);
    expect(offeredIn(engine.generations[0]?.prompt ?? '')).not.toContain('vacuum_start');
    expect(offeredIn(engine.generations[1]?.prompt ?? '')).toContain('vacuum_start');
    expect(answer.metrics.unofferedCalls).toBe(0);
  });

  it('changes nothing below the threshold, with an explicit tool list, or a forced tool', async () => {
    const few = NexusChat.withEngine(new ScriptedEngine([{ when: () => true, output: 'Hi.', repeat: true }]));
    few.tool('get_weather', 'Weather', { city: 'string' }, () => 'sunny');
    await few.chat('hi', { strategy: 'inline' });
    expect(few.lastToolSelection).toBeUndefined();
    const { chat, engine } = manyToolChat([{ when: () => true, output: call('get_weather', { city: 'Oslo' }), repeat: false }, { when: when.afterResults(), output: 'Cold.', repeat: true }]);
    await chat.chat('Weather in Oslo?', { toolChoice: { name: 'get_weather' } });
    expect(offeredIn(engine.generations[0]?.prompt ?? '')).toHaveLength(60);
  });
});
