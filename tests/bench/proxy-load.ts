/**
 * `npm run bench -- --proxy-load`: the proxy as a team runs it, under load, on loopback: 200 answers at
 * once, each a search and three page reads of the test web, through a round-robin balancer to
 * (a) one instance with answers in memory, (b) one instance with answers in Redis, (c) three instances
 * with answers in Redis, (d) the same while six answers read a hostile page (2 MB of "<", five such links). Prints requests per second and p50/p99 latency as ratios to (a), errors
 * (must be 0), whether every answer's budget came out exact, and the latency of plain health requests
 * made meanwhile. Bounded: 200 answers × 5 requests per setup, each request with a 30 s limit.
 */
import { page, startTestWeb } from '../proxy/helpers/test-web.ts';
import { type Balancer, call, type ProxyInstance, routeClusterPages, startBalancer, startInstance } from '../proxy/cluster/cluster.ts';
import { startTestRedis } from '../proxy/redis/redis-server.ts';

const ANSWERS = 200;

/** What one setup measured. */
interface LoadFigure {
  setup: string;
  requests: number;
  errors: number;
  perSecond: number;
  p50: number;
  p99: number;
  /** The errors by kind (path, status, code). */
  kinds: Map<string, number>;
  /** Answers whose budget line was not "1 search, 3 pages" at the end. */
  inexact: number;
  healthP50: number;
}

function percentile(sorted: readonly number[], p: number): number {
  return sorted[Math.min(sorted.length - 1, Math.floor((sorted.length * p) / 100))] ?? 0;
}

/** One answer as the page drives it: start, search, read three results, then read its budget back. */
async function oneAnswer(base: string, latencies: number[], i: number, kinds: Map<string, number>): Promise<{ errors: number; exact: boolean }> {
  let errors = 0;
  const count = (kind: string) => kinds.set(kind, (kinds.get(kind) ?? 0) + 1);
  const timed = async (path: string, body?: unknown) => {
    const started = performance.now();
    try {
      const reply = await call(base, path, body);
      latencies.push(performance.now() - started);
      if (reply.status >= 300 || reply.json.ok === false) {
        errors++;
        count(`${path} ${reply.status} ${String(reply.json.code)}: ${String(reply.json.reason ?? '').slice(0, 60)}`);
      }
      return reply;
    } catch (error) {
      errors++;
      count(`${path} ${(error as Error).name}`);
      return undefined;
    }
  };
  const answer = (await timed('/api/answers', { message: `question ${i}` }))?.json.answer as string | undefined;
  if (!answer) return { errors: errors + 1, exact: false };
  const search = await timed('/api/search', { answer, query: `topic ${i}` });
  for (const result of ((search?.json.results as { url: string }[] | undefined) ?? []).slice(0, 3)) await timed('/api/read', { answer, url: result.url });
  const end = await call(base, `/api/answers/${answer}`).catch(() => undefined);
  return { errors, exact: end?.json.budgetLine === 'Searches used 1 of 16; pages read 3 of 12' };
}

/** Answers that read the hostile page (2 MB of "<" and five such links) while the load runs. */
async function hostileReads(base: string, count: number): Promise<void> {
  await Promise.all(
    Array.from({ length: count }, async () => {
      const answer = (await call(base, '/api/answers', { message: 'read https://site.example/hostile' }).catch(() => undefined))?.json.answer;
      if (answer) await call(base, '/api/read', { answer, url: 'https://site.example/hostile' }).catch(() => undefined);
    }),
  );
}

async function measure(setup: string, balancer: Balancer, hostile = 0): Promise<LoadFigure> {
  const latencies: number[] = [];
  const health: number[] = [];
  const kinds = new Map<string, number>();
  let running = true;
  // Plain requests made while the answers run: how long a user's other request waits meanwhile (bounded count).
  const prober = (async () => {
    for (let i = 0; i < 2000 && running; i++) {
      const started = performance.now();
      await call(balancer.url, '/api/health').catch(() => undefined);
      health.push(performance.now() - started);
    }
  })();
  const started = performance.now();
  const [outcomes] = await Promise.all([
    Promise.all(Array.from({ length: ANSWERS }, (_, i) => oneAnswer(balancer.url, latencies, i, kinds))),
    hostileReads(balancer.url, hostile),
  ]);
  const seconds = (performance.now() - started) / 1000;
  running = false;
  await prober;
  latencies.sort((a, b) => a - b);
  health.sort((a, b) => a - b);
  return {
    setup,
    requests: latencies.length,
    errors: outcomes.reduce((sum, o) => sum + o.errors, 0),
    perSecond: latencies.length / seconds,
    p50: percentile(latencies, 50),
    p99: percentile(latencies, 99),
    inexact: outcomes.filter((o) => !o.exact).length,
    kinds,
    healthP50: percentile(health, 50),
  };
}

/** Runs the three setups and prints the figures. */
export async function runProxyLoadBench(): Promise<void> {
  const web = await startTestWeb();
  routeClusterPages(web);
  const hostilePage = `<!doctype html><html><head><title>Hostile</title></head><body><p>${'<'.repeat(2_000_000)}</p>${Array.from({ length: 5 }, (_, i) => `<a href="/hostile/${i}">${i}</a>`).join('')}</body></html>`;
  web.route('site.example', '/hostile', page(hostilePage));
  for (let i = 0; i < 5; i++) web.route('site.example', `/hostile/${i}`, page(hostilePage));
  const redis = await startTestRedis();
  const figures: LoadFigure[] = [];
  try {
    for (const [setup, count, env, hostile] of [
      ['1 instance, memory', 1, {}, 0],
      ['1 instance, Redis', 1, { REDIS_URL: redis.url }, 0],
      ['3 instances, Redis', 3, { REDIS_URL: redis.url }, 0],
      ['3 instances, Redis, 6 hostile reads', 3, { REDIS_URL: redis.url }, 6],
    ] as const) {
      const instances: ProxyInstance[] = await Promise.all(Array.from({ length: count }, () => startInstance(web, env)));
      const balancer = await startBalancer(instances.map((i) => i.port));
      try {
        figures.push(await measure(setup, balancer, hostile));
      } finally {
        await balancer.close();
        await Promise.all(instances.map((i) => i.kill()));
      }
    }
  } finally {
    await redis.stop();
    await web.close();
  }
  const base = figures[0];
  if (!base) return;
  console.log(
    `\n== Proxy under load: ${ANSWERS} answers at once, each a search and three reads, through a round-robin balancer (ratios to one in-memory instance)`,
  );
  for (const f of figures) {
    console.log(
      `${f.setup.padEnd(36)} ${f.requests} requests, errors ${f.errors}, ${f.perSecond.toFixed(0)} req/s (${(f.perSecond / base.perSecond).toFixed(2)}), ` +
        `p50 ${f.p50.toFixed(0)} ms (${(f.p50 / base.p50).toFixed(2)}), p99 ${f.p99.toFixed(0)} ms (${(f.p99 / base.p99).toFixed(2)}), ` +
        `budgets ${f.inexact === 0 ? 'exact' : `${f.inexact} answers off`}; health p50 meanwhile ${f.healthP50.toFixed(1)} ms (${(f.healthP50 / base.healthP50).toFixed(2)})`,
    );
    for (const [kind, n] of [...f.kinds].sort((a, b) => b[1] - a[1]).slice(0, 4)) console.log(`    ${n} × ${kind}`);
  }
}
