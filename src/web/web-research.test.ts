import type { AddressInfo } from 'node:net';
import type { FastifyInstance } from 'fastify';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ScriptedEngine, type ScriptedOutput } from '../engine/scripted-engine.ts';
import { when } from '../testing/script-matchers.ts';
import { NexusChat } from '../nexus/index.ts';
import { createProxy } from '../proxy/server.ts';
import type { SearchBackend } from '../proxy/search-backend.ts';
import { SearchFailedError } from '../proxy/errors.ts';
import { CANNOT_BROWSE_INSTRUCTIONS, RESEARCH_INSTRUCTIONS } from './research-prompts.ts';
import { sourcesOfCalls, type WebActivity } from './web-tools.ts';
import { WebResearch } from './web-research.ts';
import { createServer } from 'node:http';

/** A search backend answering from a table, so the real proxy runs with no network at all. */
const backend: SearchBackend = {
  name: 'searxng',
  async search(query) {
    return {
      hits: [
        {
          title: `Rust jobs board (${query})`,
          url: 'https://jobs.example/rust',
          snippet: 'Senior Rust engineer, remote.',
          engine: 'duckduckgo',
          date: '2026-11-20',
        },
        { title: 'Rust careers', url: 'https://careers.example/rust', snippet: 'We are hiring.', engine: 'brave', date: null },
      ],
      answers: [],
      unresponsive: [],
    };
  },
};

async function proxyOn(budgets?: { searches?: number; pages?: number }): Promise<{ app: FastifyInstance; base: string }> {
  const app = createProxy({ backend, log: false, rateLimit: false, ...(budgets ? { budgets } : {}) });
  await app.listen({ host: '127.0.0.1', port: 0 });
  return { app, base: `http://127.0.0.1:${(app.server.address() as AddressInfo).port}/api` };
}

const searchCall = '<tool_call>\n{"name": "web_search", "arguments": {"query": "rust jobs", "queries": ["remote rust jobs"]}}\n</tool_call>';

function research(script: ScriptedOutput[], base: string) {
  const engine = new ScriptedEngine(script);
  const chat = NexusChat.withEngine(engine).tool('get_weather', 'Weather', { city: 'string' }, () => 'sunny');
  const activity: WebActivity[] = [];
  return { engine, chat, web: new WebResearch(chat, { baseUrl: base }), activity };
}

describe('research mode through the real proxy (loopback, fake search backend)', () => {
  let proxy: { app: FastifyInstance; base: string };
  beforeAll(async () => {
    proxy = await proxyOn();
  });
  afterAll(() => proxy?.app.close());

  it('reports the proxy as available', async () => {
    const { web } = research([], proxy.base);
    expect(await web.status()).toEqual({ available: true, backend: 'searxng', detail: 'Searching the web with searxng.' });
  });

  it('requires a search first, offers read_page once results are in, and returns the numbered sources', async () => {
    const { web, engine, chat, activity } = research(
      [
        { when: when.userAsked('Find senior Rust jobs'), output: searchCall },
        { when: when.promptContains('Rust jobs board'), output: 'Senior Rust roles are listed on the jobs board [1] and on a careers page [2].' },
      ],
      proxy.base,
    );
    const answer = await web.ask('Find senior Rust jobs', { onActivity: (a) => activity.push(a) });

    expect(answer.text).toBe('Senior Rust roles are listed on the jobs board [1] and on a careers page [2].');
    const sources = [
      { n: 1, url: 'https://jobs.example/rust', title: 'Rust jobs board (rust jobs)', date: '2026-11-20' },
      { n: 2, url: 'https://careers.example/rust', title: 'Rust careers' },
    ];
    expect(answer.sources).toEqual(sources);
    expect(activity).toEqual([{ kind: 'search', queries: ['rust jobs', 'remote rust jobs'], ok: true, results: 2 }]);
    // The same activity and the sources go with the call in the answer's steps (issues 43, 55): the page reads
    // them there, and the sources need no request more.
    expect(answer.calls.map((call) => call.details)).toEqual([{ web: activity[0], sources }]);
    expect(sourcesOfCalls(answer.calls)).toEqual(sources);
    const [first, second] = engine.generations;
    expect(first?.prompt).toContain(RESEARCH_INSTRUCTIONS);
    expect(first?.prompt).toContain('"name": "web_search"');
    expect(first?.prompt).not.toContain('"name": "read_page"');
    // The user's own tools stay on offer in research mode (issue 13: a research question may need them too).
    expect(first?.prompt).toContain('"name": "get_weather"');
    expect(second?.prompt).toContain('"name": "read_page"');
    expect(second?.prompt).toContain('Searches used 2 of 16; pages read 0 of 12');
    // The user's tools are back afterwards, and the web tools are gone.
    expect(chat.tools.names).toEqual(['get_weather']);
  });

  it('offers read_page from the first round when an earlier message of the conversation it is given named a link', async () => {
    const { web, engine } = research(
      [
        { when: when.userAsked('Summarise that page'), output: searchCall },
        { when: when.promptContains('Rust jobs board'), output: 'It lists Rust jobs [1].' },
      ],
      proxy.base,
    );
    const messages = [
      { role: 'user' as const, content: 'Keep https://jobs.example/rust in mind.' },
      { role: 'assistant' as const, content: 'Noted.' },
    ];
    await web.ask('Summarise that page', { messages });
    expect(engine.generations[0]?.prompt).toContain('"name": "read_page"');
    expect(engine.generations[0]?.prompt).toContain('Keep https://jobs.example/rust in mind.');
  });

  it("never touches the chat's own tools: a tools.js reload while the research runs is kept (issue 14)", async () => {
    const { web, chat } = research(
      [
        { when: when.userAsked('Find senior Rust jobs'), output: searchCall },
        { when: when.promptContains('Rust jobs board'), output: 'Listed on the jobs board [1].' },
      ],
      proxy.base,
    );
    // The page reloads tools.js mid-answer: the old tool goes, a new one comes.
    chat.on('toolCall', () => {
      chat.tools.unregister('get_weather');
      chat.tool('get_time', 'Current time', { zone: 'string' }, () => '14:00');
    });
    expect(chat.tools.names).toEqual(['get_weather']);
    await web.ask('Find senior Rust jobs');
    expect(chat.tools.names).toEqual(['get_time']);
  });

  it('refuses to read an address this answer has not seen, and tells the model it did not read it', async () => {
    const { web, activity } = research(
      [
        {
          when: when.userAsked('Read https://evil.example/x please'),
          output: '<tool_call>\n{"name": "read_page", "arguments": {"url": "https://attacker.example/steal"}}\n</tool_call>',
        },
        { when: when.promptContains('YOU DID NOT READ THAT PAGE'), output: 'I could not read that page.' },
      ],
      proxy.base,
    );
    const answer = await web.ask('Read https://evil.example/x please', { onActivity: (a) => activity.push(a) });
    expect(answer.text).toBe('I could not read that page.');
    expect(activity[0]).toMatchObject({ kind: 'read', url: 'https://attacker.example/steal', ok: false });
  });
});

