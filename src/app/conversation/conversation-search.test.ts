import { describe, expect, it } from 'vitest';
import type { Conversation } from '../state/app-state.ts';
import { ConversationSearch } from './conversation-search.ts';

function conversation(id: string, title: string, ...texts: string[]): Conversation {
  const at = '2026-12-01T00:00:00Z';
  return {
    id,
    title,
    createdAt: at,
    updatedAt: at,
    turns: texts.map((text, i) => ({ id: `${id}-${i}`, role: i % 2 ? 'assistant' : 'user', text }) as Conversation['turns'][number]),
  };
}

const rain = conversation('a', 'Weather', 'Tell me about rain.', 'Rain falls from clouds.');
const snow = conversation('b', 'Snow', 'What is snow?', 'Frozen rain, roughly.');
const empty = conversation('open', 'New conversation');
const summaries = [rain, snow].map(({ id, title, updatedAt }) => ({ id, title, updatedAt }));

function searchOver(saved: Conversation[]) {
  const reads: string[] = [];
  const search = new ConversationSearch(async (id) => {
    reads.push(id);
    return saved.find((c) => c.id === id);
  });
  return { search, reads };
}

describe('ConversationSearch', () => {
  it('finds titles and text, every word, ignoring case, words by their start', async () => {
    const { search } = searchOver([rain, snow]);
    const ids = async (q: string) => (await search.search(q, summaries, empty)).map((c) => c.id);
    expect(await ids('frozen')).toEqual(['b']);
    expect(await ids('RAIN clouds')).toEqual(['a']);
    expect(await ids('rain')).toEqual(['a', 'b']);
    expect(await ids('cloud')).toEqual(['a']);
    expect(await ids('weather snow')).toEqual([]);
  });

  it('reads each saved conversation once, however many searches follow', async () => {
    const { search, reads } = searchOver([rain, snow]);
    await search.search('rain', summaries, empty);
    await search.search('snow', summaries, empty);
    await search.search('clouds', summaries, empty);
    expect(reads.sort()).toEqual(['a', 'b']);
  });

  it('follows changes it is told of: a rename, new text in the open conversation, a deletion', async () => {
    const { search } = searchOver([rain, snow]);
    await search.search('rain', summaries, empty);
    search.update({ ...snow, title: 'Blizzard notes' });
    expect((await search.search('blizzard', summaries, empty)).map((c) => c.id)).toEqual(['b']);
    const open = { ...rain, turns: [...rain.turns, { ...rain.turns[0]!, id: 'a-9', text: 'And hail?' }] };
    expect((await search.search('hail', summaries, open)).map((c) => c.id)).toEqual(['a']);
    search.remove('b');
    expect((await search.search('blizzard', summaries, empty)).map((c) => c.id)).toEqual([]);
  });

  it('still finds a conversation that cannot be read, by its title', async () => {
    const { search } = searchOver([rain]);
    expect((await search.search('snow', summaries, empty)).map((c) => c.id)).toEqual(['b']);
  });
});
