/**
 * The proxy as a team runs it: instances in their own processes behind a round-robin balancer,
 * answers in a real Redis, all on loopback. One answer's requests land on different instances; the
 * budgets and the rate limit hold across them; an instance killed mid-answer and a Redis stopped
 * mid-answer leave the answer able to go on. Every request loop is bounded in count.
 */
import { spawnSync } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestWeb, type TestWeb } from '../helpers/test-web.ts';
import { startTestRedis, type TestRedis } from '../redis/redis-server.ts';
import { type Balancer, call, type ProxyInstance, routeClusterPages, startBalancer, startInstance } from './cluster.ts';
import { TIMEOUTS } from '../../timeouts.ts';

let web: TestWeb;
let redis: TestRedis;
const running: { close(): Promise<void> }[] = [];

beforeAll(async () => {
  [web, redis] = await Promise.all([startTestWeb(), startTestRedis({ persist: true })]);
  routeClusterPages(web);
});
afterAll(async () => {
  await Promise.all(running.map((r) => r.close()));
  await redis?.stop();
  await web?.close();
});

/** Starts `count` instances with `env` and a balancer over them. */
async function cluster(count: number, env: Record<string, string>): Promise<{ instances: ProxyInstance[]; balancer: Balancer }> {
  const instances = await Promise.all(Array.from({ length: count }, () => startInstance(web, env)));
  const balancer = await startBalancer(instances.map((i) => i.port));
  running.push(balancer, { close: async () => void (await Promise.all(instances.map((i) => i.kill()))) });
  return { instances, balancer };
}

