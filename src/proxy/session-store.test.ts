import { Redis } from 'ioredis';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestRedis, type TestRedis } from '../../tests/proxy/redis/redis-server.ts';
import { AnswerSessions } from './answer-sessions.ts';
import { AnswerNotFoundError, SessionStoreUnavailableError } from './errors.ts';
import { RedisSessionStore } from './redis-session-store.ts';
import { answerKey, MemorySessionStore, type SessionStore, type SessionStoreLimits } from './session-store.ts';
import { TIMEOUTS } from '../../tests/timeouts.ts';

let redis: TestRedis;
let prefixes = 0;
const opened: SessionStore[] = [];

beforeAll(async () => {
  redis = await startTestRedis();
});
afterAll(async () => {
  await Promise.all(opened.map((store) => store.close()));
  await redis?.stop();
});

/** A store of each kind; each Redis store gets its own key prefix, so the tests never see each other's answers. */
const kinds: Record<string, (limits?: SessionStoreLimits & { now?: () => number }) => Promise<SessionStore>> = {
  memory: async (limits) => new MemorySessionStore(limits),
  redis: async (limits) => {
    const store = await RedisSessionStore.connect(redis.url, { ...limits, prefix: `t${++prefixes}:` });
    opened.push(store);
    return store;
  },
};