describe('research budgets', () => {
  let proxy: { app: FastifyInstance; base: string };
  beforeAll(async () => {
    proxy = await proxyOn({ searches: 1 });
  });
  afterAll(() => proxy?.app.close());

  it('ends the tool rounds when the search budget is spent, and asks for the answer with the sources to cite', async () => {
    const { web, engine } = research(
      [
        { when: when.userAsked('Rust jobs?'), output: searchCall },
        { when: when.promptContains('Sources found, with the numbers to cite:\n[1] Rust jobs board'), output: 'See the jobs board [1].' },
      ],
      proxy.base,
    );
    const answer = await web.ask('Rust jobs?');
    expect(answer.text).toBe('See the jobs board [1].');
    expect(answer.metrics).toMatchObject({ rounds: 1, answerRounds: 1 });
    expect(engine.generations.at(-1)?.prompt).toContain('Write the answer now, with headings and a citation [n] for each claim');
  });
});

describe('research mode with a proxy whose search engine is down (issue 30, P2.2)', () => {
  it("says you're offline when the device is, not that a server should be started (issue 44)", async () => {
    // A port nothing listens on: the fetch fails as it does with the network cut.
    const closed = createServer();
    await new Promise<void>((done) => closed.listen(0, '127.0.0.1', done));
    const port = (closed.address() as AddressInfo).port;
    await new Promise<void>((done) => closed.close(() => done()));
    const chat = NexusChat.withEngine(new ScriptedEngine([]));
    const offline = await new WebResearch(chat, { baseUrl: `http://127.0.0.1:${port}/api`, online: () => false }).status();
    expect(offline).toEqual({
      available: false,
      detail: "You're offline: web search needs a connection. Answers use the model alone until you're back online.",
    });
    const online = await new WebResearch(chat, { baseUrl: `http://127.0.0.1:${port}/api`, online: () => true }).status();
    expect(online.detail).toMatch(/the server that runs it did not answer .* It comes with npm start/);
  });

  it('says so before the user asks, with the reason, and the model is told it cannot browse', async () => {
    const down = createProxy({
      backend: { name: 'searxng', search: () => Promise.reject(new SearchFailedError('the search engine could not be reached')) },
      log: false,
      rateLimit: false,
    });
    await down.listen({ host: '127.0.0.1', port: 0 });
    try {
      const { web, engine } = research(
        [{ when: () => true, output: 'I could not search just now.' }],
        `http://127.0.0.1:${(down.server.address() as AddressInfo).port}/api`,
      );
      const status = await web.status();
      expect(status).toMatchObject({ available: false, backend: 'searxng' });
      expect(status.detail).toBe(
        'Web search is not working right now: the search engine could not be reached. Try the switch again later; answers use the model alone until then.',
      );
      expect(status.detail).not.toMatch(/SEARXNG|_URL/);
      await web.ask('Latest Rust release?');
      expect(engine.generations[0]?.prompt).toContain(CANNOT_BROWSE_INSTRUCTIONS);
    } finally {
      await down.close();
    }
  });
});

describe('research mode without a proxy', () => {
  it('tells the model honestly that it cannot browse, and offers no tools', async () => {
    const { web, engine } = research([{ when: () => true, output: 'I could not search the web, but from memory: …' }], 'http://127.0.0.1:9/api');
    const status = await web.status();
    expect(status.available).toBe(false);
    expect(status.detail).toMatch(
      /^Web search is not available: the server that runs it did not answer \(The web proxy at http:\/\/127\.0\.0\.1:9\/api could not be reached/,
    );
    expect(status.detail).toContain('answers use the model alone until it is back');
    const answer = await web.ask('Latest Rust release?');
    expect(answer.sources).toEqual([]);
    expect(engine.generations[0]?.prompt).toContain(CANNOT_BROWSE_INSTRUCTIONS);
    expect(engine.generations[0]?.prompt).not.toContain('# Tools');
  });
});
