import { describe, expect, it } from 'vitest';
import type { GenerateOptions, GenerateResult } from '../engine/engine.ts';
import { ScriptedEngine } from '../engine/scripted-engine.ts';
import { DelegatingEngine } from '../testing/delegating-engine.ts';
import { when } from '../testing/script-matchers.ts';
import { InvalidHistoryError } from './errors.ts';
import { NexusChat } from './nexus-chat.ts';
import { outside, withoutOutsideMarks } from '../shared/outside-text.ts';
import type { StoppedConversation } from '../loop/types.ts';

/** A model that stops itself: its first essay is aborted after three words, as the user pressing Stop. */
class StoppedOnce extends DelegatingEngine {
  stopped = false;
  readonly prompts: string[] = [];
  constructor(private readonly stop: () => void) {
    super(
      new ScriptedEngine([
        { when: when.gate(), output: 'No', repeat: true },
        { when: (prompt) => prompt.endsWith('Rain is water'), output: ' that falls from clouds.' },
      ]),
    );
  }
  override async generate(prompt: string, options: GenerateOptions): Promise<GenerateResult> {
    this.prompts.push(prompt);
    if (!this.stopped && prompt.endsWith(when.userAsked('Write about rain.') as string)) {
      this.stopped = true;
      for (const word of ['Rain ', 'is ', 'water ']) options.onText?.(word);
      this.stop();
      throw options.signal?.reason ?? new DOMException('Stopped', 'AbortError');
    }
    return this.inner.generate(prompt, options);
  }
}

describe('Continue after Stop (issue 44, item 8)', () => {
  it('goes on from where the stopped answer ends, in the same answer, with no tools', async () => {
    const controller = new AbortController();
    const engine = new StoppedOnce(() => controller.abort());
    const chat = NexusChat.withEngine(engine);
    chat.tool('get_weather', 'Weather for a city', { city: 'string' }, () => ({ c: 4 }));
    const stopped = (await chat.chat('Write about rain.', { signal: controller.signal }).catch((error: unknown) => error)) as StoppedConversation;
    expect(stopped.messages.at(-1)).toEqual({ role: 'assistant', content: 'Rain is water' });
    const streamed: string[] = [];
    const off = chat.on('token', (text) => streamed.push(text));
    const answer = await chat.continueAnswer({ messages: stopped.messages, memory: stopped.memory });
    off();
    // The model was given its own words after the generation prompt, not a new user turn, and no tools.
    // Its own words are marked as outside text (a saved or imported conversation may have written them).
    expect(engine.prompts.at(-1)).toContain(outside('Rain is water'));
    const prompt = withoutOutsideMarks(engine.prompts.at(-1) ?? '');
    expect(prompt).toMatch(/<\|im_start\|>user\nWrite about rain\.<\|im_end\|>\n<\|im_start\|>assistant\n<think>\n\n<\/think>\n\nRain is water$/);
    expect(prompt).not.toContain('get_weather');
    expect(answer.text).toBe('Rain is water that falls from clouds.');
    expect(streamed.join('')).toBe(' that falls from clouds.');
    expect(answer.steps.find((s) => s.kind === 'generation')).toMatchObject({ strategy: 'continue', text: 'Rain is water that falls from clouds.' });
    expect(answer.messages).toEqual([
      { role: 'user', content: 'Write about rain.' },
      { role: 'assistant', content: 'Rain is water that falls from clouds.' },
    ]);
  });

  it('says why when there is nothing to continue', async () => {
    const engine = new ScriptedEngine([]);
    const chat = NexusChat.withEngine(engine);
    await expect(chat.continueAnswer()).rejects.toThrow(InvalidHistoryError);
    await expect(chat.continueAnswer()).rejects.toThrow(/There is no stopped answer to continue: the conversation is empty/);
    await expect(chat.continueAnswer({ messages: [{ role: 'user', content: 'Hi' }] })).rejects.toThrow(/ends with a user message/);
    expect(engine.generations).toEqual([]);
  });
});
