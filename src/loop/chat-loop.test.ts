import { answerFromSteps, messagesOf, type Step } from './step-log.ts';
import { Emitter } from './emitter.ts';
import { emitStep } from './step-events.ts';
import { CHAT_EVENT_NAMES } from './types.ts';
import { describe, expect, it, vi } from 'vitest';
import { ScriptedEngine, type ScriptedOutput } from '../engine/scripted-engine.ts';
import { NexusChat } from '../nexus/index.ts';
import { qwen3 } from './__fixtures__/qwen3-outputs.ts';
import { ANSWER_NOW_PROMPT } from './prompts.ts';
import { QWEN3_PRIMED_PREFIX as PRIMED_PREFIX } from '../testing/script-matchers.ts';
import { when } from '../testing/script-matchers.ts';
import type { ChatEvents, StoppedConversation } from './types.ts';
import { DelegatingEngine } from '../testing/delegating-engine.ts';
import type { ChatMessage, GenerateOptions, GenerateResult } from '../engine/engine.ts';
import { withDetails } from '../tools/tool-registry.ts';

const weatherOf = (city: string) => ({ city, temperature_c: city === 'Paris' ? 12 : 31.2, conditions: city === 'Paris' ? 'rain' : 'partly cloudy' });

function setup(script: ScriptedOutput[], configure?: (chat: NexusChat) => void) {
  const engine = new ScriptedEngine(script);
  const weather = vi.fn(({ city }: { city: string }) => weatherOf(city));
  const chat = NexusChat.withEngine(engine).tool('get_weather', 'Get current weather for a city', { city: 'string' }, weather);
  configure?.(chat);
  const events: { [K in keyof ChatEvents]: ChatEvents[K][] } = {
    token: [],
    toolCall: [],
    stepFinish: [],
    step: [],
    forced: [],
    raw: [],
    round: [],
    escalate: [],
    toolSearch: [],
    memory: [],
  };
  for (const name of Object.keys(events) as (keyof ChatEvents)[]) {
    chat.on(name, ((...args: never[]) => (events[name] as unknown[]).push(args)) as never);
  }
  const visible = () => events.token.map(([t]) => t).join('');
  return { engine, chat, weather, events, visible };
}

