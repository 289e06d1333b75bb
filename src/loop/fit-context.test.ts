import { describe, expect, it } from 'vitest';
import { contextBudget } from '../engine/context-budget.ts';
import type { ChatMessage } from '../engine/engine.ts';
import { ScriptedEngine } from '../engine/scripted-engine.ts';
import { NexusChat } from '../nexus/index.ts';
import { ContextOverflowError, FULL_MEMORY, historyInView, SHORTENED_RESULT_CHARS, shortenResult, smallerView, viewCounts } from './fit-context.ts';
import { resultCharsFor } from './run-calls.ts';
import type { ChatReply, MemoryTrim } from './types.ts';

const turn = (n: number, result = 'sunny'): ChatMessage[] => [
  { role: 'user', content: `question ${n}` },
  { role: 'assistant', content: '', tool_calls: [{ id: `call_${n}`, type: 'function', function: { name: 'get_weather', arguments: {} } }] },
  { role: 'tool', content: result, tool_call_id: `call_${n}` },
  { role: 'assistant', content: `answer ${n}` },
];

describe("fitting a conversation into the model's memory", () => {
  it('shortens old tool results first, then drops the oldest half of the remaining blocks, each trim larger than the last', () => {
    const long = 'x'.repeat(5000);
    const history = [...turn(1, long), ...turn(2), ...turn(3), ...turn(4)];
    const first = smallerView(history, FULL_MEMORY);
    expect(first).toEqual({ from: 0, shortenBefore: 16 });
    expect(historyInView(history, first ?? FULL_MEMORY)[2]?.content).toBe(shortenResult(long));
    expect(viewCounts(history, first ?? FULL_MEMORY)).toEqual({ dropped: 0, shortened: 1 });
    // Nothing left to shorten: two of the four blocks go, a user message starts what remains.
    const second = smallerView(history, first ?? FULL_MEMORY);
    expect(second).toEqual({ from: 8, shortenBefore: 16 });
    expect(historyInView(history, second ?? FULL_MEMORY)[0]).toEqual({ role: 'user', content: 'question 3' });
    const third = smallerView(history, second ?? FULL_MEMORY);
    expect(third?.from).toBe(12);
    const fourth = smallerView(history, third ?? FULL_MEMORY);
    expect(fourth?.from).toBe(16);
    expect(historyInView(history, fourth ?? FULL_MEMORY)).toEqual([]);
    expect(smallerView(history, fourth ?? FULL_MEMORY)).toBeUndefined();
  });

  it('never cuts a block: a call is never seen without its result', () => {
    const history = [...turn(1), ...turn(2), ...turn(3)];
    for (let view: typeof FULL_MEMORY | undefined = FULL_MEMORY; view; view = smallerView(history, view)) {
      const seen = historyInView(history, view);
      expect(seen[0]?.role ?? 'user').toBe('user');
    }
  });

  it('shortens a result to its start with a note of what went; a short one stays as it is', () => {
    expect(shortenResult('short')).toBe('short');
    const cut = shortenResult('y'.repeat(1000));
    expect(cut.startsWith('y'.repeat(SHORTENED_RESULT_CHARS))).toBe(true);
    expect(cut).toContain(`[shortened to make room: ${SHORTENED_RESULT_CHARS} of 1000 characters]`);
  });

  it('leaves results of turns after the shortened part as they are: a view only grows', () => {
    const long = 'z'.repeat(2000);
    const history = [...turn(1, long), ...turn(2, long)];
    const view = { from: 0, shortenBefore: 4 };
    const seen = historyInView(history, view);
    expect(seen[2]?.content).toBe(shortenResult(long));
    expect(seen[6]?.content).toBe(long);
  });
});

