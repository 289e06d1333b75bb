import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { FIXTURE_MODELS_DIR, TINY_QWEN3, prepareFixtureModels } from '../tests/fixtures/prepare-models.ts';
import { NexusChat } from './nexus.ts';

describe('NexusChat.load in Node, over the real engine on the tiny fixture', () => {
  let chat: NexusChat;
  beforeAll(async () => {
    prepareFixtureModels();
    chat = await NexusChat.load({ path: `${FIXTURE_MODELS_DIR}${TINY_QWEN3}` });
  });
  afterAll(() => chat?.dispose());

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

  it('self-checks honestly: random weights do not call tools, and the user\'s tools survive the check', async () => {
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