describe('the tool loop on a scripted Qwen3', () => {
  it('runs a call the model writes inline and answers from its result', async () => {
    const { chat, engine, weather, events, visible } = setup([
      { when: when.userAsked('Weather in Chennai?'), output: qwen3.callWeatherChennai },
      { when: when.promptContains('"temperature_c":31.2'), output: qwen3.answerChennai },
    ]);
    const answer = await chat.chat('Weather in Chennai?');
    const [first, second] = engine.generations;

    expect(answer.text).toBe(qwen3.answerChennai);
    expect(weather).toHaveBeenCalledExactlyOnceWith({ city: 'Chennai' }, expect.anything());
    expect(answer.calls).toMatchObject([{ id: 'call_1', name: 'get_weather', source: 'inline', status: 'ok', round: 1 }]);
    expect(answer.metrics).toMatchObject({ rounds: 2, generations: 2, toolCalls: 1, forcedCalls: 0, rescues: 0, tool_calls_force_failed: 0 });
    expect(events.forced).toEqual([]);
    expect(visible()).toBe(qwen3.answerChennai);
    expect(engine.remaining).toEqual([]);
    // The result went back as a tool message answering the call's id, in the template's layout.
    expect(answer.messages).toMatchObject([
      { role: 'user', content: 'Weather in Chennai?' },
      { role: 'assistant', content: '', tool_calls: [{ id: 'call_1', function: { name: 'get_weather', arguments: { city: 'Chennai' } } }] },
      { role: 'tool', tool_call_id: 'call_1', content: JSON.stringify(weatherOf('Chennai')) },
      { role: 'assistant', content: qwen3.answerChennai },
    ]);
    // The answer prompt was said once, in the system prompt; no turn is inserted after the results.
    expect(first?.prompt).toContain(`${chat.systemPrompt}\n${chat.answerPrompt}`);
    expect(answer.messages.filter((m) => m.role === 'system')).toEqual([]);
    // The next round's prompt repeats the first prompt and what the model wrote byte for byte (the
    // empty think block included), so a KV cache of the first round stays valid.
    expect(second?.prompt.startsWith(`${first?.prompt}${qwen3.callWeatherChennai}<|im_end|>\n<|im_start|>user\n<tool_response>\n{"city":"Chennai"`)).toBe(true);
  });

  it("keeps a handler's details with its call, for the page, and never shows them to the model (issue 43)", async () => {
    const { chat, engine } = setup(
      [
        { when: when.userAsked('Weather in Chennai?'), output: qwen3.callWeatherChennai },
        { when: when.afterResults(), output: qwen3.answerChennai },
      ],
      (c) => {
        c.tools.unregister('get_weather');
        c.tool('get_weather', 'weather', { city: 'string' }, ({ city }) => withDetails(`${city}: 31.2 °C`, { chart: 'sunny-icon', sources: [1] }));
      },
    );
    const answer = await chat.chat('Weather in Chennai?');
    expect(answer.calls[0]).toMatchObject({ result: 'Chennai: 31.2 °C', value: 'Chennai: 31.2 °C', details: { chart: 'sunny-icon', sources: [1] } });
    expect(engine.generations[1]?.prompt).toContain('Chennai: 31.2 °C');
    expect(engine.generations[1]?.prompt).not.toContain('sunny-icon');
  });

  it('returns the answer as its steps: frozen records from which text, calls, metrics and usage are read back (issue 24)', async () => {
    const { chat, events, engine } = setup([
      { when: when.userAsked('Weather in Chennai?'), output: qwen3.callWeatherChennai },
      { when: when.promptContains('"temperature_c":31.2'), output: qwen3.answerChennai },
    ]);
    const finished: Step[] = [];
    const answer = await chat.chat('Weather in Chennai?', { onStepFinish: (step) => finished.push(step) });
    expect(finished).toEqual(answer.steps);
    expect(answer.steps.map((s) => s.kind)).toEqual([
      'started',
      'round',
      'generation',
      'verdict',
      'call',
      'turn',
      'round',
      'generation',
      'verdict',
      'finished',
    ]);
    // The first step records what the answer ran with (issue 43): the system message the model read, the settings, the tools offered.
    const started = answer.steps[0];
    expect(started).toMatchObject({
      kind: 'started',
      settings: { toolChoice: 'auto', strategy: 'auto', maxRounds: 4, maxNewTokens: 512, repetitionPenalty: 1.1, enableThinking: false },
      offered: ['get_weather'],
    });
    expect(started?.kind === 'started' && started.systemPrompt).toMatch(/\S/);
    expect(engine.generations[0]?.prompt).toContain(started?.kind === 'started' ? started.systemPrompt : 'none');
    expect(answer.steps.filter((s) => s.kind === 'generation').map((s) => s.text)).toEqual([qwen3.callWeatherChennai, qwen3.answerChennai]);
    for (const step of answer.steps) expect(Object.isFrozen(step)).toBe(true);
    // The events are the same records, as they were appended.
    expect(events.stepFinish.map(([step]) => step)).toEqual(answer.steps);
    // A saved answer (through JSON, as the page stores it) is replayed from its steps alone.
    const replayed = answerFromSteps(JSON.parse(JSON.stringify(answer.steps)));
    // (The reply's conversation is the caller's, beside the answer: not a fold of its steps.)
    expect(replayed).toEqual(JSON.parse(JSON.stringify({ ...answer, messages: undefined, memory: undefined })));
    expect(answer.totalUsage.newTokens).toBe(answer.metrics.newTokens);
    // The conversation's new turns are derived from the steps: the call with its result, then the answer.
    expect(answer.messages).toEqual([{ role: 'user', content: 'Weather in Chennai?' }, ...messagesOf(answer.steps)]);
    expect(messagesOf(answer.steps).map((m) => m.role)).toEqual(['assistant', 'tool', 'assistant']);
  });

  it("records the reader's time to first text: after the tool round, at the answer's first visible token", async () => {
    vi.useFakeTimers({ toFake: ['performance'] });
    try {
      // Each generation takes 300 ms of the (fake) clock before it writes a word.
      class Slow extends DelegatingEngine {
        override generate(prompt: string, options: GenerateOptions): Promise<GenerateResult> {
          vi.advanceTimersByTime(300);
          return super.generate(prompt, options);
        }
      }
      const engine = new ScriptedEngine([
        { when: when.userAsked('Weather in Chennai?'), output: qwen3.callWeatherChennai },
        { when: when.promptContains('"temperature_c":31.2'), output: qwen3.answerChennai },
      ]);
      const chat = NexusChat.withEngine(new Slow(engine)).tool(
        'get_weather',
        'Get current weather for a city',
        { city: 'string' },
        ({ city }: { city: string }) => weatherOf(city),
      );
      const answer = await chat.chat('Weather in Chennai?');
      // The call's generation wrote no visible text: the first words came with the second generation.
      expect(answer.metrics.firstTextMs).toBe(600);
      expect(answer.steps.at(-1)).toMatchObject({ kind: 'finished', firstTextMs: 600 });
      // A caller that takes the calls itself streams no text, and the answer says no time rather than a made-up one.
      const handed = await NexusChat.withEngine(
        new Slow(new ScriptedEngine([{ when: when.userAsked('Weather in Chennai?'), output: qwen3.callWeatherChennai }])),
      ).modelTurn([{ role: 'user', content: 'Weather in Chennai?' }], {
        tools: [
          { name: 'get_weather', description: 'Get current weather for a city', parameters: { type: 'object', properties: { city: { type: 'string' } } } },
        ],
      });
      expect(handed.calls).toHaveLength(1);
      expect(handed.metrics.firstTextMs).toBeUndefined();
    } finally {
      vi.useRealTimers();
    }
  });

  it("records the system message as the model read it: an import's or a server's instructions in it, the guard's marks not (issue 52)", async () => {
    const { chat } = setup([{ when: when.userAsked('Hi'), output: 'Bonjour !' }]);
    const answer = await chat.chat('Hi', { instructions: 'Answer in French.', toolChoice: 'none' });
    const started = answer.steps[0];
    expect(started?.kind === 'started' && started.systemPrompt).toMatch(/\n\nAnswer in French\.$/);
    expect(JSON.stringify(answer.steps)).not.toMatch(/[\uE002\uE003]/);
  });

  it('hears every event but token as a projection of the steps: replaying the steps gives the same events in the same order', async () => {
    const heard: unknown[][] = [];
    const { chat } = setup(
      [
        { when: when.userAsked('Weather in Paris?'), output: qwen3.guessParis },
        { when: when.primed(), output: qwen3.primedContinuationParis },
        { when: when.gate(), output: 'Yes' },
        { when: when.afterResults(), output: qwen3.answerParis },
      ],
      (c) => {
        for (const name of CHAT_EVENT_NAMES) if (name !== 'token') c.on(name, ((...args: unknown[]) => heard.push([name, ...args])) as never);
      },
    );
    const answer = await chat.chat('Weather in Paris?');
    const replayed: unknown[][] = [];
    const fresh = new Emitter<ChatEvents>();
    for (const name of CHAT_EVENT_NAMES) fresh.on(name, ((...args: unknown[]) => replayed.push([name, ...args])) as never);
    for (const step of JSON.parse(JSON.stringify(answer.steps)) as Step[]) emitStep(fresh, step);
    expect(JSON.parse(JSON.stringify(replayed))).toEqual(JSON.parse(JSON.stringify(heard)));
    // And what is heard is the answer as it happened, written out here independently of the projection
    // (issue 55: a replay compared only with itself proved nothing): the guess, the gate, the primed call,
    // its result, the answer.
    const heardEvents = heard.filter(([name]) => name !== 'stepFinish');
    expect(heardEvents).toEqual([
      ['round', { round: 1, kind: 'tools' }],
      ['raw', qwen3.guessParis, { round: 1, strategy: 'inline' }],
      ['escalate', { round: 1, rung: 'gate' }],
      ['raw', 'Yes', { round: 1, strategy: 'gate' }],
      ['step', 'gate', 'Yes', expect.anything()],
      ['escalate', { round: 1, rung: 'primed' }],
      ['raw', expect.stringContaining('<tool_call>\n{"name": "get_weather"'), { round: 1, strategy: 'primed' }],
      ['toolCall', expect.objectContaining({ name: 'get_weather', arguments: { city: 'Paris' }, source: 'primed', status: 'ok' }), answer.calls[0]?.result],
      ['round', { round: 2, kind: 'tools' }],
      ['raw', qwen3.answerParis, { round: 2, strategy: 'inline' }],
    ]);
    // Every step was announced once, in order, as the record itself.
    expect(heard.filter(([name]) => name === 'stepFinish').map(([, step]) => step)).toEqual(answer.steps);
    expect(new Set(heard.map(([name]) => name))).toEqual(new Set(['stepFinish', 'round', 'raw', 'step', 'escalate', 'toolCall']));
  });

  it('keeps prose written before a call as the assistant turn and streams it', async () => {
    const { chat, visible } = setup([
      { when: when.userAsked('Weather in Chennai?'), output: qwen3.proseThenCall },
      { when: when.afterResults(), output: qwen3.answerChennai },
    ]);
    const answer = await chat.chat('Weather in Chennai?');
    expect(answer.messages[1]).toMatchObject({ role: 'assistant', content: 'Let me check the weather for you.' });
    expect(visible()).toBe(`Let me check the weather for you.${qwen3.answerChennai}`);
    expect(visible()).not.toContain('<tool_call>');
  });

  it('primes the call when the model answers from memory, asks whether the tool is needed, and runs it', async () => {
    const { chat, weather, events, engine } = setup([
      { when: when.userAsked('Weather in Paris?'), output: qwen3.guessParis },
      { when: when.primed(), output: qwen3.primedContinuationParis },
      { when: when.gate(), output: 'Yes' },
      { when: when.afterResults(), output: qwen3.answerParis },
    ]);
    const answer = await chat.chat('Weather in Paris?');
    expect(answer.text).toBe(qwen3.answerParis);
    expect(weather).toHaveBeenCalledOnce();
    expect(answer.calls[0]).toMatchObject({ source: 'primed', arguments: { city: 'Paris' } });
    expect(answer.metrics).toMatchObject({ generations: 4, rescues: 1, forcedCalls: 1, tool_calls_force_failed: 0 });
    expect(events.step).toContainEqual(['gate', 'Yes', 'yes']);
    expect(events.round.map(([r]) => r.round)).toEqual([1, 2]);
    // The guess streamed first is announced as a draft before the check, so a page can keep it in view;
    // the yes/no check comes before priming (issue 16), then the primed call.
    expect(events.escalate).toEqual([[{ round: 1, rung: 'gate' }], [{ round: 1, rung: 'primed' }]]);
    expect(engine.generations.map((g) => g.options.choices?.join('/') ?? 'free')).toEqual(['free', 'Yes/No', 'free', 'free']);
  });

  it('discards a primed call to a made-up tool, reports it, and rescues the call stepwise', async () => {
    const { chat, weather, events, engine } = setup(
      [
        { when: when.userAsked('Weather in Paris?'), output: qwen3.guessParis },
        { when: when.primed(), output: qwen3.primedHallucinated },
        { when: when.select(), output: 'get_weather.' },
        { when: when.argument('city'), output: 'Paris"' },
        { when: when.gate(), output: 'Yes' },
        { when: when.afterResults(), output: qwen3.answerParis },
      ],
      (c) => c.tool('current_datetime', 'Current date and time', { time_zone: 'string' }, () => 'now'),
    );
    const answer = await chat.chat('Weather in Paris?');

    expect(events.forced).toEqual([
      [{ strategy: 'primed', raw: PRIMED_PREFIX + qwen3.primedHallucinated, name: 'weather_lookup', reason: "'weather_lookup' is not a registered tool." }],
    ]);
    expect(weather).toHaveBeenCalledExactlyOnceWith({ city: 'Paris' }, expect.anything());
    expect(answer.calls[0]).toMatchObject({ source: 'stepwise', name: 'get_weather' });
    expect(answer.metrics).toMatchObject({ tool_calls_force_failed: 1, rescues: 1, forcedCalls: 1 });
    expect(events.escalate).toEqual([[{ round: 1, rung: 'gate' }], [{ round: 1, rung: 'primed' }], [{ round: 1, rung: 'stepwise' }]]);
    expect(events.step[0]).toEqual(['gate', 'Yes', 'yes']);
    expect(events.step.slice(1, 3)).toEqual([
      ['select', 'The tool needed is get_weather', 'get_weather'],
      ['arg:city', '"Paris"', '"Paris"'],
    ]);
    // The tool is chosen under a constraint: only registered names are possible outputs.
    expect(engine.generations.find((g) => g.options.choices?.includes('get_weather'))?.options.choices).toEqual(['get_weather', 'current_datetime']);
  });

  it('never remaps a made-up name, even with exactly one tool registered: the call comes from the stepwise rescue', async () => {
    const { chat, weather, events } = setup([
      { when: when.userAsked('Weather in Paris?'), output: qwen3.guessParis },
      { when: when.gate(), output: 'Yes' },
      { when: when.primed(), output: qwen3.primedHallucinated },
      // Stepwise needs no choice with one tool: only the argument is asked.
      { when: when.argument('city'), output: 'Paris"' },
      { when: when.afterResults(), output: qwen3.answerParis },
    ]);
    const answer = await chat.chat('Weather in Paris?');
    expect(events.forced[0]?.[0]).toMatchObject({ strategy: 'primed', name: 'weather_lookup' });
    expect(weather).toHaveBeenCalledExactlyOnceWith({ city: 'Paris' }, expect.anything());
    expect(answer.calls.map((c) => [c.name, c.source])).toEqual([['get_weather', 'stepwise']]);
    expect(answer.metrics).toMatchObject({ tool_calls_force_failed: 1, toolCalls: 1, rescues: 1 });
  });

  it('asks the yes/no check before priming: a no ends the climb before any forced generation', async () => {
    const { chat, weather, engine } = setup([
      { when: when.userAsked('Weather in Paris?'), output: qwen3.guessParis },
      { when: when.gate(), output: 'No' },
    ]);
    const answer = await chat.chat('Weather in Paris?');
    expect(weather).not.toHaveBeenCalled();
    expect(answer.text).toBe(qwen3.guessParis);
    expect(engine.generations).toHaveLength(2);
    expect(engine.generations[1]?.options).toMatchObject({ maxNewTokens: 2, choices: ['Yes', 'No'] });
  });

  it('does not turn small talk into a tool call: the yes/no check says no and the greeting stands', async () => {
    const { chat, weather, events } = setup([
      { when: when.userAsked('hi'), output: qwen3.greeting },
      { when: when.gate(), output: 'No' },
    ]);
    const answer = await chat.chat('hi');
    expect(answer.text).toBe(qwen3.greeting);
    expect(weather).not.toHaveBeenCalled();
    expect(answer.calls).toEqual([]);
    // One extra generation of two tokens at most: the check, asked before anything is primed (issue 16).
    expect(answer.metrics).toMatchObject({ rounds: 1, generations: 2, toolCalls: 0, rescues: 0 });
    expect(events.step).toEqual([['gate', 'No', 'no']]);
    expect(answer.messages).toEqual([
      { role: 'user', content: 'hi' },
      { role: 'assistant', content: qwen3.greeting },
    ]);
  });

  it("skips the yes/no check for toolChoice 'required'", async () => {
    const { chat, weather, engine } = setup([
      { when: when.userAsked('hi'), output: qwen3.greeting },
      { when: when.primed(), output: qwen3.primedContinuationOnGreeting },
      { when: when.afterResults(), output: 'It is 31.2°C in Hello.' },
    ]);
    await chat.chat('hi', { toolChoice: 'required' });
    expect(weather).toHaveBeenCalledOnce();
    expect(engine.generations.some((g) => g.options.choices)).toBe(false);
  });

  it("applies 'required' to the first round only", async () => {
    const { chat, weather } = setup([
      { when: when.userAsked('Weather in Chennai?'), output: qwen3.callWeatherChennai },
      { when: when.afterResults(), output: qwen3.answerChennai },
    ]);
    const answer = await chat.chat('Weather in Chennai?', { toolChoice: 'required' });
    expect(answer.text).toBe(qwen3.answerChennai);
    expect(weather).toHaveBeenCalledOnce();
  });

  it('runs several calls of one turn in order, each with its own id, and returns all results together', async () => {
    const { chat, engine } = setup(
      [
        { when: when.userAsked('Weather and time in Chennai?'), output: qwen3.callWeatherAndTime },
        { when: when.afterResults(), output: qwen3.answerChennaiAndTime },
      ],
      (c) => c.tool('current_datetime', 'Current date and time', { time_zone: 'string' }, ({ time_zone }) => `19:30 in ${time_zone}`),
    );
    const answer = await chat.chat('Weather and time in Chennai?');
    expect(answer.calls.map((c) => [c.id, c.name])).toEqual([
      ['call_1', 'get_weather'],
      ['call_2', 'current_datetime'],
    ]);
    expect(answer.messages.filter((m) => m.role === 'tool').map((m) => (m as { tool_call_id: string }).tool_call_id)).toEqual(['call_1', 'call_2']);
    const second = engine.generations[1]?.prompt ?? '';
    expect(second.indexOf('"city":"Chennai"')).toBeLessThan(second.indexOf('19:30 in Asia/Kolkata'));
    expect(second).toContain('</tool_response>\n<tool_response>');
  });

  it('does not run a call identical to one already run in the answer; the model is told to use what it has', async () => {
    const { chat, weather } = setup([
      { when: when.userAsked('Weather in Chennai?'), output: qwen3.callWeatherChennai },
      { when: (p) => (p.match(/<tool_response>/g) ?? []).length === 1, output: qwen3.callWeatherChennai },
      { when: when.promptContains('You already called get_weather with these arguments'), output: qwen3.answerChennai },
    ]);
    const answer = await chat.chat('Weather in Chennai?');
    expect(weather).toHaveBeenCalledOnce();
    expect(answer.calls.map((c) => c.status)).toEqual(['ok', 'duplicate']);
    expect(answer.metrics.duplicateCalls).toBe(1);
    expect(answer.text).toBe(qwen3.answerChennai);
  });

  it('stops a model that never stops calling: after maxRounds, answer rounds without tools', async () => {
    const weather = vi.fn(({ city }: { city: string }) => weatherOf(city));
    const engine = new ScriptedEngine([
      { when: when.userAsked('Weather everywhere?'), output: qwen3.callWeatherChennai },
      { when: when.afterResults(), output: qwen3.callWeatherParis },
      { when: when.answerNow(), output: '<tool_call>\n{"name": "get_weather", "arguments": {"city": "Oslo"}}\n</tool_call>' },
      { when: when.answerNow(), output: 'Chennai is 31.2°C, Paris 12°C and Oslo is cold.' },
    ]);
    // Two tool rounds for every answer of this chat: a default given at construction.
    const chat = NexusChat.withEngine(engine, { maxRounds: 2 }).tool('get_weather', 'weather', { city: 'string' }, weather);
    const rounds: string[] = [];
    chat.on('round', (r) => rounds.push(r.kind));
    const answer = await chat.chat('Weather everywhere?');
    expect(rounds).toEqual(['tools', 'tools', 'answer', 'answer']);
    expect(answer.calls.map((c) => [c.arguments.city, c.source])).toEqual([
      ['Chennai', 'inline'],
      ['Paris', 'inline'],
      ['Oslo', 'answer-round'],
    ]);
    expect(answer.text).toBe('Chennai is 31.2°C, Paris 12°C and Oslo is cold.');
    expect(answer.metrics).toMatchObject({ rounds: 2, answerRounds: 2 });
    const answerPrompts = engine.generations.filter((g) => g.prompt.includes(ANSWER_NOW_PROMPT));
    expect(answerPrompts).toHaveLength(2);
    for (const g of answerPrompts) expect(g.prompt).not.toContain('# Tools');
  });

  it('never ends in a tool call or in nothing: when even the answer rounds call, the user reads the results', async () => {
    const engine = new ScriptedEngine([
      { when: when.userAsked('Weather?'), output: qwen3.callWeatherChennai },
      { when: when.afterResults(), output: qwen3.callWeatherParis },
      { when: when.answerNow(), output: '<tool_call>\n{"name": "get_weather", "arguments": {"city": "Oslo"}}\n</tool_call>' },
      { when: when.answerNow(), output: '' },
    ]);
    const chat = NexusChat.withEngine(engine).tool('get_weather', 'weather', { city: 'string' }, ({ city }) => weatherOf(city));
    // Two tool rounds for this answer only: an answer's option.
    const answer = await chat.chat('Weather?', { maxRounds: 2 });
    expect(answer.text).toMatch(/^I ran out of steps before writing an answer\. The tools returned:\n- get_weather: /);
    expect(answer.text).toContain('Oslo');
    expect(answer.messages.at(-1)).toEqual({ role: 'assistant', content: answer.text });
  });

  it('feeds a handler error back to the model as an error result', async () => {
    const { chat } = setup(
      [
        { when: when.userAsked('Weather in Chennai?'), output: qwen3.callWeatherChennai },
        { when: when.promptContains('Error: get_weather failed: The weather service did not answer'), output: qwen3.apologizeFailure },
      ],
      (c) => {
        c.tools.unregister('get_weather');
        c.tool('get_weather', 'weather', { city: 'string' }, () => {
          throw new Error('The weather service did not answer (HTTP 503).');
        });
      },
    );
    const answer = await chat.chat('Weather in Chennai?');
    expect(answer.calls[0]).toMatchObject({ status: 'error', result: 'Error: get_weather failed: The weather service did not answer (HTTP 503).' });
    expect(answer.text).toBe(qwen3.apologizeFailure);
  });

  it('feeds invalid arguments back in words the model can act on, and the corrected call runs', async () => {
    const { chat, weather } = setup([
      { when: when.userAsked('Weather in Chennai?'), output: qwen3.missingArgument },
      { when: when.promptContains("missing required argument 'city'"), output: qwen3.callWeatherChennai },
      { when: when.afterResults(), output: qwen3.answerChennai },
    ]);
    const answer = await chat.chat('Weather in Chennai?');
    expect(answer.calls.map((c) => c.status)).toEqual(['invalid', 'ok']);
    expect(weather).toHaveBeenCalledOnce();
  });

  describe('a confirm tool', () => {
    const script = (followUp: string): ScriptedOutput[] => [
      { when: when.userAsked('Delete note 7'), output: qwen3.callDelete },
      { when: when.afterResults(), output: followUp },
    ];
    const withDelete = (handler: () => unknown) => (c: NexusChat) => c.tool('delete_note', 'Delete a note', { id: 'integer' }, handler, { confirm: true });

    it('runs after the user approves, with the arguments shown to them', async () => {
      const remove = vi.fn(() => 'deleted');
      const approve = vi.fn(async () => true);
      const { chat } = setup(script(qwen3.deleted), withDelete(remove));
      const answer = await chat.chat('Delete note 7', { approve });
      expect(approve).toHaveBeenCalledExactlyOnceWith({ name: 'delete_note', arguments: { id: 7 } });
      expect(remove).toHaveBeenCalledOnce();
      expect(answer.calls[0]?.status).toBe('ok');
    });

    it('does not run when the user refuses, or when nobody can be asked', async () => {
      for (const approve of [async () => false, undefined]) {
        const remove = vi.fn(() => 'deleted');
        const { chat } = setup(script(qwen3.notDeleted), withDelete(remove));
        const answer = await chat.chat('Delete note 7', approve ? { approve } : {});
        expect(remove).not.toHaveBeenCalled();
        expect(answer.calls[0]?.status).toBe('refused');
        expect(answer.text).toBe(qwen3.notDeleted);
      }
    });
  });

  it('turns a pseudo-tool call carrying a reply into the answer', async () => {
    const { chat, visible } = setup([{ when: when.userAsked('hello'), output: qwen3.pseudoRespond }]);
    const answer = await chat.chat('hello', { toolChoice: 'auto', strategy: 'inline' });
    expect(answer.text).toBe('Hello! Nice to meet you.');
    expect(answer.calls).toEqual([]);
    expect(visible()).toBe('Hello! Nice to meet you.');
  });

  it('answers a call to a missing tool with one feedback line listing the available tools', async () => {
    const { chat, weather } = setup([
      { when: when.userAsked('Weather in Chennai?'), output: qwen3.unknownTool },
      { when: when.promptContains("Tool 'get_forecast' is not available. Available: get_weather."), output: qwen3.callWeatherChennai },
      { when: when.afterResults(), output: qwen3.answerChennai },
    ]);
    const answer = await chat.chat('Weather in Chennai?');
    expect(answer.calls.map((c) => [c.name, c.status])).toEqual([
      ['get_forecast', 'unknown'],
      ['get_weather', 'ok'],
    ]);
    expect(weather).toHaveBeenCalledOnce();
    // The feedback retry does not use up a tool round.
    expect(answer.metrics).toMatchObject({ rounds: 2, unknownToolCalls: 1 });
  });

  it('gives up feeding back after three retries, strips the call, and the original answer stands', async () => {
    const { chat, weather } = setup([
      { when: (p) => p.endsWith('<think>\n\n</think>\n\n') && !p.includes('Answer yes or no'), output: qwen3.unknownTool },
      { when: (p) => p.endsWith('<think>\n\n</think>\n\n') && !p.includes('Answer yes or no'), output: qwen3.unknownTool },
      { when: (p) => p.endsWith('<think>\n\n</think>\n\n') && !p.includes('Answer yes or no'), output: qwen3.unknownTool },
      { when: (p) => p.endsWith('<think>\n\n</think>\n\n') && !p.includes('Answer yes or no'), output: `I cannot do that.\n${qwen3.unknownTool}` },
      { when: when.primed(), output: qwen3.primedHallucinated },
      { when: when.argument('city'), output: 'Chennai"' },
      { when: when.gate(), output: 'No' },
    ]);
    const answer = await chat.chat('Weather in Chennai?');
    expect(answer.text).toBe('I cannot do that.');
    expect(weather).not.toHaveBeenCalled();
    expect(answer.metrics).toMatchObject({ unknownToolCalls: 3, rounds: 1 });
    expect(answer.messages.filter((m) => m.role === 'tool')).toHaveLength(3);
  });

  it("with toolChoice 'none' renders no tools and strips call markup from what the user sees", async () => {
    const { chat, engine, weather, visible } = setup([{ when: when.userAsked('Weather?'), output: qwen3.markupWithoutTools }]);
    const answer = await chat.chat('Weather?', { toolChoice: 'none' });
    expect(answer.text).toBe('Sure.');
    expect(visible()).toBe('Sure.');
    expect(weather).not.toHaveBeenCalled();
    expect(engine.generations[0]?.prompt).not.toContain('# Tools');
  });

  it('forces a named tool with toolChoice { name }', async () => {
    const { chat, weather } = setup([
      { when: when.userAsked('Paris'), output: qwen3.guessParis },
      { when: when.primedFor('get_weather'), output: '{"city": "Paris"}}\n</tool_call>' },
      { when: when.afterResults(), output: qwen3.answerParis },
    ]);
    const answer = await chat.chat('Paris', { toolChoice: { name: 'GET_WEATHER' } });
    expect(weather).toHaveBeenCalledExactlyOnceWith({ city: 'Paris' }, expect.anything());
    expect(answer.text).toBe(qwen3.answerParis);
  });

  it('rejects a toolChoice naming a tool that is not registered, listing the available ones', async () => {
    const { chat } = setup([]);
    await expect(chat.chat('x', { toolChoice: { name: 'launch_missiles' } })).rejects.toThrow(
      "toolChoice names 'launch_missiles', which is not registered. Available tools: get_weather.",
    );
  });

  it('samples every free generation when asked (issue 54: the round that may call too, so a new sample varies), never a forced step', async () => {
    const { chat, engine } = setup([
      { when: when.userAsked('Weather in Paris?'), output: qwen3.guessParis },
      { when: when.primed(), output: qwen3.primedContinuationParis },
      { when: when.gate(), output: 'Yes' },
      { when: when.afterResults(), output: qwen3.answerParis },
    ]);
    await chat.chat('Weather in Paris?', { sampling: { temperature: 0.7, topP: 0.9 } });
    const sampled = engine.generations.map((g) => g.options.sampling);
    // The free first round, then the gate's yes/no and the primed call (constrained and greedy), then the answer.
    expect(sampled).toEqual([{ temperature: 0.7, topP: 0.9 }, undefined, undefined, { temperature: 0.7, topP: 0.9 }]);
    // Temperature 0 is greedy: no sampling is passed at all.
    const greedy = setup([{ when: when.userAsked('Hi'), output: 'Hello!' }]);
    await greedy.chat.chat('Hi', { sampling: { temperature: 0 }, toolChoice: 'none' });
    expect(greedy.engine.generations[0]?.options.sampling).toBeUndefined();
  });

  it("with strategy 'inline' never escalates", async () => {
    const { chat, engine, events } = setup([{ when: when.userAsked('Weather in Paris?'), output: qwen3.guessParis }]);
    const answer = await chat.chat('Weather in Paris?', { strategy: 'inline' });
    expect(answer.text).toBe(qwen3.guessParis);
    expect(engine.generations).toHaveLength(1);
    expect(events.escalate).toEqual([]);
  });

  it("with strategy 'stepwise' starts there: tool from a closed list, then each argument", async () => {
    const { chat, engine, events } = setup([
      { when: when.argument('city'), output: 'Paris"' },
      { when: when.gate(), output: 'Yes' },
      { when: when.afterResults(), output: qwen3.answerParis },
    ]);
    const answer = await chat.chat('Weather in Paris?', { strategy: 'stepwise' });
    expect(answer.calls[0]).toMatchObject({ source: 'stepwise', arguments: { city: 'Paris' } });
    expect(events.step.slice(0, 2)).toEqual([
      ['gate', 'Yes', 'yes'],
      ['select', '', 'get_weather'],
    ]);
    // No free generation in the first round: the yes/no check, then already the argument question.
    expect(engine.generations[0]?.options.choices).toEqual(['Yes', 'No']);
    expect(engine.generations[1]?.prompt.endsWith('The tool needed is get_weather.\ncity = "')).toBe(true);
  });

  it('asks enum and boolean arguments from closed lists and numbers as bare values', async () => {
    const convert = vi.fn(() => 'ok');
    const { chat, engine } = setup(
      [
        { when: when.select(), output: 'convert' },
        { when: when.argument('amount'), output: '42\n' },
        { when: when.argument('unit'), output: '"kg"' },
        { when: when.argument('exact'), output: 'true' },
        { when: when.afterResults(), output: 'Done.' },
      ],
      (c) => c.tool('convert', 'Convert an amount', { amount: 'number', unit: { type: 'string', enum: ['kg', 'lb'] }, exact: 'boolean' }, convert),
    );
    await chat.chat('Convert 42 kg', { strategy: 'stepwise', toolChoice: 'required' });
    expect(convert).toHaveBeenCalledExactlyOnceWith({ amount: 42, unit: 'kg', exact: true }, expect.anything());
    expect(engine.generations.map((g) => g.options.choices)).toEqual([['get_weather', 'convert'], undefined, ['"kg"', '"lb"'], ['true', 'false'], undefined]);
  });

  it('caps a huge tool result and says how much was cut', async () => {
    const { chat } = setup(
      [
        { when: when.userAsked('Weather in Chennai?'), output: qwen3.callWeatherChennai },
        { when: when.afterResults(), output: 'Long.' },
      ],
      (c) => {
        c.tools.unregister('get_weather');
        c.tool('get_weather', 'weather', { city: 'string' }, () => 'x'.repeat(1_000_000));
      },
    );
    const answer = await chat.chat('Weather in Chennai?', { maxResultChars: 2000 });
    expect(answer.calls[0]?.result).toHaveLength(2000 + '\n[Result cut: showing 2,000 of 1,000,000 characters.]'.length);
    expect(answer.calls[0]?.result.endsWith('[Result cut: showing 2,000 of 1,000,000 characters.]')).toBe(true);
  });

  it('tells the handler how much of its result the model will read, so a tool that fetches text can fetch no more', async () => {
    let told: number | undefined;
    const { chat } = setup(
      [
        { when: when.userAsked('Weather in Chennai?'), output: qwen3.callWeatherChennai },
        { when: when.afterResults(), output: 'Sunny.' },
      ],
      (c) => {
        c.tools.unregister('get_weather');
        c.tool('get_weather', 'weather', { city: 'string' }, (_args, context) => {
          told = context.maxResultChars;
          return 'sunny';
        });
      },
    );
    await chat.chat('Weather in Chennai?', { maxResultChars: 2500 });
    expect(told).toBe(2500);
  });

  it('stops cleanly on abort mid-answer: rejects with AbortError, keeps the conversation consistent, and chats again', async () => {
    const { chat, weather } = setup([
      { when: when.userAsked('Weather in Chennai?'), output: qwen3.callWeatherChennai },
      { when: when.afterResults(), output: qwen3.answerChennai },
      { when: when.userAsked('Thanks'), output: 'You are welcome!' },
      { when: when.primed(), output: qwen3.primedContinuationOnGreeting },
      { when: when.gate(), output: 'No' },
    ]);
    const controller = new AbortController();
    let tokens = 0;
    const stop = chat.on('token', () => {
      if (++tokens === 3) controller.abort();
    });
    const stopped: StoppedConversation = await chat.chat('Weather in Chennai?', { signal: controller.signal }).catch((error: unknown) => {
      expect(error).toMatchObject({ name: 'AbortError' });
      return error as StoppedConversation;
    });
    stop();
    expect(weather).toHaveBeenCalledOnce();
    // The AbortError carries the conversation as it stands: the question, the whole round, the visible text.
    const roles = stopped.messages.map((m) => m.role);
    expect(roles).toEqual(['user', 'assistant', 'tool', 'assistant']);
    expect(stopped.messages.at(-1)).toMatchObject({ role: 'assistant', content: 'The current weather' });

    const next = await chat.chat('Thanks', { messages: stopped.messages, memory: stopped.memory });
    expect(next.text).toBe('You are welcome!');
  });

  it('aborted while the model writes a call, leaves no half tool call in the history', async () => {
    const { chat, weather } = setup([{ when: when.userAsked('Weather in Chennai?'), output: qwen3.callWeatherChennai }]);
    const controller = new AbortController();
    chat.on('raw', () => undefined);
    setTimeout(() => controller.abort(), 0);
    await expect(chat.chat('Weather in Chennai?', { signal: controller.signal })).rejects.toMatchObject({
      name: 'AbortError',
      messages: [{ role: 'user', content: 'Weather in Chennai?' }],
    });
    expect(weather).not.toHaveBeenCalled();
  });

  it('reports every generation as raw and keeps markup out of the token stream', async () => {
    const { chat, events } = setup([
      { when: when.userAsked('Weather in Chennai?'), output: qwen3.callWeatherChennai },
      { when: when.afterResults(), output: qwen3.answerChennai },
    ]);
    await chat.chat('Weather in Chennai?');
    expect(events.raw.map(([raw, info]) => [raw, info.strategy])).toEqual([
      [qwen3.callWeatherChennai, 'inline'],
      [qwen3.answerChennai, 'inline'],
    ]);
    expect(events.token.map(([t]) => t).join('')).not.toMatch(/tool_call|"name"/);
    expect(events.toolCall[0]?.[0]).toMatchObject({ name: 'get_weather', status: 'ok' });
  });

  it('refuses a second chat while one runs', async () => {
    const { chat } = setup([
      { when: when.userAsked('Weather in Chennai?'), output: qwen3.callWeatherChennai },
      { when: when.afterResults(), output: qwen3.answerChennai },
    ]);
    const first = chat.chat('Weather in Chennai?');
    await expect(chat.chat('again')).rejects.toThrow(/An answer is still running on this chat/);
    await first;
  });

  describe('per-answer tool sets, effects and instructions (what research mode builds on)', () => {
    it('offers only the tools named for the answer; a call to another is not available', async () => {
      const { chat, engine, weather } = setup(
        [
          { when: when.userAsked('Time?'), output: qwen3.callWeatherChennai },
          { when: when.promptContains("Tool 'get_weather' is not available. Available: current_datetime."), output: 'It is late.' },
        ],
        (c) => c.tool('current_datetime', 'Current date and time', { time_zone: 'string' }, () => 'now'),
      );
      const answer = await chat.chat('Time?', { tools: ['current_datetime'], strategy: 'inline' });
      expect(weather).not.toHaveBeenCalled();
      expect(answer.calls[0]).toMatchObject({ name: 'get_weather', status: 'unknown' });
      expect(engine.generations[0]?.prompt).not.toContain('"name": "get_weather"');
    });

    it("withdraws a tool and ends the tool rounds when a result says so, then asks with the page's answer-now turn", async () => {
      const { chat, engine } = setup([
        { when: when.userAsked('Weather in Chennai?'), output: qwen3.callWeatherChennai },
        { when: when.promptContains('Sources: [1] example'), output: 'Chennai is warm [1].' },
      ]);
      const answer = await chat.chat('Weather in Chennai?', {
        toolEffects: { get_weather: () => ({ withdraw: ['get_weather'], endToolRounds: true }) },
        answerNow: () => 'Sources: [1] example. Write the answer now. Do not call a tool.',
      });
      expect(answer.text).toBe('Chennai is warm [1].');
      expect(answer.metrics).toMatchObject({ rounds: 1, answerRounds: 1 });
      expect(engine.generations[1]?.prompt).not.toContain('# Tools');
    });

    it('adds per-answer instructions after the system prompt', async () => {
      const { chat, engine } = setup([{ when: when.userAsked('hi'), output: qwen3.greeting }]);
      await chat.chat('hi', { strategy: 'inline', instructions: 'Plan first: list the sub-questions.' });
      expect(engine.generations[0]?.prompt).toMatch(/<\|im_start\|>system\n[\s\S]*Plan first: list the sub-questions\.\n\n# Tools/);
    });
  });

  it('keeps no conversation: the next answer reads the one it is given (a stored copy through JSON), and an orphan tool result is refused', async () => {
    const { chat, engine } = setup([
      { when: when.userAsked('Weather in Chennai?'), output: qwen3.callWeatherChennai },
      { when: when.afterResults(), output: qwen3.answerChennai },
      { when: when.userAsked('Thanks'), output: 'You are welcome!' },
      { when: when.gate(), output: 'No' },
      { when: when.userAsked('Hello again'), output: 'Hello!' },
      { when: when.gate(), output: 'No' },
    ]);
    const first = await chat.chat('Weather in Chennai?');
    const stored = JSON.parse(JSON.stringify(first.messages)) as ChatMessage[];
    const second = await chat.chat('Thanks', { messages: stored });
    expect(second.messages).toEqual([...stored, { role: 'user', content: 'Thanks' }, { role: 'assistant', content: 'You are welcome!' }]);
    expect(engine.generations.at(-2)?.prompt).toContain(qwen3.answerChennai);
    // Without messages, a new conversation: nothing of the earlier ones is in the prompt.
    const third = await chat.chat('Hello again');
    expect(third.messages).toEqual([
      { role: 'user', content: 'Hello again' },
      { role: 'assistant', content: 'Hello!' },
    ]);
    expect(engine.generations.at(-2)?.prompt).not.toContain('Chennai');
    await expect(
      chat.chat('x', {
        messages: [
          { role: 'user', content: 'x' },
          { role: 'tool', tool_call_id: 'call_9', content: 'y' },
        ],
      }),
    ).rejects.toThrow("Message 1 answers tool call 'call_9', which the assistant turn before it did not make.");
  });
});

describe('opening calls (ChatOptions.openingCalls)', () => {
  it('runs them as round 1 before the model writes, which reads them in its own syntax and answers from the result', async () => {
    const { chat, engine, weather, events } = setup([
      // The first generation's prompt already holds the call and its result, as the model would have written them.
      { when: when.promptContains('"temperature_c":31.2'), output: qwen3.answerChennai },
    ]);
    const answer = await chat.chat('Is it warm there?', { openingCalls: [{ name: 'GET_WEATHER', arguments: { city: 'Chennai' } }] });
    expect(weather).toHaveBeenCalledExactlyOnceWith({ city: 'Chennai' }, expect.anything());
    expect(answer.text).toBe(qwen3.answerChennai);
    expect(answer.calls).toMatchObject([{ name: 'get_weather', source: 'given', status: 'ok', round: 1 }]);
    expect(engine.generations).toHaveLength(1);
    // The call stands in the conversation as an assistant turn with its tool result, before the answer.
    expect(answer.messages.map((m) => m.role)).toEqual(['user', 'assistant', 'tool', 'assistant']);
    expect(events.stepFinish.map(([step]) => step.kind)).toContain('call');
    expect(engine.generations[0]?.prompt).toContain('<tool_call>');
  });

  it('refuses a name that is not registered, listing the tools, before anything runs', async () => {
    const { chat, weather } = setup([]);
    await expect(chat.chat('hi', { openingCalls: [{ name: 'search_everything', arguments: {} }] })).rejects.toThrow(
      "openingCalls names 'search_everything', which is not registered. Available tools: get_weather.",
    );
    expect(weather).not.toHaveBeenCalled();
  });

  it('feeds back arguments that do not fit the schema as any call, and the model goes on', async () => {
    const { chat, weather } = setup([{ when: when.promptContains('city'), output: 'I could not look that up.' }]);
    const answer = await chat.chat('Weather?', { openingCalls: [{ name: 'get_weather', arguments: {} }] });
    expect(weather).not.toHaveBeenCalled();
    expect(answer.calls).toMatchObject([{ name: 'get_weather', source: 'given', status: 'invalid' }]);
    expect(answer.text).toBe('I could not look that up.');
  });
});
