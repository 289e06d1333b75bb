// Loaded only when a Redis store connects: a proxy that keeps answers in memory needs no ioredis installed.
import type { Redis } from 'ioredis';
import { SessionStoreUnavailableError } from './errors.ts';
import type { LedgerEntry } from './source-ledger.ts';
import { type BudgetName, type SeenEntry, type SessionSnapshot, type SessionStore, type SessionStoreLimits, storeLimits } from './session-store.ts';

/**
 * The Lua scripts, one per store operation, each atomic in Redis. An answer is four keys under
 * `<prefix>a:{<answer key>}:` — `m` (a hash: budget limits and use), `s` and `h` (sets: seen address
 * digests and their hosts), `l` (a hash: ledger address → `[n, title]` as JSON) — with the idle
 * lifetime as their expiry, and `<prefix>answers`, a sorted set of answer keys by last use that
 * bounds how many answers are kept. Scripts refuse to act on an answer whose `m` key has expired,
 * so a late request never brings back a budget without an expiry.
 */
const SCRIPTS = {
  /**
   * KEYS: index. ARGV: prefix, key, now, ttl, max answers, searches limit, pages limit, max seen, owner
   * ('' for none), the owner's share, then digest/host pairs. An owner's answers are also in
   * `<prefix>owner:<owner>`, a sorted set by last use like the index, so its share is kept by dropping
   * its own least recently used answer; `<prefix>owners` lists the owners, so a full store drops from the wide
   * block holding the most (an owner whose answers all expired leaves it when next counted).
   */
  nexusCreate: `
local index = KEYS[1]
local prefix, key = ARGV[1], ARGV[2]
local now, ttl, max = tonumber(ARGV[3]), tonumber(ARGV[4]), tonumber(ARGV[5])
local owner, share = ARGV[9], tonumber(ARGV[10])
local function keysOf(k)
  local base = prefix .. 'a:{' .. k .. '}:'
  return { base .. 'm', base .. 's', base .. 'h', base .. 'l' }
end
local function drop(k)
  local keys = keysOf(k)
  local of = redis.call('HGET', keys[1], 'owner')
  if of then redis.call('ZREM', prefix .. 'owner:' .. of, k) end
  redis.call('DEL', unpack(keys))
  redis.call('ZREM', index, k)
end
redis.call('ZREMRANGEBYSCORE', index, '-inf', '(' .. (now - ttl))
if owner ~= '' then
  local own = prefix .. 'owner:' .. owner
  redis.call('ZREMRANGEBYSCORE', own, '-inf', '(' .. (now - ttl))
  while redis.call('ZCARD', own) >= share do
    local oldest = redis.call('ZPOPMIN', own)
    if #oldest == 0 then break end
    drop(oldest[1])
  end
end
local owners = prefix .. 'owners'
while redis.call('ZCARD', index) >= max do
  -- Full: an owner is '<wide block>.<network>', and the block holding the most answers gives up the least recently
  -- used answer of its owners, so many networks of one block cannot push out everyone else's; with no owners, or
  -- more answers without one, the least recently used answer of all.
  local blocks, oldestOf, owned = {}, {}, 0
  for _, o in ipairs(redis.call('SMEMBERS', owners)) do
    local own = prefix .. 'owner:' .. o
    redis.call('ZREMRANGEBYSCORE', own, '-inf', '(' .. (now - ttl))
    local n = redis.call('ZCARD', own)
    owned = owned + n
    if n == 0 then
      redis.call('SREM', owners, o)
    else
      local block = string.match(o, '^[^.]*')
      local first = redis.call('ZRANGE', own, 0, 0, 'WITHSCORES')
      local score = tonumber(first[2])
      blocks[block] = (blocks[block] or 0) + n
      if oldestOf[block] == nil or score < oldestOf[block][2] then oldestOf[block] = { own, score } end
    end
  end
  local victim, most = nil, 0
  for block, n in pairs(blocks) do
    if n > most or (n == most and oldestOf[block][2] < oldestOf[victim][2]) then most, victim = n, block end
  end
  victim = victim and oldestOf[victim][1]
  if victim == nil or redis.call('ZCARD', index) - owned > most then victim = index end
  local oldest = redis.call('ZPOPMIN', victim)
  if #oldest == 0 then break end
  drop(oldest[1])
end
local k = keysOf(key)
redis.call('HSET', k[1], 'limit:searches', ARGV[6], 'limit:pages', ARGV[7], 'used:searches', 0, 'used:pages', 0)
if owner ~= '' then
  local own = prefix .. 'owner:' .. owner
  redis.call('HSET', k[1], 'owner', owner)
  redis.call('ZADD', own, now, key)
  redis.call('PEXPIRE', own, ttl)
  redis.call('SADD', owners, owner)
end
local maxSeen = tonumber(ARGV[8])
for i = 11, #ARGV, 2 do
  if redis.call('SCARD', k[2]) < maxSeen then
    redis.call('SADD', k[2], ARGV[i])
    redis.call('SADD', k[3], ARGV[i + 1])
  end
end
for _, name in ipairs(k) do redis.call('PEXPIRE', name, ttl) end
redis.call('ZADD', index, now, key)
return 1`,
  /** KEYS: m, s, h, l, index. ARGV: key, now, ttl, prefix. */
  nexusOpen: `
if redis.call('EXISTS', KEYS[1]) == 0 then return false end
for i = 1, 4 do redis.call('PEXPIRE', KEYS[i], ARGV[3]) end
redis.call('ZADD', KEYS[5], ARGV[2], ARGV[1])
local owner = redis.call('HGET', KEYS[1], 'owner')
if owner then
  local own = ARGV[4] .. 'owner:' .. owner
  redis.call('ZADD', own, ARGV[2], ARGV[1])
  redis.call('PEXPIRE', own, ARGV[3])
end
return { redis.call('HGETALL', KEYS[1]), redis.call('SMEMBERS', KEYS[2]), redis.call('SMEMBERS', KEYS[3]) }`,
  /** KEYS: m, s, h. ARGV: ttl, max seen, then digest/host pairs. */
  nexusSeen: `
if redis.call('EXISTS', KEYS[1]) == 0 then return 0 end
local maxSeen = tonumber(ARGV[2])
for i = 3, #ARGV, 2 do
  if redis.call('SISMEMBER', KEYS[2], ARGV[i]) == 0 and redis.call('SCARD', KEYS[2]) < maxSeen then
    redis.call('SADD', KEYS[2], ARGV[i])
    redis.call('SADD', KEYS[3], ARGV[i + 1])
  end
end
redis.call('PEXPIRE', KEYS[2], ARGV[1])
redis.call('PEXPIRE', KEYS[3], ARGV[1])
return 1`,
  /** KEYS: m. ARGV: digests. Each read address is a field `read:<digest>` of `m`, so it expires with the answer. 1 = first read. */
  nexusRead: `
if redis.call('EXISTS', KEYS[1]) == 0 then return false end
local out = {}
for i = 1, #ARGV do out[i] = redis.call('HSETNX', KEYS[1], 'read:' .. ARGV[i], 1) end
return out`,
  /** KEYS: m. ARGV: budget name, wanted (negative gives back). Same arithmetic as grant() in session-store.ts. */
  nexusTake: `
if redis.call('EXISTS', KEYS[1]) == 0 then return false end
local used = tonumber(redis.call('HGET', KEYS[1], 'used:' .. ARGV[1]) or '0')
local limit = tonumber(redis.call('HGET', KEYS[1], 'limit:' .. ARGV[1]) or '0')
local wanted = tonumber(ARGV[2])
local granted
if wanted >= 0 then granted = math.max(0, math.min(wanted, limit - used)) else granted = -math.min(used, -wanted) end
if granted ~= 0 then used = redis.call('HINCRBY', KEYS[1], 'used:' .. ARGV[1], granted) end
return { granted, used }`,
  /** KEYS: m, l. ARGV: ttl, capacity, then url/title pairs. Returns a number per pair, 0 for none. */
  nexusNumber: `
if redis.call('EXISTS', KEYS[1]) == 0 then return false end
local capacity = tonumber(ARGV[2])
local out = {}
for i = 3, #ARGV, 2 do
  local known = redis.call('HGET', KEYS[2], ARGV[i])
  if known then
    local entry = cjson.decode(known)
    if entry[2] == '' and ARGV[i + 1] ~= '' then redis.call('HSET', KEYS[2], ARGV[i], cjson.encode({ entry[1], ARGV[i + 1] })) end
    out[#out + 1] = entry[1]
  else
    local size = redis.call('HLEN', KEYS[2])
    if size >= capacity then
      out[#out + 1] = 0
    else
      redis.call('HSET', KEYS[2], ARGV[i], cjson.encode({ size + 1, ARGV[i + 1] }))
      out[#out + 1] = size + 1
    end
  end
end
redis.call('PEXPIRE', KEYS[2], ARGV[1])
return out`,
} as const;

