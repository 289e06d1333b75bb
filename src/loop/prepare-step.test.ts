import { describe, expect, it, vi } from 'vitest';
import { ScriptedEngine, type ScriptedOutput } from '../engine/scripted-engine.ts';
import { NexusChat } from '../nexus/index.ts';
import { when } from '../testing/script-matchers.ts';
import { qwen3 } from './__fixtures__/qwen3-outputs.ts';
import { UnknownToolError } from './answer-request.ts';
import type { PrepareStepInfo } from './prepare-step.ts';

function setup(script: ScriptedOutput[]) {
  const engine = new ScriptedEngine(script);
  const weather = vi.fn(({ city }: { city: string }) => ({ city, temperature_c: 12, conditions: 'rain' }));
  const time = vi.fn(({ city }: { city: string }) => ({ city, time: '14:05' }));
  const chat = NexusChat.withEngine(engine)
    .tool('get_weather', 'Get current weather for a city', { city: 'string' }, weather)
    .tool('get_time', 'Get the local time in a city', { city: 'string' }, time);
  return { engine, chat, weather, time };
}

/** The tool names rendered into a prompt (Qwen3 lists each tool's JSON inside <tools>). */
function renderedTools(prompt: string): string[] {
  const tools = prompt.slice(prompt.indexOf('<tools>\n'), prompt.lastIndexOf('</tools>'));
  return [...tools.matchAll(/"name": ?"([a-z_]+)"/g)].map((m) => m[1] ?? '');
}

describe('prepareStep: each tool round asks what it may call (as the AI SDK names it)', () => {
  it('narrows the tools one round renders and accepts, and records what it changed as a step', async () => {
    const { chat, engine, weather } = setup([
      { when: when.userAsked('Weather in Paris?'), output: qwen3.callWeatherParis },
      { when: when.afterResults(), output: qwen3.answerParis },
    ]);
    const seen: PrepareStepInfo[] = [];
    const answer = await chat.chat('Weather in Paris?', {
      prepareStep: (info) => {
        seen.push(info);
        return info.round === 1 ? { activeTools: ['get_weather'] } : undefined;
      },
    });
    expect(weather).toHaveBeenCalledOnce();
    const [first, second] = engine.generations;
    expect(renderedTools(first?.prompt ?? '')).toEqual(['get_weather']);
    // Round 2 kept the answer's plan: both tools again.
    expect(renderedTools(second?.prompt ?? '').sort()).toEqual(['get_time', 'get_weather']);
    expect(answer.steps.filter((s) => s.kind === 'prepared')).toEqual([{ kind: 'prepared', round: 1, activeTools: ['get_weather'] }]);
    // It was told the round, the steps so far and the conversation the round renders.
    expect(seen.map((s) => s.round)).toEqual([1, 2]);
    expect(seen[1]?.steps.some((s) => s.kind === 'call')).toBe(true);
    expect(seen[1]?.messages.at(-1)).toMatchObject({ role: 'tool', name: 'get_weather' });
  });

  it('a call to a tool the round left out is not run: the model is told the tools it has', async () => {
    const { chat, time } = setup([
      { when: when.userAsked('Weather in Paris?'), output: '<tool_call>\n{"name": "get_time", "arguments": {"city": "Paris"}}\n</tool_call>' },
      { when: when.afterResults(), output: qwen3.answerParis },
    ]);
    const answer = await chat.chat('Weather in Paris?', {
      strategy: 'inline',
      prepareStep: ({ round }) => (round === 1 ? { activeTools: ['get_weather'] } : undefined),
    });
    expect(time).not.toHaveBeenCalled();
    expect(answer.calls).toMatchObject([{ name: 'get_time', status: 'unknown', result: expect.stringContaining('get_weather') }]);
  });

  it('a toolChoice it returns binds that round as the first round is bound: a later round is made to call', async () => {
    const { chat, time, weather } = setup([
      { when: when.userAsked('Weather and time in Paris?'), output: qwen3.callWeatherParis },
      { when: when.primedFor('get_time'), output: '{"city": "Paris"}}\n</tool_call>' },
      { when: when.promptContains('"time":"14:05"'), output: 'It is 12°C, raining, and 14:05 in Paris.' },
      // Round 2's free generation answers without the call the round must make.
      { when: when.afterResults(), output: qwen3.answerParis },
    ]);
    const answer = await chat.chat('Weather and time in Paris?', {
      prepareStep: ({ round }) => (round === 2 ? { toolChoice: { name: 'get_time' } } : undefined),
    });
    expect(weather).toHaveBeenCalledOnce();
    expect(time).toHaveBeenCalledOnce();
    expect(answer.calls.map((c) => [c.name, c.source])).toEqual([
      ['get_weather', 'inline'],
      ['get_time', 'primed'],
    ]);
    expect(answer.text).toBe('It is 12°C, raining, and 14:05 in Paris.');
  });

  it('a name that is not offered is refused naming the offered tools, before the round runs', async () => {
    const { chat, engine } = setup([{ when: () => true, output: 'never', repeat: true }]);
    const failed = chat.chat('Weather in Paris?', { prepareStep: () => ({ activeTools: ['get_wether'] }) });
    await expect(failed).rejects.toBeInstanceOf(UnknownToolError);
    await expect(chat.chat('Again?', { prepareStep: () => ({ activeTools: ['get_wether'] }) })).rejects.toThrow(/'get_wether'.*Offered: get_weather, get_time/);
    await expect(chat.chat('Time?', { prepareStep: () => ({ activeTools: ['get_weather'], toolChoice: { name: 'get_time' } }) })).rejects.toThrow(
      /does not offer.*Offered: get_weather\./,
    );
    await expect(chat.chat('Time?', { prepareStep: () => ({ toolChoice: 'always' as never }) })).rejects.toThrow(/'auto', 'required', 'none'/);
    expect(engine.generations).toEqual([]);
  });
});
