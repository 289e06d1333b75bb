import { describe, expect, it } from 'vitest';
import { FIXTURE_MODELS_DIR, TINY_QWEN3 } from '../tests/fixtures/prepare-models.ts';
import { ScriptedEngine } from './engine/scripted-engine.ts';
import { InvalidOptionError, NexusChat } from './index.ts';

// Issue 23, item 7: an unknown option value is refused with the valid ones, before anything runs.

describe('options are validated', () => {
  it.each([
    [{ strategy: 'primed' }, "strategy: 'primed' is not a valid value. Use one of: 'auto', 'inline', 'stepwise'."],
    [{ toolChoice: 'force' }, "toolChoice: 'force' is not a valid value. Use one of: 'auto', 'required', 'none', '{ name }'."],
    [{ toolChoice: { tool: 'x' } }, 'toolChoice: {"tool":"x"} is not a valid value.'],
  ])('chat(%j) is refused before the model runs, naming the valid values', async (options, message) => {
    const engine = new ScriptedEngine([{ output: 'Hello.', repeat: true }]);
    const chat = NexusChat.withEngine(engine).tool('get_weather', 'Weather', { city: 'string' }, () => 'sunny');
    const error = await chat.chat('Weather in Paris?', options as never).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(InvalidOptionError);
    expect((error as Error).message).toContain(message);
    expect(engine.generations).toEqual([]);
  });

  it.each([
    [{ dtype: 'q4_f16' }, "dtype: 'q4_f16' is not a valid value. Use one of: 'fp32', 'fp16', 'q8', 'int8', 'uint8', 'q4', 'q4f16', 'bnb4'."],
    [{ device: 'gpu' }, "device: 'gpu' is not a valid value. Use one of: 'webgpu', 'wasm', 'cpu'."],
    [{ family: 'qwen4' }, "family: 'qwen4' is not a valid value. Use one of: 'qwen3.5', 'qwen3'"],
  ])('load(%j) is refused before anything loads, naming the valid values', async (options, message) => {
    const error = await NexusChat.load({ path: `${FIXTURE_MODELS_DIR}${TINY_QWEN3}` }, options as never).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(InvalidOptionError);
    expect((error as Error).message).toContain(message);
  });
});
