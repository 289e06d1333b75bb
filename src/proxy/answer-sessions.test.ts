import { describe, expect, it } from 'vitest';
import { AnswerSessions } from './answer-sessions.ts';

describe('AnswerSessions', () => {
  it('creates answers with random ids and the addresses of the user message already seen', async () => {
    const sessions = new AnswerSessions();
    const a = await sessions.create('Summarise https://Docs.Example.org/guide and www.news.example/today please');
    const b = await sessions.create('hi');
    expect(a.id).toMatch(/^[A-Za-z0-9_-]{22}$/);
    expect(a.id).not.toBe(b.id);
    expect(a.hasSeen('https://docs.example.org/guide')).toBe(true);
    expect(a.hasSeen('https://www.news.example/today')).toBe(true);
    expect(a.hasSeen('https://docs.example.org/')).toBe(false);
    expect(a.hasSeen('https://news.example/today')).toBe(false);
    expect(a.hasSeenHost('docs.example.org')).toBe(true);
    expect(b.hasSeen('https://docs.example.org/guide')).toBe(false);
    expect((await sessions.get(a.id)).id).toBe(a.id);
  });

  it('a bare host the user wrote is its home page', async () => {
    const session = await new AnswerSessions().create('what is new on example.com?');
    expect(session.hasSeen('https://example.com/')).toBe(true);
    expect(session.hasSeen('https://example.com/news')).toBe(false);
  });

  it('rule 1: seen addresses are compared normalised: scheme and host case, default port, trailing slash, fragment', async () => {
    const session = await new AnswerSessions().create('');
    session.markSeen('https://Example.COM./Docs/?page=2#intro');
    for (const same of ['https://example.com/Docs?page=2', 'HTTPS://EXAMPLE.com:443/Docs/?page=2', 'http://example.com/Docs?page=2#other']) {
      expect(session.hasSeen(same), same).toBe(true);
    }
    for (const other of [
      'https://example.com/docs?page=2',
      'https://example.com/Docs?page=3',
      'https://example.com/Docs?page=2&q=secret',
      'https://example.com/Docs',
      'https://evil.example.com/Docs?page=2',
      'https://example.com.evil.net/Docs?page=2',
      'https://example.com:8443/Docs?page=2',
    ]) {
      expect(session.hasSeen(other), other).toBe(false);
    }
    expect(session.hasSeenHost('EXAMPLE.com')).toBe(true);
  });

  it('defaults to 16 searches and 12 pages', async () => {
    expect((await new AnswerSessions().create('')).budgetLine()).toBe('Searches used 0 of 16; pages read 0 of 12');
  });
});