describe('several proxy instances behind a balancer, answers in Redis', { timeout: TIMEOUTS.processStart }, () => {
  it("serves one answer's requests from whichever instance gets them", async () => {
    const { instances, balancer } = await cluster(2, { REDIS_URL: redis.url });
    const created = await call(balancer.url, '/api/answers', { message: 'What does the guide say?' });
    expect(created.status).toBe(201);
    const answer = created.json.answer as string;
    const search = await call(balancer.url, '/api/search', { answer, query: 'guide' });
    expect(search.json.ok).toBe(true);
    const results = search.json.results as { n: number; url: string }[];
    expect(results.map((r) => r.n)).toEqual([1, 2, 3]);
    // The search ran on one instance; these reads of its results run on the other and then back.
    for (const result of results) {
      const read = await call(balancer.url, '/api/read', { answer, url: result.url });
      expect(read.json.ok, JSON.stringify(read.json)).toBe(true);
      expect((read.json.pages as { n: number }[])[0]?.n).toBe(result.n);
    }
    // An address the answer never saw is refused on every instance (rule 1 holds across them).
    const composed = await call(balancer.url, '/api/read', { answer, url: 'https://site.example/doc?q=secret' });
    expect(composed.json.code).toBe('refused');
    const sources = await call(balancer.url, `/api/answers/${answer}`);
    expect((sources.json.sources as { n: number }[]).map((s) => s.n)).toEqual([1, 2, 3]);
    expect(sources.json.budgetLine).toBe('Searches used 1 of 16; pages read 3 of 12');
    expect(new Set(balancer.served)).toEqual(new Set(instances.map((i) => i.port)));
  });

  it('stops at exactly the budget when requests of one answer reach three instances at once', async () => {
    const { balancer } = await cluster(3, { REDIS_URL: redis.url, PAGE_BUDGET: '5', SEARCH_BUDGET: '7' });
    const parts = Array.from({ length: 15 }, (_, i) => `https://site.example/part/${i}`);
    const answer = (await call(balancer.url, '/api/answers', { message: parts.join(' ') })).json.answer as string;
    const reads = await Promise.all(parts.map((url) => call(balancer.url, '/api/read', { answer, url })));
    expect(reads.filter((r) => r.json.ok)).toHaveLength(5);
    expect(reads.filter((r) => r.json.code === 'budget_spent')).toHaveLength(10);
    const searches = await Promise.all(Array.from({ length: 9 }, (_, i) => call(balancer.url, '/api/search', { answer, query: `q${i}` })));
    // Each search runs up to three queries (the question and its angles); seven in all, whatever the interleaving.
    const ran = searches.reduce((sum, s) => sum + ((s.json.queries as unknown[] | undefined)?.length ?? 0), 0);
    expect(ran).toBe(7);
    expect((await call(balancer.url, `/api/answers/${answer}`)).json.budgetLine).toBe('Searches used 7 of 7; pages read 5 of 5');
  });

  it('reads an address once per answer even when the same read reaches three instances at once (issue 41)', async () => {
    const { balancer } = await cluster(3, { REDIS_URL: redis.url });
    const answer = (await call(balancer.url, '/api/answers', { message: 'https://site.example/part/15' })).json.answer as string;
    const reads = await Promise.all(Array.from({ length: 6 }, () => call(balancer.url, '/api/read', { answer, url: 'https://site.example/part/15' })));
    expect(reads.filter((r) => r.json.ok)).toHaveLength(1);
    expect(reads.filter((r) => r.json.code === 'refused' && String(r.json.reason).includes('already read in this answer'))).toHaveLength(5);
    expect((await call(balancer.url, `/api/answers/${answer}`)).json.budgetLine).toBe('Searches used 0 of 16; pages read 1 of 12');
  });

  it('shares the rate limit between instances', async () => {
    const { balancer } = await cluster(2, { REDIS_URL: redis.url, RATE_MAX: '6' });
    const statuses: number[] = [];
    for (let i = 0; i < 10; i++) statuses.push((await call(balancer.url, '/api/health')).status);
    expect(statuses.filter((s) => s === 200)).toHaveLength(6);
    expect(statuses.filter((s) => s === 429)).toHaveLength(4);
  });

  it('goes on with an answer when the instance that started it is killed', async () => {
    const { instances, balancer } = await cluster(2, { REDIS_URL: redis.url });
    const answer = (await call(balancer.url, '/api/answers', { message: 'guide?' })).json.answer as string;
    const search = await call(balancer.url, '/api/search', { answer, query: 'guide' });
    await Promise.all(instances.map((i) => (i.port === balancer.served[0] ? i.kill() : undefined)));
    for (const result of search.json.results as { url: string }[]) {
      const read = await call(balancer.url, '/api/read', { answer, url: result.url });
      expect(read.json.ok, JSON.stringify(read.json)).toBe(true);
    }
    expect((await call(balancer.url, `/api/answers/${answer}`)).json.budgetLine).toBe('Searches used 1 of 16; pages read 3 of 12');
  });

  it('answers 503 with a reason the model can read while Redis is down, and the same answer goes on once Redis is back', async () => {
    const own = await startTestRedis({ persist: true });
    running.push({ close: own.stop });
    const { instances, balancer } = await cluster(2, { REDIS_URL: own.url });
    const answer = (await call(balancer.url, '/api/answers', { message: 'https://site.example/doc' })).json.answer as string;
    expect((await call(balancer.url, '/api/read', { answer, url: 'https://site.example/doc' })).json.ok).toBe(true);
    await own.stop();
    for (let i = 0; i < 4; i++) {
      const down = await call(balancer.url, '/api/read', { answer, url: 'https://site.example/doc' });
      expect(down.status).toBe(503);
      expect(down.json.code).toBe('store_unavailable');
      expect(down.json.reason).toMatch(/answer store \(Redis\) cannot be reached.*Try the search or read again/);
    }
    await own.start();
    // Both instances reconnect by themselves (bounded: 60 tries over the client's 3 s backoff cap). The balancer
    // takes turns, so two answers in a row are one from each: two from the same instance, with the other still
    // reconnecting, are not "both back" (a loaded run failed on the call after such a pair).
    let inARow = 0;
    for (let i = 0; i < 60 && inARow < 2; i++) {
      const again = await call(balancer.url, '/api/read', { answer, url: 'https://site.example/doc' });
      if (again.status === 200) inARow++;
      else {
        inARow = 0;
        expect(again.json.code).toBe('store_unavailable');
        await new Promise((resolve) => setTimeout(resolve, 250));
      }
    }
    expect(inARow).toBe(2);
    // Nothing was spent while Redis was down, and no instance crashed or fell back to memory; once back,
    // a read of the same address is answered from the first (issue 41) and costs nothing.
    expect((await call(balancer.url, '/api/read', { answer, url: 'https://site.example/doc' })).json.reason).toContain('already read in this answer');
    expect((await call(balancer.url, `/api/answers/${answer}`)).json.budgetLine).toBe('Searches used 0 of 16; pages read 1 of 12');
    for (const instance of instances) expect(instance.stderr()).toContain('redis lost');
  });

  it('in memory, one instance knows nothing of an answer another started: what Redis is for', async () => {
    const { balancer } = await cluster(2, {});
    const answer = (await call(balancer.url, '/api/answers', { message: 'guide?' })).json.answer as string;
    const elsewhere = await call(balancer.url, '/api/search', { answer, query: 'guide' });
    expect(elsewhere.status).toBe(404);
    expect(elsewhere.json.code).toBe('unknown_answer');
  });

  it('refuses to start when REDIS_URL cannot be reached, naming it', async () => {
    const dead = await startTestRedis();
    await dead.stop();
    const main = fileURLToPath(new URL('../../../src/proxy/main.ts', import.meta.url));
    const started = spawnSync(process.execPath, ['--import', 'tsx', main], {
      env: { PATH: process.env.PATH ?? '', PORT: '0', REDIS_URL: `redis://127.0.0.1:${dead.port}` },
      encoding: 'utf8',
      timeout: TIMEOUTS.processStart,
    });
    expect(started.status).toBe(1);
    expect(started.stderr).toMatch(/REDIS_URL \(redis:\/\/127\.0\.0\.1:\d+\/?\) cannot be reached: connection refused/);
  });
});
