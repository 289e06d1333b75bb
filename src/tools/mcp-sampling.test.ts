import { describe, expect, it } from 'vitest';
import { contextBudget } from '../engine/context-budget.ts';
import { ScriptedEngine } from '../engine/scripted-engine.ts';
import { ContextOverflowError } from '../loop/fit-context.ts';
import { NexusChat } from '../nexus/index.ts';
import { answerSampling, MAX_SAMPLING_TOKENS, McpSamplingError, type SamplingTurn } from './mcp-sampling.ts';

const ask = (text: string, more: Record<string, unknown> = {}) => ({
  messages: [{ role: 'user' as const, content: { type: 'text', text } }],
  maxTokens: 40,
  ...more,
});

describe('MCP sampling answered by the model in the tab', () => {
  it('gives the turn the messages, system prompt, a capped token budget and the temperature; a full budget is maxTokens', async () => {
    const turns: SamplingTurn[] = [];
    const answer = await answerSampling(
      {
        messages: [
          { role: 'user', content: { type: 'text', text: 'Describe this.' } },
          { role: 'assistant', content: { type: 'text', text: 'What is it?' } },
          {
            role: 'user',
            content: [
              { type: 'image', data: 'AAAA', mimeType: 'image/png' },
              { type: 'text', text: 'This chart.' },
            ],
          },
        ],
        systemPrompt: 'Be brief.',
        maxTokens: 100_000,
        temperature: 0.7,
      },
      async (turn) => {
        turns.push(turn);
        return { text: 'A rising line.', outputTokens: turn.maxNewTokens };
      },
      'tiny-qwen3',
    );
    expect(turns[0]).toMatchObject({
      messages: [
        { role: 'user', content: 'Describe this.' },
        { role: 'assistant', content: 'What is it?' },
        { role: 'user', content: '[an image (image/png): not shown, this model reads text]\nThis chart.' },
      ],
      instructions: 'Be brief.',
      maxNewTokens: MAX_SAMPLING_TOKENS,
      temperature: 0.7,
    });
    expect(answer).toMatchObject({ role: 'assistant', content: { type: 'text', text: 'A rising line.' }, model: 'tiny-qwen3', stopReason: 'maxTokens' });
    expect(answer.report.declined).toEqual([`maxTokens 100000: capped at ${MAX_SAMPLING_TOKENS}, the most one answer of this model takes`]);
  });

  it('stops generating at the first stop sequence and cuts the text there', async () => {
    let stoppedEarly = false;
    const answer = await answerSampling(
      ask('Count.', { stopSequences: ['4', '\n\n'] }),
      async (turn) => {
        for (const token of ['1, ', '2, ', '3, ', '4, ', '5']) {
          if (turn.signal.aborted) {
            stoppedEarly = true;
            throw turn.signal.reason;
          }
          turn.onToken(token);
        }
        return { text: '1, 2, 3, 4, 5', outputTokens: 5 };
      },
      'm',
    );
    expect(stoppedEarly).toBe(true);
    expect(answer).toMatchObject({ content: { text: '1, 2, 3,' }, stopReason: 'stopSequence' });
  });

  it('refuses a request with no messages or a role MCP does not have, naming the roles', async () => {
    const turn = async () => ({ text: '', outputTokens: 0 });
    await expect(answerSampling({ messages: [], maxTokens: 10 }, turn, 'm')).rejects.toThrow(McpSamplingError);
    await expect(answerSampling({ messages: [{ role: 'system' as 'user', content: { type: 'text', text: 'x' } }], maxTokens: 10 }, turn, 'm')).rejects.toThrow(
      /role "system"; MCP's roles are "user" and "assistant"/,
    );
  });

  it('a caller that stops it gets the abort, not a cut answer', async () => {
    const stop = new AbortController();
    const pending = answerSampling(
      ask('Go on.', { stopSequences: ['zzz'] }),
      (turn) => new Promise((_, reject) => turn.signal.addEventListener('abort', () => reject(turn.signal.reason))),
      'm',
      stop.signal,
    );
    stop.abort(new DOMException('stopped', 'AbortError'));
    await expect(pending).rejects.toMatchObject({ name: 'AbortError' });
  });

  it('a request past the context budget fails with the sizes, and the chat answers afterwards', async () => {
    const small = contextBudget({ config: { max_position_embeddings: 1024 }, device: 'wasm', dtype: 'q4' });
    const engine = new ScriptedEngine([{ output: 'Fine.', repeat: true }], { context: small });
    const chat = NexusChat.withEngine(engine);
    await expect(chat.sampleForMcp(ask('word '.repeat(3000)))).rejects.toBeInstanceOf(ContextOverflowError);
    expect(engine.generations).toHaveLength(0);
    expect(await chat.sampleForMcp(ask('Short.'))).toMatchObject({ content: { text: 'Fine.' }, stopReason: 'endTurn', model: 'scripted' });
    expect((await chat.chat('Hello')).text).toBe('Fine.');
  });
});
