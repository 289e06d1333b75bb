import { describe, expect, it } from 'vitest';
import type { Conversation } from './app-state.ts';
import { ConversationFileError, conversationFromJson, conversationToJson, conversationToMarkdown, readConversationFile } from './conversation-files.ts';

const conversation: Conversation = {
  id: 'c1',
  title: 'Weather in Chennai',
  createdAt: '2026-11-30T10:00:00.000Z',
  updatedAt: '2026-11-30T10:01:00.000Z',
  turns: [
    { id: 'u1', role: 'user', text: 'Weather in Chennai?', state: 'done', historyIndex: 0 },
    {
      id: 'a1', role: 'assistant', text: 'It is **31 °C**.', state: 'done',
      activity: [{ kind: 'call', id: 'call_1', name: 'get_weather', arguments: { city: 'Chennai' }, source: 'inline', status: 'ok', result: '{"temperature_c":31}' }],
    },
    { id: 'u2', role: 'user', text: 'And tomorrow?', state: 'done', historyIndex: 4 },
    { id: 'a2', role: 'assistant', text: 'Probably', state: 'stopped', note: 'Stopped.' },
  ],
  history: [
    { role: 'user', content: 'Weather in Chennai?' },
    { role: 'assistant', content: '', tool_calls: [{ id: 'call_1', type: 'function', function: { name: 'get_weather', arguments: '{"city":"Chennai"}' } }] },
    { role: 'tool', tool_call_id: 'call_1', content: '{"temperature_c":31}' },
    { role: 'assistant', content: 'It is **31 °C**.' },
    { role: 'user', content: 'And tomorrow?' },
    { role: 'assistant', content: 'Probably' },
  ] as Conversation['history'],
};

let n = 0;
const newId = () => `id${++n}`;

describe('conversation files', () => {
  it('round-trips through JSON exactly: what was shown and what the model remembers', () => {
    const file = conversationToJson(conversation);
    expect(file).toMatchObject({ filename: 'weather-in-chennai.json', type: 'application/json' });
    expect(conversationFromJson(file.text)).toEqual(conversation);
  });

  it('writes Markdown a person reads, and reads its words back with a history rebuilt from them', () => {
    const file = conversationToMarkdown(conversation);
    expect(file.filename).toBe('weather-in-chennai.md');
    expect(file.text).toBe(
      '# Weather in Chennai\n\n_2026-11-30 · Nexus Chat_\n\n## You\n\nWeather in Chennai?\n\n## Nexus\n\nIt is **31 °C**.\n\n> used `get_weather({"city":"Chennai"})`\n\n' +
        '## You\n\nAnd tomorrow?\n\n## Nexus\n\nProbably\n\n> _Stopped._\n',
    );
    const back = readConversationFile('chat.md', file.text, newId);
    expect(back.title).toBe('Weather in Chennai');
    expect(back.turns.map((t) => [t.role, t.text])).toEqual([['user', 'Weather in Chennai?'], ['assistant', 'It is **31 °C**.'], ['user', 'And tomorrow?'], ['assistant', 'Probably']]);
    expect(back.history).toEqual([
      { role: 'user', content: 'Weather in Chennai?' },
      { role: 'assistant', content: 'It is **31 °C**.' },
      { role: 'user', content: 'And tomorrow?' },
      { role: 'assistant', content: 'Probably' },
    ]);
    expect(back.turns[2]?.historyIndex).toBe(2);
  });

  it('refuses what is not a conversation, saying what it is and what to import instead', () => {
    expect(() => readConversationFile('x.json', 'not json', newId)).toThrow(ConversationFileError);
    expect(() => readConversationFile('x.json', '{"a":1}', newId)).toThrow(/not a Nexus Chat conversation export/);
    expect(() => readConversationFile('x.json', JSON.stringify({ format: 'nexus-chat/conversation', conversation: { turns: [{}], history: [] } }), newId)).toThrow(/no readable turns/);
    expect(() => readConversationFile('notes.md', '# Notes\n\nNothing here.', newId)).toThrow(/no "## You" section/);
  });

  it('never imports an answer as still running', () => {
    const running = { ...conversation, turns: [...conversation.turns.slice(0, 3), { id: 'a2', role: 'assistant' as const, text: 'Prob', state: 'streaming' as const }] };
    expect(conversationFromJson(conversationToJson(running).text).turns.at(-1)?.state).toBe('stopped');
  });
});