type ScriptName = keyof typeof SCRIPTS;
type ScriptClient = Redis & { [K in ScriptName]: (...args: (string | number)[]) => Promise<unknown> };

/** Options of {@link RedisSessionStore.connect}. */
export interface RedisSessionStoreOptions extends SessionStoreLimits {
  /** Prefix of every key (default `nexus:`), so one Redis can serve several deployments. */
  prefix?: string;
  /** Clock for the last-use index (default `Date.now`). */
  now?: () => number;
  /** Longest wait for one command before the request is answered 503 (default 2 s). */
  commandTimeoutMs?: number;
  /** Longest wait for the first connection (default 5 s). */
  connectTimeoutMs?: number;
  /** Told when the connection is lost and when it is back (a log line each). */
  onConnectionChange?: (state: 'lost' | 'back', detail: string) => void;
}

/**
 * Answers in progress in Redis (or Valkey), shared by every proxy instance pointed at it
 * (`REDIS_URL`): same lifetime and bounds as the in-memory store, every spend and ledger number one
 * atomic script. While Redis cannot be reached each operation throws
 * {@link SessionStoreUnavailableError} at once (no queue, no fallback to memory); the client
 * reconnects by itself and the next request works again.
 *
 * Holds only hashes of answer ids, digests of seen addresses, their hosts, and the ledger (source
 * addresses and titles, which the answer shows the user anyway). A standalone Redis or Valkey; not
 * Redis Cluster (the bound on answers spans every answer's keys).
 */
