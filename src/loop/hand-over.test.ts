import { describe, expect, it } from 'vitest';
import { ScriptedEngine, type ScriptedOutput } from '../engine/scripted-engine.ts';
import { NexusChat } from '../nexus/index.ts';
import { when } from '../testing/script-matchers.ts';
import { qwen3 } from './__fixtures__/qwen3-outputs.ts';

const WEATHER = {
  name: 'get_weather',
  description: 'Get current weather for a city',
  parameters: { type: 'object', properties: { city: { type: 'string' }, days: { type: 'integer' } }, required: ['city'] },
};

function turnOn(script: ScriptedOutput[]) {
  const engine = new ScriptedEngine(script);
  return { engine, chat: NexusChat.withEngine(engine) };
}

describe('one model turn with its calls handed over unrun (the AI SDK step)', () => {
  it('hands over a call written inline, validated and coerced, with a fresh id, and runs nothing', async () => {
    const { chat, engine } = turnOn([
      {
        when: when.userAsked('Weather in Chennai for 2 days?'),
        output: '<tool_call>\n{"name": "GET_WEATHER", "arguments": {"city": "Chennai", "days": "2"}}\n</tool_call>',
      },
    ]);
    const turn = await chat.modelTurn([{ role: 'user', content: 'Weather in Chennai for 2 days?' }], { tools: [WEATHER] });
    expect(turn.calls).toEqual([{ id: 'call_1', name: 'get_weather', arguments: { city: 'Chennai', days: 2 }, source: 'inline' }]);
    expect(turn.text).toBe('');
    expect(turn.steps.map((s) => s.kind)).toEqual(['started', 'round', 'generation', 'verdict', 'handover', 'finished']);
    expect(turn.steps[0]).toMatchObject({ kind: 'started', settings: { callsOnly: true }, offered: ['get_weather'] });
    expect(engine.generations).toHaveLength(1);
  });

  it('goes on from tool results given in the conversation, and answers with text when no call comes', async () => {
    const { chat } = turnOn([{ when: when.afterResults(), output: qwen3.answerChennai }]);
    const turn = await chat.modelTurn(
      [
        { role: 'user', content: 'Weather in Chennai?' },
        { role: 'assistant', content: '', tool_calls: [{ id: 'c1', type: 'function', function: { name: 'get_weather', arguments: { city: 'Chennai' } } }] },
        { role: 'tool', tool_call_id: 'c1', content: '{"temperature_c":31.2}' },
      ],
      { tools: [WEATHER] },
    );
    expect(turn).toMatchObject({ text: qwen3.answerChennai, calls: [] });
  });

  it('never hands over a name that is not a given tool: the forced rungs are asked instead of feeding back', async () => {
    const { chat } = turnOn([
      { when: when.userAsked('Weather in Chennai?'), output: qwen3.unknownTool },
      { when: when.primed(), output: qwen3.callWeatherChennai.replace('<tool_call>\n{"name": "', '') },
    ]);
    const turn = await chat.modelTurn([{ role: 'user', content: 'Weather in Chennai?' }], { tools: [WEATHER], toolChoice: 'required' });
    expect(turn.calls.map((c) => [c.name, c.arguments, c.source])).toEqual([['get_weather', { city: 'Chennai' }, 'primed']]);
  });

  it('asks a call whose arguments do not validate again argument by argument, and never hands over a broken one', async () => {
    const { chat } = turnOn([
      { when: when.userAsked('Weather?'), output: qwen3.missingArgument },
      { when: when.argument('city'), output: 'Chennai"' },
    ]);
    const turn = await chat.modelTurn([{ role: 'user', content: 'Weather?' }], { tools: [WEATHER] });
    expect(turn.calls.map((c) => [c.name, c.arguments, c.source])).toEqual([['get_weather', { city: 'Chennai' }, 'stepwise']]);
    expect(turn.dropped).toEqual([]);
  });

  it('refuses a tool whose schema it cannot use, naming the tool', async () => {
    const { chat } = turnOn([]);
    await expect(
      chat.modelTurn([{ role: 'user', content: 'x' }], { tools: [{ name: 'bad tool!', parameters: { type: 'object', properties: {} } }] }),
    ).rejects.toThrow(/bad tool!/);
  });
});
