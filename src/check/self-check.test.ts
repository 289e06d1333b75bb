import { describe, expect, it, vi } from 'vitest';
import { ScriptedEngine, type ScriptedOutput } from '../engine/scripted-engine.ts';
import { when } from '../testing/script-matchers.ts';
import { NexusChat } from '../nexus/index.ts';
import { freshToken, selfCheckQuestion } from './check-questions.ts';
import { runSelfCheck } from './self-check.ts';

/** A seeded generator, so the test knows the question and token the check will use. */
function seeded(seed: number): () => number {
  let state = seed;
  return () => {
    state = (state * 1103515245 + 12345) % 2147483648;
    return state / 2147483648;
  };
}

function expectedFor(seed: number) {
  const random = seeded(seed);
  const question = selfCheckQuestion(random);
  return { question, token: freshToken(random) };
}

function chatWith(script: ScriptedOutput[]) {
  return NexusChat.withEngine(new ScriptedEngine(script, { model: 'scripted-qwen3', device: 'cpu', dtype: 'q4' }));
}

describe('selfCheck', () => {
  const { question, token } = expectedFor(7);
  const call = `<tool_call>\n{"name": "get_verification_code", "arguments": {"item": "${String(question.expected.item)}"}}\n</tool_call>`;

  it('passes a model that calls the tool and answers with the token', async () => {
    const chat = chatWith([
      { when: when.userAsked(question.question), output: call },
      { when: when.promptContains(token), output: `The verification code for ${String(question.expected.item)} is ${token}.` },
    ]);
    const check = await runSelfCheck(chat, seeded(7));
    expect(check).toMatchObject({ ok: true, called: true, grounded: true, needed_forcing: false, model: 'scripted-qwen3', device: 'cpu', dtype: 'q4' });
    expect(check.detail).toBe('scripted-qwen3 (q4 on cpu, Qwen3 profile) calls tools and answers from their results.');
    expect(check.generations).toBe(2);
  });

  it('fails, loudly, a model that calls the tool and then reports something else', async () => {
    const chat = chatWith([
      { when: when.userAsked(question.question), output: call },
      { when: when.afterResults(), output: 'The verification code is AB-1234-CD.' },
    ]);
    const check = await runSelfCheck(chat, seeded(7));
    expect(check).toMatchObject({ ok: false, called: true, grounded: false });
    expect(check.detail).toMatch(/calls tools but reports something else than their result, so its answers would look right and be wrong/);
  });

  it('fails a model that does not call tools, suggesting what to try', async () => {
    const chat = chatWith([
      { when: when.userAsked(question.question), output: 'The code is 1234.' },
      { when: when.primed(), output: 'I do not know.' },
      { when: when.argument('item'), output: 'code"' },
      { when: when.gate(), output: 'No' },
    ]);
    const check = await runSelfCheck(chat, seeded(7));
    expect(check).toMatchObject({ ok: false, called: false, grounded: false });
    expect(check.detail).toBe(
      'scripted-qwen3 (q4 on cpu, Qwen3 profile) does not call tools: asked for a code only a tool could give, it answered without calling one. Try another quantization, or a larger model — below ~0.5B this usually cannot be fixed.',
    );
  });

  it('passes with needed_forcing a model that calls only once primed', async () => {
    const chat = chatWith([
      { when: when.userAsked(question.question), output: 'The code is 1234.' },
      { when: when.primed(), output: `get_verification_code", "arguments": {"item": "${String(question.expected.item)}"}}\n</tool_call>` },
      { when: when.gate(), output: 'Yes' },
      { when: when.promptContains(token), output: `It is ${token}.` },
    ]);
    const check = await runSelfCheck(chat, seeded(7));
    expect(check).toMatchObject({ ok: true, needed_forcing: true });
    expect(check.detail).toMatch(/only once the call is primed/);
  });

  it('restores the tools, the conversation and the listeners around the check', async () => {
    const chat = chatWith([
      { when: when.userAsked('hello'), output: 'Hi!' },
      { when: when.primed(), output: 'x' },
      { when: when.gate(), output: 'No' },
      { when: when.userAsked(question.question), output: call },
      { when: when.promptContains(token), output: token },
    ]).tool('get_weather', 'weather', { city: 'string' }, () => 'sunny');
    await chat.chat('hello', { strategy: 'inline' });
    const listener = vi.fn();
    chat.on('token', listener);

    await chat.selfCheck().catch(() => undefined);
    await runSelfCheck(chat, seeded(7));

    expect(chat.tools.names).toEqual(['get_weather']);
    expect(listener).not.toHaveBeenCalled();
  });

  it('can be cancelled: it rejects with an AbortError, judges nothing, and leaves the verdict as it was', async () => {
    const chat = chatWith([
      { when: when.userAsked(question.question), output: call },
      { when: when.promptContains(token), output: `Your code is ${token}.` },
    ]);
    const controller = new AbortController();
    controller.abort();
    await expect(chat.selfCheck({ random: seeded(7), signal: controller.signal })).rejects.toMatchObject({ name: 'AbortError' });
    expect(chat.toolCheck).toBeUndefined();
    // The chat is free again: the same check, not cancelled, runs and passes.
    expect((await chat.selfCheck({ random: seeded(7) })).ok).toBe(true);
  });
});
