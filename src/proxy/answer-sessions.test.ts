import { describe, expect, it } from 'vitest';
import { AnswerSessions } from './answer-sessions.ts';
import { AnswerNotFoundError } from './errors.ts';

describe('AnswerSessions', () => {
  it('creates answers with random ids and the addresses of the user message already seen', () => {
    const sessions = new AnswerSessions();
    const a = sessions.create('Summarise https://Docs.Example.org/guide and www.news.example/today please');
    const b = sessions.create('hi');
    expect(a.id).toMatch(/^[A-Za-z0-9_-]{22}$/);
    expect(a.id).not.toBe(b.id);
    expect(a.hasSeen('https://docs.example.org/guide')).toBe(true);
    expect(a.hasSeen('https://www.news.example/today')).toBe(true);
    expect(a.hasSeen('https://docs.example.org/')).toBe(false);
    expect(a.hasSeen('https://news.example/today')).toBe(false);
    expect(a.hasSeenHost('docs.example.org')).toBe(true);
    expect(b.hasSeen('https://docs.example.org/guide')).toBe(false);
    expect(sessions.get(a.id)).toBe(a);
  });

  it('a bare host the user wrote is its home page', () => {
    const session = new AnswerSessions().create('what is new on example.com?');
    expect(session.hasSeen('https://example.com/')).toBe(true);
    expect(session.hasSeen('https://example.com/news')).toBe(false);
  });

  it('rule 1: seen addresses are compared normalised: scheme and host case, default port, trailing slash, fragment', () => {
    const session = new AnswerSessions().create('');
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

  it('bounds the seen addresses of one answer', () => {
    const session = new AnswerSessions({ maxSeenAddresses: 3 }).create('');
    for (const host of ['a.example', 'b.example', 'c.example', 'd.example']) session.markSeen(`https://${host}/`);
    expect(session.seenCount).toBe(3);
    expect(session.hasSeen('https://d.example/')).toBe(false);
  });

  it('an unknown id is AnswerNotFoundError', () => {
    expect(() => new AnswerSessions().get('nope-nope-nope-nope')).toThrow(AnswerNotFoundError);
  });

  it('expires an answer after an idle hour; use keeps it alive', () => {
    let now = 0;
    const sessions = new AnswerSessions({ now: () => now });
    const a = sessions.create('');
    const b = sessions.create('');
    now = 59 * 60 * 1000;
    sessions.get(a.id);
    now = 61 * 60 * 1000;
    expect(sessions.get(a.id)).toBe(a);
    expect(() => sessions.get(b.id)).toThrow(AnswerNotFoundError);
  });

  it('keeps at most maxSessions answers, dropping the least recently used', () => {
    const sessions = new AnswerSessions({ maxSessions: 2 });
    const a = sessions.create('');
    const b = sessions.create('');
    sessions.get(a.id);
    const c = sessions.create('');
    expect(sessions.size).toBe(2);
    expect(() => sessions.get(b.id)).toThrow(AnswerNotFoundError);
    expect(sessions.get(a.id)).toBe(a);
    expect(sessions.get(c.id)).toBe(c);
  });

  it('drops expired answers when new ones are created, so memory stays bounded', () => {
    let now = 0;
    const sessions = new AnswerSessions({ now: () => now, ttlMs: 1000 });
    for (let i = 0; i < 100; i++) sessions.create('');
    now = 5000;
    sessions.create('');
    expect(sessions.size).toBe(1);
  });

  it('counts searches and pages against configurable budgets', () => {
    const session = new AnswerSessions({ budgets: { searches: 5, pages: 2 } }).create('');
    expect(session.budgetLine()).toBe('Searches used 0 of 5; pages read 0 of 2');
    expect(session.takeSearches(3)).toBe(3);
    expect(session.takeSearches(3)).toBe(2);
    expect(session.takeSearches(1)).toBe(0);
    expect(session.takePage()).toBe(true);
    expect(session.takePage()).toBe(true);
    expect(session.takePage()).toBe(false);
    session.refundPage();
    expect(session.budget()).toEqual({ searches: { used: 5, limit: 5 }, pages: { used: 1, limit: 2 } });
    expect(session.budgetLine()).toBe('Searches used 5 of 5; pages read 1 of 2');
  });

  it('defaults to 16 searches and 12 pages', () => {
    expect(new AnswerSessions().create('').budgetLine()).toBe('Searches used 0 of 16; pages read 0 of 12');
  });
});
