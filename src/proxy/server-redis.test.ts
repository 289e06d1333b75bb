import { describe, expect, it } from 'vitest';
import { startTestRedis } from '../../tests/proxy/redis/redis-server.ts';
import { RedisSessionStore } from './redis-session-store.ts';
import { createProxy } from './server.ts';

const HOST = { host: '127.0.0.1:4173' };

describe('the proxy with its answers in Redis', () => {
  it('says which store it uses, and answers 503 naming Redis when the rate limiter cannot reach it either', async () => {
    const redis = await startTestRedis();
    const store = await RedisSessionStore.connect(redis.url);
    const app = createProxy({
      store,
      log: false,
      rateLimit: { max: 100, timeWindowMs: 60_000 },
      backend: { name: 'searxng', search: async () => ({ hits: [], answers: [], unresponsive: [] }) },
    });
    try {
      const health = await app.inject({ method: 'GET', url: '/api/health', headers: HOST });
      expect(health.json()).toMatchObject({ ok: true, store: 'redis' });
      // The rate limiter counts in the same Redis: its counter is there, under the store's prefix.
      expect(await (store.client as import('ioredis').Redis).keys(`${store.prefix}rate:*`)).not.toEqual([]);
      await redis.stop();
      const down = await app.inject({ method: 'GET', url: '/api/health', headers: HOST });
      expect(down.statusCode).toBe(503);
      expect(down.json()).toMatchObject({ ok: false, code: 'store_unavailable' });
      expect(down.json().reason).toMatch(/Redis\) cannot be reached/);
    } finally {
      await app.close();
      await redis.stop();
    }
  });
});
