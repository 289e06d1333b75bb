import { describe, expect, inject, it } from 'vitest';
import { useLibraryHarness } from './harness/open-harness.ts';

describe('NexusChat.loadForTools in Chromium (WASM)', () => {
  const page = useLibraryHarness({ webgpu: false });

  it('an error raised in the model worker keeps its class in the page (issue 24, item 5)', async () => {
    const outcome = await page().evaluate(
      async (url) => {
        try {
          await window.nexus.NexusChat.load({ url });
          return undefined;
        } catch (error) {
          const named = (window.nexus as unknown as Record<string, unknown>)[(error as Error).name];
          return {
            name: (error as Error).name,
            ofItsClass: typeof named === 'function' && error instanceof (named as new () => Error),
            ofModelLoadError: error instanceof window.nexus.ModelLoadError,
            isNexusError: window.nexus.NexusError.isInstance(error),
          };
        }
      },
      new URL('models/no-such-model', inject('appUrl')).href,
    );
    expect(outcome).toMatchObject({ ofItsClass: true, ofModelLoadError: true, isNexusError: true });
    expect(outcome?.name).toMatch(/^Model\w*Error$/);
  });

  it('rejects a model that cannot call tools, naming every dtype it tried and why', async () => {
    const outcome = await page().evaluate(
      async (url) => {
        const attempts: { dtype: string; device: string; ok: boolean; detail: string }[] = [];
        try {
          await window.nexus.NexusChat.loadForTools({ url }, { onAttempt: (a) => attempts.push(a), verdicts: window.nexus.memoryVerdictStore() });
          return { attempts, error: undefined };
        } catch (error) {
          return { attempts, error: { name: (error as Error).name, message: (error as Error).message } };
        }
      },
      new URL('models/tiny-broken-q8', inject('appUrl')).href,
    );

    expect(outcome.error?.name).toBe('NoToolCallingDtypeError');
    expect(outcome.error?.message).toMatch(
      // The load error whole (issue 42): its own lines indented under the dtype, then the next dtype.
      /^No dtype of .*tiny-broken-q8 could call a tool on WASM\. Tried:\n {2}q8: could not be loaded: [^\n]*(?:\n {4}[^\n]*)*\n {2}q4: .*(does not call tools|reports something else)/,
    );
    expect(outcome.error?.message).toContain('Models below ~0.5B generally cannot pick a tool name from a list');
    expect(outcome.attempts.map((a) => [a.dtype, a.device, a.ok])).toEqual([
      ['q8', 'wasm', false],
      ['q4', 'wasm', false],
    ]);
  });

  it('keeps the first dtype that calls tools after a broken one, remembers the verdict, and skips the search after a reload', async () => {
    const url = new URL('models/tools-broken-q8', inject('appUrl')).href;
    const first = await page().evaluate(async (source) => {
      const attempts: { dtype: string; device: string; ok: boolean; detail: string; remembered?: boolean }[] = [];
      const chat = await window.nexus.NexusChat.loadForTools({ url: source }, { onAttempt: (a) => attempts.push(a) });
      const info = chat.info;
      const check = chat.toolCheck;
      await chat.dispose();
      return { attempts, info, check };
    }, url);
    expect(first.attempts.map((a) => [a.dtype, a.ok])).toEqual([
      ['q8', false],
      ['q4', true],
    ]);
    expect(first.attempts[0]?.detail).toMatch(/^could not be loaded/);
    expect(first.info).toMatchObject({ device: 'wasm', dtype: 'q4' });
    expect(first.check).toMatchObject({ ok: true, called: true, grounded: true, needed_forcing: false });

    await page().reload();
    await page().waitForFunction(() => document.body.dataset.ready === 'true');
    const second = await page().evaluate(async (source) => {
      const attempts: { dtype: string; ok: boolean; remembered?: boolean }[] = [];
      const chat = await window.nexus.NexusChat.loadForTools({ url: source }, { onAttempt: (a) => attempts.push(a) });
      const info = chat.info;
      await chat.dispose();
      return { attempts, info };
    }, url);
    expect(second.attempts).toEqual([expect.objectContaining({ dtype: 'q4', ok: true, remembered: true })]);
    expect(second.info.dtype).toBe('q4');
  });

  it("sends an answer's steps across the worker: onStepFinish gets the records chat() returns, events and history are derived from them, prepareStep is asked (issue 24)", async () => {
    const outcome = await page().evaluate(
      async (source) => {
        const nexus = window.nexus;
        const chat = await nexus.NexusChat.load({ url: source }, { dtype: 'q4' });
        const question = nexus.selfCheckQuestion(Math.random);
        const token = nexus.freshToken(Math.random);
        chat.tool(question.tool.name, question.tool.description, question.tool.parameters as never, (args: Record<string, unknown>) =>
          question.result(token, args),
        );
        const seen: unknown[] = [];
        const heard: string[] = [];
        for (const name of ['toolCall', 'round', 'raw'] as const) chat.on(name, () => heard.push(name));
        const asked: { round: number; steps: number; lastRole: string | undefined }[] = [];
        const answer = await chat.chat(question.question, {
          onStepFinish: (step) => seen.push(step),
          prepareStep: ({ round, steps, messages }) => {
            asked.push({ round, steps: steps.length, lastRole: messages.at(-1)?.role });
            return round === 1 ? { activeTools: [question.tool.name] } : undefined;
          },
        });
        const history = answer.messages;
        await chat.dispose();
        return { seen, steps: answer.steps, text: answer.text, replayed: nexus.answerFromSteps(answer.steps), token, heard, asked, history };
      },
      new URL('models/tiny-tools-qwen3', inject('appUrl')).href,
    );
    expect(outcome.seen).toEqual(outcome.steps);
    expect(outcome.steps.map((s) => s.kind)).toContain('call');
    expect(outcome.text).toContain(outcome.token);
    expect(outcome.replayed.text).toBe(outcome.text);
    // Events are the steps' projections, heard in the page although only steps and tokens crossed.
    expect(outcome.heard).toEqual(expect.arrayContaining(['round', 'raw', 'toolCall']));
    // prepareStep ran on the page for each tool round, with the steps so far and the conversation the round renders.
    expect(outcome.asked[0]).toMatchObject({ round: 1, lastRole: 'user' });
    expect(outcome.asked[1]).toMatchObject({ round: 2, lastRole: 'tool' });
    expect(outcome.asked[1]?.steps).toBeGreaterThan(outcome.asked[0]?.steps ?? 0);
    expect(outcome.steps).toContainEqual(expect.objectContaining({ kind: 'prepared', round: 1 }));
    // The conversation is the question, then the turns derived from the steps.
    expect(outcome.history.map((m) => m.role)).toEqual(['user', 'assistant', 'tool', 'assistant']);
    expect(outcome.history.at(-1)).toEqual({ role: 'assistant', content: outcome.text });
  });
});