export class RedisSessionStore implements SessionStore {
  readonly kind = 'redis';
  /**
   * The connection (an ioredis client), shared with the rate limiter's Redis store. Typed as an object, so that a
   * project whose proxy keeps answers in memory needs no ioredis, not even its types.
   */
  get client(): object {
    return this.#redis;
  }
  readonly #redis: Redis;
  /** Prefix of every key this store writes. */
  readonly prefix: string;
  readonly #limits: Required<SessionStoreLimits>;
  readonly #now: () => number;

  private constructor(client: Redis, options: RedisSessionStoreOptions) {
    this.#redis = client;
    this.prefix = options.prefix ?? 'nexus:';
    this.#limits = storeLimits(options);
    this.#now = options.now ?? Date.now;
    for (const [name, lua] of Object.entries(SCRIPTS)) client.defineCommand(name, { lua });
  }

  /**
   * Connects to Redis and returns the store.
   * @param url - a `redis://` or `rediss://` address (`REDIS_URL`).
   * @param options - prefix, bounds, lifetime, clock and timeouts.
   * @throws Error naming `REDIS_URL` (its password hidden) and what to do, when Redis cannot be reached.
   */
  static async connect(url: string, options: RedisSessionStoreOptions = {}): Promise<RedisSessionStore> {
    let parsed: URL;
    try {
      parsed = new URL(url);
    } catch {
      throw new Error('REDIS_URL is not a valid address; give one like redis://127.0.0.1:6379/0');
    }
    if (parsed.protocol !== 'redis:' && parsed.protocol !== 'rediss:') {
      throw new Error(`REDIS_URL must be a redis:// or rediss:// address, not ${parsed.protocol}//`);
    }
    const shown = redactedUrl(parsed);
    const { Redis: RedisClient } = await import('ioredis');
    const client = new RedisClient(url, {
      lazyConnect: true,
      // Fail at once while disconnected: a queued spend would run after the answer gave up on it.
      enableOfflineQueue: false,
      maxRetriesPerRequest: 0,
      commandTimeout: options.commandTimeoutMs ?? 2000,
      connectTimeout: options.connectTimeoutMs ?? 5000,
      retryStrategy: (times) => Math.min(100 * 2 ** Math.min(times, 5), 3000),
    });
    let connected = false;
    let lost = false;
    let lastError: unknown;
    client.on('error', (error: Error) => {
      lastError = error;
    });
    client.on('close', () => {
      if (connected && !lost) {
        lost = true;
        options.onConnectionChange?.('lost', lastError ? describeError(lastError) : 'connection lost');
      }
    });
    client.on('ready', () => {
      if (lost) options.onConnectionChange?.('back', shown);
      lost = false;
    });
    try {
      await client.connect();
      await client.ping();
    } catch (error) {
      client.disconnect();
      throw new Error(
        `REDIS_URL (${shown}) cannot be reached: ${describeError(lastError ?? error)}. Start Redis there, fix REDIS_URL, or unset it to keep answers in this process's memory (one instance only).`,
      );
    }
    connected = true;
    return new RedisSessionStore(client, options);
  }

