import { afterEach, beforeAll, describe, expect, it } from 'vitest';
import { FIXTURE_MODELS_DIR, TINY_QWEN3, prepareFixtureModels } from '../../tests/fixtures/prepare-models.ts';
import { MANY_TOOLS, TOOL_GROUPS } from '../../tests/fixtures/many-tools/many-tools.ts';
import { NexusChat } from '../nexus/index.ts';
import { memoryToolVectorStore } from './tool-vectors.ts';
import { groupChoices } from './tool-groups.ts';
import { TIMEOUTS } from '../../tests/timeouts.ts';

/** The fixture sentence encoder (a word-vector model with a small thesaurus; see build-tiny-embedder.py). */
const TINY_EMBEDDER = { source: { path: `${FIXTURE_MODELS_DIR}tiny-embed-bert` }, dtype: 'q8' as const };

function register(chat: NexusChat, groups = false): void {
  for (const schema of MANY_TOOLS) {
    const { name, description, parameters } = schema.function;
    chat.tool(name, description, parameters as never, () => ({ from: name }), groups ? { group: TOOL_GROUPS[name] } : {});
  }
}

describe('many tools on the real engine (tiny Qwen3 fixture, real tokenizer and template)', () => {
  const chats: NexusChat[] = [];
  /** A chat over the tiny model with these selection settings and the sixty tools (`grouped`: with their groups; `none`: none yet). */
  const load = async (selection: Partial<NexusChat['toolSelection']>, tools: 'plain' | 'grouped' | 'none' = 'plain') => {
    const chat = await NexusChat.load({ path: `${FIXTURE_MODELS_DIR}${TINY_QWEN3}` }, { toolVectors: store, toolSelection: selection });
    chats.push(chat);
    if (tools !== 'none') register(chat, tools === 'grouped');
    return chat;
  };
  const store = memoryToolVectorStore();
  beforeAll(() => {
    prepareFixtureModels();
  });
  afterEach(async () => {
    await Promise.all(chats.splice(0).map((c) => c.dispose()));
  });

  // Prefills 4,860 tokens on the real engine: seconds alone, more beside the other test files.
  it('prompts with at least 5× fewer tokens per generation with 60 tools selected than with all offered', { timeout: TIMEOUTS.modelTest }, async () => {
    const chat = await load({ semantic: false, askGroup: false });
    const tokens: number[] = [];
    for (const threshold of [0, 12]) {
      const { metrics } = await chat.chat('Turn off the lights in the bedroom', {
        strategy: 'inline',
        maxRounds: 1,
        maxNewTokens: 4,
        toolSelection: { threshold },
      });
      tokens.push(metrics.promptTokens / Math.max(1, metrics.generations));
    }
    const [all, selected] = tokens as [number, number];
    console.log(
      `fixture model, 60 tools: prompt tokens per generation all ${all.toFixed(0)}, selected ${selected.toFixed(0)} (${(all / selected).toFixed(1)}×)`,
    );
    expect(all / selected).toBeGreaterThanOrEqual(5);
  });

  it('loads the sentence encoder beside the chat model on first need, ranks with it, and embeds the tools once per store', async () => {
    const chat = await load({ semantic: TINY_EMBEDDER, askGroup: false });
    const states: string[] = [];
    chat.on('toolSearch', (status) => states.push(status.state));
    expect(chat.toolSearch.state).toBe('off');
    await chat.chat("It's too dark in the kitchen", { strategy: 'inline', maxRounds: 1, maxNewTokens: 4 });
    expect(states).toEqual(expect.arrayContaining(['idle', 'loading', 'ready']));
    expect(chat.toolSearch).toMatchObject({ state: 'ready', info: { dimensions: 48, dtype: 'q8' }, vectors: { computed: 60, reused: 0 } });
    expect(chat.toolSearch.info?.bytes).toBeGreaterThan(0);
    // "dark" shares no word with set_lights; the encoder's thesaurus puts them together.
    expect(chat.lastToolSelection?.reasons.set_lights).toMatch(/semantic|combined/);

    const again = await load({ semantic: TINY_EMBEDDER });
    await again.chat('Is it going to rain tomorrow in Lisbon?', { strategy: 'inline', maxRounds: 1, maxNewTokens: 4 });
    expect(again.toolSearch.vectors).toEqual({ computed: 0, reused: 60 });
  });

  it('prepareTools() loads the encoder and embeds the tools before the first answer', async () => {
    const chat = await load({ semantic: TINY_EMBEDDER, askGroup: false }, 'none');
    chat.tool('only_one', 'A single tool', {}, () => 1);
    expect((await chat.prepareTools()).state).toBe('off'); // one tool: nothing to select
    register(chat);
    const status = await chat.prepareTools();
    expect(status).toMatchObject({ state: 'ready', info: { dimensions: 48 } });
    const before = { ...status.vectors };
    await chat.chat('Is it going to rain tomorrow in Lisbon?', { strategy: 'inline', maxRounds: 1, maxNewTokens: 4 });
    expect(chat.toolSearch.vectors).toEqual(before);
  });

  it('ranks by words alone, and says why, when the tool-search model cannot load', async () => {
    const chat = await load({ semantic: { source: { path: `${FIXTURE_MODELS_DIR}no-such-embedder` } }, askGroup: false });
    const answer = await chat.chat('Turn off the lights in the bedroom', { strategy: 'inline', maxRounds: 1, maxNewTokens: 4 });
    expect(answer).toBeDefined();
    expect(chat.toolSearch.state).toBe('failed');
    expect(chat.toolSearch.error).toMatch(/tool-search model .*no-such-embedder.* could not be loaded.*words alone/);
    expect(chat.lastToolSelection?.reasons.set_lights).toBe('lexical');
  });

  it('asks the chat model for a group under a constraint when the rankings are unsure: the answer is always one of the groups or none', async () => {
    const chat = await load({ semantic: false }, 'grouped');
    await chat.chat('The floor is covered in crumbs', { strategy: 'inline', maxRounds: 1, maxNewTokens: 4 });
    const group = chat.lastToolSelection?.group;
    expect(group).toBeDefined();
    expect(groupChoices([...new Set(Object.values(TOOL_GROUPS))].map((name) => ({ name, tools: [] })))).toContain(group?.chosen);
    expect(group?.newTokens).toBeLessThanOrEqual(6);
    expect(group?.promptTokens).toBeGreaterThan(0);
  });
});