describe('a long conversation in a small context (scripted engine, contexts of 2,048 and 700 tokens)', () => {
  const medium = contextBudget({ config: { max_position_embeddings: 2048 }, device: 'cpu', dtype: 'q4' });
  const small = contextBudget({ config: { max_position_embeddings: 700 }, device: 'cpu', dtype: 'q4' });
  const paragraph = (n: number) => `Question ${n}: ${'the quick brown fox jumps over the lazy dog '.repeat(6)}`;

  function setup(context = small) {
    const engine = new ScriptedEngine(
      [
        {
          when: (prompt) =>
            prompt.includes('"city": "Paris"') === false && /Weather in Paris\?<\|im_end\|>\n<\|im_start\|>assistant\n<think>\n\n<\/think>\n\n$/.test(prompt),
          output: '<tool_call>\n{"name": "get_weather", "arguments": {"city": "Paris"}}\n</tool_call>',
        },
        { output: 'Noted.', repeat: true },
      ],
      { context },
    );
    const chat = NexusChat.withEngine(engine).tool('get_weather', 'Get current weather for a city', { city: 'string' }, () => ({
      report: 'rain '.repeat(200),
    }));
    const trims: MemoryTrim[] = [];
    chat.on('memory', (trim) => trims.push(trim));
    return { engine, chat, trims };
  }

  it('keeps every prompt within the budget over 30 turns, drops old blocks rarely and keeps the cache in between, and stores every message', async () => {
    const { engine, chat, trims } = setup(medium);
    const budget = medium.tokens - 128;
    const perTurn: { prompt: number; cached: number; trimmed: boolean; called: boolean }[] = [];
    let conversation: Pick<ChatReply, 'messages' | 'memory'> | undefined;
    for (let n = 1; n <= 30; n++) {
      const before = engine.generations.length;
      const answer = await chat.chat(n === 3 ? 'Weather in Paris?' : paragraph(n), { strategy: 'inline', maxNewTokens: 128, ...conversation });
      conversation = answer;
      const generations = engine.generations.slice(before);
      perTurn.push({
        prompt: generations[0]?.result.promptTokens ?? 0,
        cached: generations[0]?.result.cachedTokens ?? 0,
        trimmed: answer.steps.some((s) => s.kind === 'memory'),
        called: answer.calls.length > 0,
      });
      for (const g of generations) expect(g.result.promptTokens).toBeLessThanOrEqual(budget);
    }
    // Every message is stored: 30 questions, one call with its result, 30 answers.
    const stored = conversation?.messages ?? [];
    expect(stored.filter((m) => m.role === 'user')).toHaveLength(30);
    expect(stored.filter((m) => m.role === 'tool')).toHaveLength(1);
    // The old weather report (about 800 tokens) was shortened before any block went; then old blocks went in halves.
    expect(trims[0]).toMatchObject({ dropped: 0, shortened: 1 });
    expect(trims.slice(1).every((t) => t.dropped > 0)).toBe(true);
    expect(trims.every((t) => t.promptTokens > t.budgetTokens)).toBe(true);
    const trimmedTurns = perTurn.filter((t) => t.trimmed).length;
    expect(trimmedTurns).toBeGreaterThan(1);
    expect(trimmedTurns).toBeLessThan(8);
    // Between trims the prompt extends the last one: most of it comes from the cache.
    // (After the turn with a call, Qwen3's template drops that turn's empty think block, so that one turn differs earlier.)
    const steady = perTurn.filter((t, i) => i > 0 && !t.trimmed && !perTurn[i - 1]?.trimmed && !perTurn[i - 1]?.called);
    expect(steady.length).toBeGreaterThan(15);
    for (const t of steady) expect(t.cached / t.prompt).toBeGreaterThan(0.5);
    const from = conversation?.memory.from ?? 0;
    expect(from).toBeGreaterThan(0);
    expect(stored[from]?.role).toBe('user');
  });

  it('refuses a message larger than the budget before any generation, saying the sizes', async () => {
    const { engine, chat } = setup();
    const first = await chat.chat(paragraph(1), { strategy: 'inline', maxNewTokens: 128 });
    const generated = engine.generations.length;
    const book = 'word '.repeat(2000);
    const failed = chat.chat(book, { strategy: 'inline', maxNewTokens: 128, messages: first.messages });
    await expect(failed).rejects.toBeInstanceOf(ContextOverflowError);
    await expect(chat.chat(book, { strategy: 'inline', maxNewTokens: 128, messages: first.messages })).rejects.toThrow(
      /takes [\d,]+ tokens, more than the 572 a prompt may take.*The message itself is [\d,]+ tokens: shorten it/,
    );
    expect(engine.generations).toHaveLength(generated);
  });

  it('refuses a maxNewTokens that leaves no room for a prompt, naming the largest that does', async () => {
    const { chat } = setup();
    await expect(chat.chat('hi', { maxNewTokens: 600 })).rejects.toThrow(
      /maxNewTokens 600 leaves 100 tokens for the prompt .* Use a maxNewTokens of at most 444\./,
    );
  });

  it("shortens the answer's own tool result when nothing older is left, rather than failing", async () => {
    const { engine, chat, trims } = setup(small);
    const answer = await chat.chat('Weather in Paris?', { strategy: 'inline', maxNewTokens: 128 });
    expect(answer.text).toBe('Noted.');
    expect(trims).toEqual([expect.objectContaining({ dropped: 0, shortened: 1 })]);
    expect(engine.generations.at(-1)?.prompt).toContain('[shortened to make room');
    // The result was first cut to its share of the budget (half of the 572 tokens a prompt may take, at
    // three characters a token); the handler's whole value stays on the call record.
    expect(answer.messages.find((m) => m.role === 'tool')?.content).toMatch(/\[Result cut: showing 858 of 1,013 characters\.\]$/);
    expect(answer.calls[0]?.value).toEqual({ report: 'rain '.repeat(200) });
  });

  it('cuts each result of a round to its share of half the prompt budget, never above maxResultChars', () => {
    expect(resultCharsFor({ maxResultChars: 4000, promptBudget: 572 }, 1)).toBe(858);
    expect(resultCharsFor({ maxResultChars: 4000, promptBudget: 572 }, 2)).toBe(429);
    expect(resultCharsFor({ maxResultChars: 4000, promptBudget: 40_000 }, 1)).toBe(4000);
    expect(resultCharsFor({ maxResultChars: 4000 }, 3)).toBe(4000);
    // Never below a few lines, however many calls share a tiny budget.
    expect(resultCharsFor({ maxResultChars: 4000, promptBudget: 300 }, 10)).toBe(192);
  });

  it('takes a memory view back with a stored conversation: the model sees from there on', async () => {
    const { engine, chat } = setup();
    const history: ChatMessage[] = [...turn(1), ...turn(2)];
    const reply = await chat.chat('Next?', { strategy: 'inline', maxNewTokens: 128, messages: history, memory: { from: 4, shortenBefore: 4 } });
    expect(engine.generations[0]?.prompt).not.toContain('question 1');
    expect(engine.generations[0]?.prompt).toContain('question 2');
    expect(reply.memory).toEqual({ from: 4, shortenBefore: 4 });
    // A view outside the conversation is kept inside it; none is the whole conversation.
    const clamped = await chat.chat('Next?', { strategy: 'inline', maxNewTokens: 128, messages: history, memory: { from: 99, shortenBefore: -3 } });
    expect(clamped.memory).toEqual({ from: 8, shortenBefore: 0 });
    const whole = await chat.chat('Next?', { strategy: 'inline', maxNewTokens: 128, messages: history });
    expect(whole.memory).toEqual(FULL_MEMORY);
  });
});