  /** Whether an error came from the connection (lost, refused, timed out) rather than from a script. */
  isConnectionError(error: unknown): boolean {
    return error instanceof Error && !(error instanceof SessionStoreUnavailableError) && isRedisConnectionError(error);
  }

  /** A short description of a connection error, without addresses or passwords. */
  describe(error: unknown): string {
    return describeError(error);
  }

  async create(key: string, limits: Readonly<Record<BudgetName, number>>, seen: readonly SeenEntry[], owner?: string): Promise<void> {
    const { ttlMs, maxSessions, maxSeenAddresses, maxSessionsPerClient } = this.#limits;
    await this.#run(
      'nexusCreate',
      1,
      this.#index(),
      this.prefix,
      key,
      this.#now(),
      ttlMs,
      maxSessions,
      limits.searches,
      limits.pages,
      maxSeenAddresses,
      owner ?? '',
      maxSessionsPerClient,
      ...seen.flatMap((entry) => [entry.digest, entry.host]),
    );
  }

  async open(key: string): Promise<SessionSnapshot | undefined> {
    const reply = (await this.#run('nexusOpen', 5, ...this.#keys(key), this.#index(), key, this.#now(), this.#limits.ttlMs, this.prefix)) as
      | [string[], string[], string[]]
      | null;
    if (!reply) return undefined;
    const [pairs, seen, hosts] = reply;
    const meta = new Map<string, number>();
    for (let i = 0; i + 1 < pairs.length; i += 2) meta.set(pairs[i] ?? '', Number(pairs[i + 1]));
    return {
      limits: { searches: meta.get('limit:searches') ?? 0, pages: meta.get('limit:pages') ?? 0 },
      used: { searches: meta.get('used:searches') ?? 0, pages: meta.get('used:pages') ?? 0 },
      seen: new Set(seen),
      hosts: new Set(hosts),
    };
  }

  async addSeen(key: string, entries: readonly SeenEntry[]): Promise<void> {
    if (entries.length === 0) return;
    const [m, s, h] = this.#keys(key);
    await this.#run('nexusSeen', 3, m, s, h, this.#limits.ttlMs, this.#limits.maxSeenAddresses, ...entries.flatMap((entry) => [entry.digest, entry.host]));
  }

  async markRead(key: string, digests: readonly string[]): Promise<boolean[] | undefined> {
    if (digests.length === 0) return [];
    const [m] = this.#keys(key);
    const reply = (await this.#run('nexusRead', 1, m, ...digests)) as number[] | null;
    return reply ? reply.map((first) => first === 1) : undefined;
  }

  async take(key: string, budget: BudgetName, wanted: number): Promise<{ granted: number; used: number } | undefined> {
    const [m] = this.#keys(key);
    const reply = (await this.#run('nexusTake', 1, m, budget, wanted)) as [number, number] | null;
    return reply ? { granted: reply[0], used: reply[1] } : undefined;
  }

  async number(key: string, sources: readonly { url: string; title: string }[]): Promise<(number | undefined)[] | undefined> {
    const [m, , , l] = this.#keys(key);
    const reply = (await this.#run('nexusNumber', 2, m, l, this.#limits.ttlMs, this.#limits.ledgerCapacity, ...sources.flatMap((s) => [s.url, s.title]))) as
      | number[]
      | null;
    return reply ? reply.map((n) => (n > 0 ? n : undefined)) : undefined;
  }

  async sources(key: string): Promise<LedgerEntry[] | undefined> {
    const [m, , , l] = this.#keys(key);
    const [exists, ledger] = await this.#guard(() => Promise.all([this.#redis.exists(m), this.#redis.hgetall(l)]));
    if (!exists) return undefined;
    return Object.entries(ledger)
      .map(([url, json]) => {
        const [n, title] = JSON.parse(json) as [number, string];
        return { n, url, title };
      })
      .sort((a, b) => a.n - b.n);
  }

  async close(): Promise<void> {
    await this.#redis.quit().catch(() => this.#redis.disconnect());
  }

  #index(): string {
    return `${this.prefix}answers`;
  }

  #keys(key: string): [string, string, string, string] {
    const base = `${this.prefix}a:{${key}}:`;
    return [`${base}m`, `${base}s`, `${base}h`, `${base}l`];
  }

  #run(script: ScriptName, ...args: (string | number)[]): Promise<unknown> {
    return this.#guard(() => (this.#redis as ScriptClient)[script](...args));
  }

  /** Runs a command, turning a connection failure into {@link SessionStoreUnavailableError}. */
  async #guard<T>(command: () => Promise<T>): Promise<T> {
    try {
      return await command();
    } catch (error) {
      if (this.isConnectionError(error)) throw new SessionStoreUnavailableError(describeError(error));
      throw error;
    }
  }
}