describe.each(Object.keys(kinds))('the %s session store', (kind) => {
  const storeOf = (limits?: SessionStoreLimits & { now?: () => number }) => (kinds[kind] as (typeof kinds)['memory'])(limits);

  it('keeps an answer found again by id on every request: seen addresses, budgets and ledger', async () => {
    const store = await storeOf();
    const sessions = new AnswerSessions({ store, budgets: { searches: 5, pages: 2 } });
    const created = await sessions.create('Read https://docs.example.org/guide please');
    created.markSeen('https://a.example/1');
    await created.save();
    expect(await created.takeSearches(3)).toBe(3);
    expect(await created.number([{ url: 'https://a.example/1#top', title: 'A' }, { url: 'https://b.example/2' }])).toEqual([1, 2]);

    const again = await sessions.get(created.id);
    expect(again.hasSeen('https://docs.example.org/guide')).toBe(true);
    expect(again.hasSeen('https://a.example/1')).toBe(true);
    expect(again.hasSeen('https://a.example/2')).toBe(false);
    expect(again.hasSeenHost('A.example')).toBe(true);
    expect(again.budgetLine()).toBe('Searches used 3 of 5; pages read 0 of 2');
    expect(await again.takeSearches(3)).toBe(2);
    expect(await again.takeSearches(1)).toBe(0);
    expect(await again.takePage()).toBe(true);
    expect(await again.takePage()).toBe(true);
    expect(await again.takePage()).toBe(false);
    await again.refundPage();
    expect(again.budget()).toEqual({ searches: { used: 5, limit: 5 }, pages: { used: 1, limit: 2 } });
    // A known address keeps its first number and gains a title it lacked; numbers never change.
    expect(await again.number([{ url: 'https://b.example/2', title: 'B' }, { url: 'https://c.example/' }, { url: 'https://a.example/1' }])).toEqual([2, 3, 1]);
    expect(await again.sources()).toEqual([
      { n: 1, url: 'https://a.example/1', title: 'A' },
      { n: 2, url: 'https://b.example/2', title: 'B' },
      { n: 3, url: 'https://c.example/', title: '' },
    ]);
  });

  it('records each address read once per answer, atomically: a repeat (normalised) or a second read at once is not a first read (issue 41)', async () => {
    const sessions = new AnswerSessions({ store: await storeOf() });
    const session = await sessions.create('');
    const firsts = await Promise.all(Array.from({ length: 6 }, () => session.firstRead('https://a.example/k/1')));
    expect(firsts.filter(Boolean)).toHaveLength(1);
    const again = await sessions.get(session.id);
    expect(await again.firstRead('HTTPS://A.example:443/k/1#x')).toBe(false);
    expect(await again.firstRead('https://a.example/k/2', 'https://a.example/k/3')).toBe(true);
    expect(await again.firstRead('https://a.example/k/3')).toBe(false);
    // Another answer's reads are its own.
    expect(await (await sessions.create('')).firstRead('https://a.example/k/1')).toBe(true);
  });

  it('a give-back never takes a budget below zero', async () => {
    const session = await new AnswerSessions({ store: await storeOf() }).create('');
    await session.refundPage();
    expect(session.budget().pages.used).toBe(0);
  });

  it('an answer keeps the budgets it started with, whatever the instance serving it is configured with', async () => {
    const store = await storeOf();
    const created = await new AnswerSessions({ store, budgets: { searches: 2, pages: 1 } }).create('');
    const elsewhere = await new AnswerSessions({ store, budgets: { searches: 99, pages: 99 } }).get(created.id);
    expect(elsewhere.budgets).toEqual({ searches: 2, pages: 1 });
  });

  it('an unknown id is AnswerNotFoundError', async () => {
    await expect(new AnswerSessions({ store: await storeOf() }).get('nope-nope-nope-nope')).rejects.toThrow(AnswerNotFoundError);
  });

  it('bounds the seen addresses of one answer', async () => {
    const sessions = new AnswerSessions({ store: await storeOf({ maxSeenAddresses: 3 }) });
    const session = await sessions.create('');
    for (const host of ['a.example', 'b.example', 'c.example', 'd.example']) session.markSeen(`https://${host}/`);
    await session.save();
    const again = await sessions.get(session.id);
    expect(['a', 'b', 'c', 'd'].filter((h) => again.hasSeen(`https://${h}.example/`))).toEqual(['a', 'b', 'c']);
  });

  it('bounds the ledger: past its capacity new addresses get no number', async () => {
    const session = await new AnswerSessions({ store: await storeOf({ ledgerCapacity: 2 }) }).create('');
    expect(await session.number([{ url: 'https://a.example/' }, { url: 'https://b.example/' }, { url: 'https://c.example/' }])).toEqual([1, 2, undefined]);
  });

  it("gives each client a share: one client's flood drops only its own least recently used answers, never another client's (issue 41)", async () => {
    let now = 1_000;
    const clock = () => ++now;
    const sessions = new AnswerSessions({ store: await storeOf({ maxSessions: 10, maxSessionsPerClient: 3, now: clock }) });
    const team = await Promise.all(['10.0.1.2', '10.0.2.3', '10.0.3.4'].map((client) => sessions.create('', client)));
    const mine = [];
    for (let i = 0; i < 40; i++) mine.push(await sessions.create('', '10.0.0.66'));
    // Use keeps an answer: the flooding client's first answer, used now, outlives its later ones.
    for (const answer of team) expect((await sessions.get(answer.id)).id).toBe(answer.id);
    const alive = [];
    for (const answer of mine)
      alive.push(
        await sessions.get(answer.id).then(
          () => true,
          () => false,
        ),
      );
    expect(alive.filter(Boolean)).toHaveLength(3);
    expect(alive.slice(-3)).toEqual([true, true, true]);
    await sessions.get(mine[37]?.id ?? '');
    await sessions.create('', '10.0.0.66');
    await expect(sessions.get(mine[38]?.id ?? '')).rejects.toThrow(AnswerNotFoundError);
    expect((await sessions.get(mine[37]?.id ?? '')).id).toBe(mine[37]?.id);
  });

  it('counts a client by its network: many addresses in one IPv4 /24 or IPv6 /56 share one share, and evict no one else (issue 52)', async () => {
    let now = 1_000;
    const clock = () => ++now;
    const sessions = new AnswerSessions({ store: await storeOf({ maxSessions: 10, maxSessionsPerClient: 3, now: clock }) });
    const others = await Promise.all(['192.0.2.10', '198.51.100.7', '2001:db8:1::1'].map((client) => sessions.create('', client)));
    // Forty addresses of one /24, and forty /64s of one /56: two clients, each holding its share at most.
    for (let i = 1; i <= 40; i++) await sessions.create('', `203.0.113.${i}`);
    for (let i = 0; i < 40; i++) await sessions.create('', `2001:db8:0:${(0xab00 + i).toString(16)}::1`);
    for (const answer of others) expect((await sessions.get(answer.id)).id).toBe(answer.id);
  });

  it('when full, drops from the block holding the most: ten networks of one /48 or one /16 evict no one else (issue 67, L6)', async () => {
    let now = 1_000;
    const clock = () => ++now;
    const sessions = new AnswerSessions({ store: await storeOf({ maxSessions: 10, maxSessionsPerClient: 3, now: clock }) });
    const others = await Promise.all(['192.0.2.10', '198.51.100.7', '2001:db8:1::1'].map((client) => sessions.create('', client)));
    // Ten /56 inside one /48, and ten /24 inside one /16: twenty clients, each within its share, 60 answers in all.
    for (let net = 0; net < 10; net++) {
      for (let i = 0; i < 3; i++) {
        await sessions.create('', `2001:db8:0:${(net * 0x100).toString(16)}::${i + 1}`);
        await sessions.create('', `203.0.${net}.${i + 1}`);
      }
    }
    for (const answer of others) expect((await sessions.get(answer.id)).id).toBe(answer.id);
  });

  it('keeps at most maxSessions answers, dropping the least recently used', async () => {
    let now = 1_000;
    const clock = () => ++now;
    const sessions = new AnswerSessions({ store: await storeOf({ maxSessions: 2, now: clock }) });
    const a = await sessions.create('');
    const b = await sessions.create('');
    await sessions.get(a.id);
    const c = await sessions.create('');
    await expect(sessions.get(b.id)).rejects.toThrow(AnswerNotFoundError);
    expect((await sessions.get(a.id)).id).toBe(a.id);
    expect((await sessions.get(c.id)).id).toBe(c.id);
  });
});

