import { describe, expect, it } from 'vitest';
import { ScriptedEngine } from '../engine/scripted-engine.ts';
import { when } from '../testing/script-matchers.ts';
import { DocumentIndex } from '../tools/document-index.ts';
import { ToolRegistry } from '../tools/tool-registry.ts';
import { NexusChat } from './nexus-chat.ts';

const filler = (topic: string) => Array.from({ length: 60 }, (_, i) => `Paragraph ${i} of the ${topic} chapter, about nothing in particular.`).join('\n\n');
const handbook = [
  '# Staff handbook',
  filler('welcome'),
  '## Holidays',
  'Every employee has 27 days of paid holiday a year, plus public holidays.',
  filler('closing'),
].join('\n\n');

function documents(): DocumentIndex {
  const index = new DocumentIndex();
  index.add({ name: 'handbook.md', text: handbook });
  return index;
}

describe('an answer over documents (ChatOptions.documents)', () => {
  it('searches them with the question before the model writes, so the passage is in the first prompt, numbered to cite', async () => {
    const engine = new ScriptedEngine([{ when: when.promptContains('27 days of paid holiday'), output: 'You get 27 days [1].' }]);
    const chat = NexusChat.withEngine(engine);
    const reply = await chat.chat('How many holiday days do I get?', { documents: documents() });
    expect(reply.text).toBe('You get 27 days [1].');
    expect(reply.calls).toMatchObject([{ name: 'search_attachments', source: 'given', status: 'ok', arguments: { query: 'How many holiday days do I get?' } }]);
    expect(reply.calls[0]?.details?.sources).toEqual(
      expect.arrayContaining([expect.objectContaining({ n: 1, title: expect.stringMatching(/^handbook\.md, lines \d+–\d+$/) })]),
    );
    // Offered too, for a follow-up search the model writes itself.
    expect(engine.generations[0]?.prompt).toContain('"name": "search_attachments"');
    // The whole handbook never entered the prompt: only its passages did.
    expect(engine.generations[0]?.prompt).not.toContain('Paragraph 59 of the closing chapter');
  });

  it("offers the search beside a toolkit's tools and a named tool list, as research gives them", async () => {
    const engine = new ScriptedEngine([{ when: when.promptContains('27 days'), output: 'Twenty-seven [1].' }]);
    const chat = NexusChat.withEngine(engine).tool('get_time', 'The time now', {}, () => '12:00');
    const own = new ToolRegistry().tool('web_search', 'Search the web', { query: 'string' }, () => 'nothing');
    await chat.chat('Holidays?', { documents: documents(), toolkit: { tools: own, withChatTools: true }, tools: ['web_search'] });
    const prompt = engine.generations[0]?.prompt ?? '';
    expect(prompt).toContain('"name": "web_search"');
    expect(prompt).toContain('"name": "search_attachments"');
    expect(prompt).not.toContain('"name": "get_time"');
  });

  it('changes nothing without documents or with an empty index; with searchDocumentsFirst false the search is only offered', async () => {
    for (const options of [{}, { documents: new DocumentIndex() }]) {
      const engine = new ScriptedEngine([{ when: when.userAsked('Hello?'), output: 'Hi.' }]);
      const reply = await NexusChat.withEngine(engine).chat('Hello?', options);
      expect(reply.calls).toEqual([]);
      expect(engine.generations[0]?.prompt).not.toContain('search_attachments');
    }
    const engine = new ScriptedEngine([
      // The loop's yes/no check before forcing a call: nothing to look up.
      { when: when.gate(), output: 'No' },
      { when: when.userAsked('Hello?'), output: 'Hi.' },
    ]);
    const reply = await NexusChat.withEngine(engine).chat('Hello?', { documents: documents(), searchDocumentsFirst: false });
    expect(reply.calls).toEqual([]);
    expect(engine.generations[0]?.prompt).toContain('"name": "search_attachments"');
  });
});