/** The ways ioredis reports that a command could not reach Redis (refused, lost, not yet back, timed out). */
const CONNECTION_MESSAGES = /Connection is closed|enableOfflineQueue|Command timed out|max retries|ECONNREFUSED|ECONNRESET|EPIPE|ETIMEDOUT/i;

/** Whether an error says Redis could not be reached, as opposed to a script's or the proxy's own error. */
function isRedisConnectionError(error: Error): boolean {
  const code = (error as { code?: string }).code ?? '';
  return error.name === 'MaxRetriesPerRequestError' || CONNECTION_MESSAGES.test(`${error.message} ${code}`);
}

/** A one-line description of a connection error; addresses are left out (they may carry a password). */
function describeError(error: unknown): string {
  const code = (error as { code?: string }).code;
  const message = error instanceof Error ? error.message : String(error);
  if (code === 'ECONNREFUSED') return 'connection refused';
  if (code === 'ETIMEDOUT' || /timed? ?out/i.test(message)) return 'timed out';
  if (/closed|writeable|not connected|ECONNRESET|EPIPE/i.test(message) || code === 'ECONNRESET') return 'connection lost';
  return message.replace(/\b(?:rediss?:\/\/)\S+/g, '(address hidden)').slice(0, 120);
}

/** The address with its password replaced, for messages and logs. */
function redactedUrl(url: URL): string {
  const copy = new URL(url.href);
  if (copy.password) copy.password = '***';
  return copy.href;
}