describe('the memory session store', () => {
  it('expires an answer after an idle hour; use keeps it alive', async () => {
    let now = 0;
    const sessions = new AnswerSessions({ now: () => now });
    const a = await sessions.create('');
    const b = await sessions.create('');
    now = 59 * 60 * 1000;
    await sessions.get(a.id);
    now = 61 * 60 * 1000;
    expect((await sessions.get(a.id)).id).toBe(a.id);
    await expect(sessions.get(b.id)).rejects.toThrow(AnswerNotFoundError);
  });

  it('drops expired answers when new ones are created, so memory stays bounded', async () => {
    let now = 0;
    const store = new MemorySessionStore({ now: () => now, ttlMs: 1000 });
    const sessions = new AnswerSessions({ store });
    for (let i = 0; i < 100; i++) await sessions.create('');
    now = 5000;
    await sessions.create('');
    expect(store.size).toBe(1);
  });
});

describe('the Redis session store', () => {
  it('stores an answer under a hash of its id: no key or value holds the id, so reading Redis gives no way to act for an answer', async () => {
    const store = (await kinds.redis?.()) as RedisSessionStore;
    const session = await new AnswerSessions({ store }).create('see https://docs.example.org/guide');
    session.markSeen('https://a.example/secret-path');
    await session.save();
    await session.number([{ url: 'https://a.example/secret-path', title: 'T' }]);
    const reader = new Redis(redis.url);
    try {
      const keys = await reader.keys(`${store.prefix}*`);
      expect(keys.length).toBeGreaterThan(0);
      const dump: string[] = [...keys];
      for (const key of keys) {
        const type = await reader.type(key);
        if (type === 'hash') dump.push(...Object.entries(await reader.hgetall(key)).flat());
        if (type === 'set') dump.push(...(await reader.smembers(key)));
        if (type === 'zset') dump.push(...(await reader.zrange(key, '0', '-1')));
      }
      for (const text of dump) expect(text).not.toContain(session.id);
      expect(keys.some((key) => key.includes(answerKey(session.id)))).toBe(true);
      // Seen addresses are kept as digests: the user's address is not in Redis verbatim.
      expect(dump.join('\n')).not.toContain('docs.example.org/guide');
    } finally {
      reader.disconnect();
    }
  });

  it('gives every key of an answer the idle lifetime, and a request restarts it', async () => {
    const store = (await kinds.redis?.({ ttlMs: 60_000 })) as RedisSessionStore;
    const sessions = new AnswerSessions({ store });
    const session = await sessions.create('https://a.example/');
    await session.number([{ url: 'https://a.example/' }]);
    const reader = new Redis(redis.url);
    try {
      const keys = await reader.keys(`${store.prefix}a:*`);
      expect(keys).toHaveLength(4);
      for (const key of keys) await reader.pexpire(key, 5_000);
      await sessions.get(session.id);
      for (const key of keys) {
        const ttl = await reader.pttl(key);
        expect(ttl, key).toBeGreaterThan(5_000);
        expect(ttl, key).toBeLessThanOrEqual(60_000);
      }
      // Once the answer's keys expire it is gone, and a late spend does not bring it back without an expiry.
      for (const key of keys) await reader.del(key);
      await expect(sessions.get(session.id)).rejects.toThrow(AnswerNotFoundError);
      await expect(session.takePage()).rejects.toThrow(AnswerNotFoundError);
      expect(await reader.keys(`${store.prefix}a:*`)).toEqual([]);
    } finally {
      reader.disconnect();
    }
  });

  it('spends a budget atomically: many requests at once on several connections grant exactly the budget', async () => {
    const stores = [(await kinds.redis?.()) as RedisSessionStore];
    for (let i = 0; i < 2; i++) stores.push(await RedisSessionStore.connect(redis.url, { prefix: stores[0]?.prefix ?? '' }));
    opened.push(...stores.slice(1));
    const first = await new AnswerSessions({ store: stores[0], budgets: { searches: 16, pages: 12 } }).create('');
    const handles = await Promise.all(stores.map((store) => new AnswerSessions({ store }).get(first.id)));
    const pages = await Promise.all(Array.from({ length: 60 }, (_, i) => handles[i % handles.length]?.takePage()));
    const searches = await Promise.all(Array.from({ length: 30 }, (_, i) => handles[i % handles.length]?.takeSearches(3)));
    expect(pages.filter(Boolean)).toHaveLength(12);
    expect(searches.reduce((sum: number, n) => sum + (n ?? 0), 0)).toBe(16);
    const numbers = await Promise.all(Array.from({ length: 20 }, (_, i) => handles[i % handles.length]?.number([{ url: `https://s${i % 10}.example/` }])));
    // Ten addresses, each numbered once, 1 to 10, however the requests interleaved.
    expect(new Set(numbers.map((n) => n?.[0])).size).toBe(10);
    expect((await first.sources()).map((s) => s.n)).toEqual([1, 2, 3, 4, 5, 6, 7, 8, 9, 10]);
  });

  it('names REDIS_URL and what to do when Redis cannot be reached at start, with the password hidden', async () => {
    const stopped = await startTestRedis();
    await stopped.stop();
    const attempt = RedisSessionStore.connect(`redis://:hunter2-secret@127.0.0.1:${stopped.port}`, { connectTimeoutMs: 2000 });
    await expect(attempt).rejects.toThrow(/REDIS_URL \(redis:\/\/:\*\*\*@127\.0\.0\.1:\d+\) cannot be reached: connection refused.*unset it/);
    await expect(attempt).rejects.not.toThrow(/hunter2/);
    await expect(RedisSessionStore.connect('http://127.0.0.1:1/')).rejects.toThrow(/REDIS_URL must be a redis:\/\/ or rediss:\/\/ address/);
  });

  it('answers SessionStoreUnavailableError while Redis is down, never falling back to memory, and works again once it is back', async () => {
    const own = await startTestRedis();
    const changes: string[] = [];
    const store = await RedisSessionStore.connect(own.url, { onConnectionChange: (state) => changes.push(state) });
    try {
      const sessions = new AnswerSessions({ store });
      const session = await sessions.create('');
      await own.stop();
      await expect(session.takePage()).rejects.toThrow(SessionStoreUnavailableError);
      await expect(sessions.create('')).rejects.toThrow(/answer store \(Redis\) cannot be reached/);
      await own.start();
      // The client reconnects by itself (bounded wait: its backoff tops out at 3 s).
      await expect.poll(() => (store.client as import('ioredis').Redis).status, { timeout: TIMEOUTS.works, interval: 50 }).toBe('ready');
      // A restarted Redis lost the answer (no persistence here): a clean not-found, and new answers work.
      await expect(sessions.get(session.id)).rejects.toThrow(AnswerNotFoundError);
      const fresh = await sessions.create('');
      expect(await fresh.takePage()).toBe(true);
      expect(changes).toEqual(['lost', 'back']);
    } finally {
      await store.close();
      await own.stop();
    }
  });
});
