import { createHash } from 'node:crypto';
import { type LedgerEntry, SourceLedger } from './source-ledger.ts';
import { clientNetwork } from './address-ranges.ts';

/** The two budgets an answer spends. */
export type BudgetName = 'searches' | 'pages';

/** What a store holds of one answer when a request opens it. */
export interface SessionSnapshot {
  /** The budgets the answer started with (kept with it, so every instance counts against the same ones). */
  limits: Readonly<Record<BudgetName, number>>;
  /** Budget used so far. */
  used: Readonly<Record<BudgetName, number>>;
  /** Digests of the addresses the answer has seen (rule 1). */
  seen: ReadonlySet<string>;
  /** Hosts of those addresses, only to word a refusal. */
  hosts: ReadonlySet<string>;
}

/** A seen address as a store keeps it: its digest and its host. */
export interface SeenEntry {
  digest: string;
  host: string;
}

/**
 * Where answers in progress live: one process's memory ({@link MemorySessionStore}, the default) or
 * Redis, shared by every instance behind a balancer. Answers are stored under {@link answerKey} of
 * their id, never the id. Every operation that spends or numbers is atomic in the store, so
 * instances serving one answer at once still stop at exactly its budget.
 *
 * Methods that find no answer under a key (unknown, expired, dropped) return undefined; a store that
 * cannot be reached throws {@link SessionStoreUnavailableError}.
 */
export interface SessionStore {
  /** What this store is, for the health route and the logs (`memory`, `redis`). */
  readonly kind: string;
  /**
   * Stores a new answer: its budgets and the addresses its user message held. With an `owner` (a digest
   * of the client that asked, see {@link clientKey}), that client's least recently used answer is dropped
   * first once it holds its share ({@link SessionStoreLimits.maxSessionsPerClient}), so no client can
   * push out the others' answers.
   */
  create(key: string, limits: Readonly<Record<BudgetName, number>>, seen: readonly SeenEntry[], owner?: string): Promise<void>;
  /** The answer's state, its idle time restarted; undefined when there is none. */
  open(key: string): Promise<SessionSnapshot | undefined>;
  /** Adds seen addresses, up to the per-answer bound. */
  addSeen(key: string, entries: readonly SeenEntry[]): Promise<void>;
  /**
   * Records addresses as read, atomically: for each digest, whether this is its first read in the answer
   * (so two reads of one address at once still count as one and a repeat); undefined when the answer is gone.
   */
  markRead(key: string, digests: readonly string[]): Promise<boolean[] | undefined>;
  /**
   * Takes up to `wanted` of a budget (negative: gives back, never below zero), atomically.
   * @returns how many were granted and the budget used after it; undefined when the answer is gone.
   */
  take(key: string, budget: BudgetName, wanted: number): Promise<{ granted: number; used: number } | undefined>;
  /**
   * Numbers sources in the answer's ledger, atomically: a known address keeps its number, a new one
   * gets the next, none past the ledger's capacity (undefined there).
   */
  number(key: string, sources: readonly { url: string; title: string }[]): Promise<(number | undefined)[] | undefined>;
  /** The ledger, in number order; undefined when the answer is gone. */
  sources(key: string): Promise<LedgerEntry[] | undefined>;
  /** Releases connections. */
  close(): Promise<void>;
}

/** Bounds and lifetime every store applies. */
export interface SessionStoreLimits {
  /** Idle time after which an answer expires (default one hour). */
  ttlMs?: number;
  /** Most answers kept; the least recently used is dropped first (default 1,000). */
  maxSessions?: number;
  /**
   * Most answers one client keeps (default a tenth of `maxSessions`, 100): past it, its own least
   * recently used answer is dropped, never another client's.
   */
  maxSessionsPerClient?: number;
  /** Most addresses one answer may accumulate as seen (default 5,000). */
  maxSeenAddresses?: number;
  /** Most sources one answer's ledger numbers (default 500). */
  ledgerCapacity?: number;
}

/** The limits with their defaults filled in. */
export function storeLimits(limits: SessionStoreLimits = {}): Required<SessionStoreLimits> {
  return {
    ttlMs: limits.ttlMs ?? 60 * 60 * 1000,
    maxSessions: Math.max(1, limits.maxSessions ?? 1000),
    maxSessionsPerClient: Math.max(1, limits.maxSessionsPerClient ?? Math.ceil((limits.maxSessions ?? 1000) / 10)),
    maxSeenAddresses: Math.max(0, limits.maxSeenAddresses ?? 5000),
    ledgerCapacity: limits.ledgerCapacity ?? 500,
  };
}

/**
 * The key an answer is stored under: a hash of its id. The id is a capability (whoever sends it
 * spends the answer's budgets and reads what its seen addresses allow); a reader of the store sees
 * only hashes, from which no id follows.
 * @param id - the answer id the browser holds.
 */
export function answerKey(id: string): string {
  return createHash('sha256').update(`nexus-answer:${id}`).digest('base64url');
}

/**
 * Whose answer it is, as a store keeps it: a digest of the client's network (its IPv4 /24 or IPv6 /56,
 * see {@link clientNetwork}; the address as the rate limit sees it), so the addresses one party holds in
 * a block share one client's share, and a store holds no client addresses.
 * @param address - the client's address.
 */
export function clientKey(address: string): string {
  const digest = (network: string) => createHash('sha256').update(`nexus-client:${network}`).digest('base64url').slice(0, 22);
  // `<wide block>.<network>`: the share counts the network, a full store drops from the block holding the most.
  return `${digest(clientNetwork(address, { wide: true }))}.${digest(clientNetwork(address))}`;
}

/** The wide block of an owner key ({@link clientKey}): the part before its `.`. */
const blockOf = (owner: string | undefined) => owner?.split('.')[0];

/** One answer in memory. */
interface MemoryAnswer {
  owner: string | undefined;
  limits: Readonly<Record<BudgetName, number>>;
  used: Record<BudgetName, number>;
  seen: Set<string>;
  hosts: Set<string>;
  read: Set<string>;
  ledger: SourceLedger;
  lastUsed: number;
}

/**
 * Answers in this process's memory: expired after an idle `ttlMs`, at most `maxSessions` of them (the least
 * recently used of the wide block holding the most dropped first). Right for one instance; several instances each
 * have their own.
 */
export class MemorySessionStore implements SessionStore {
  readonly kind = 'memory';
  /** In last-use order: expired answers are all at the front. */
  readonly #answers = new Map<string, MemoryAnswer>();
  readonly #limits: Required<SessionStoreLimits>;
  readonly #now: () => number;

  /** @param options - bounds, lifetime and clock (default `Date.now`). */
  constructor(options: SessionStoreLimits & { now?: () => number } = {}) {
    this.#limits = storeLimits(options);
    this.#now = options.now ?? Date.now;
  }

  /** How many answers are held. */
  get size(): number {
    return this.#answers.size;
  }

  async create(key: string, limits: Readonly<Record<BudgetName, number>>, seen: readonly SeenEntry[], owner?: string): Promise<void> {
    this.#sweep();
    if (owner !== undefined) {
      // In last-use order, so the first of the owner's is its least recently used.
      const own = [...this.#answers].filter(([, answer]) => answer.owner === owner).map(([k]) => k);
      for (const k of own.slice(0, Math.max(0, own.length - this.#limits.maxSessionsPerClient + 1))) this.#answers.delete(k);
    }
    while (this.#answers.size >= this.#limits.maxSessions) {
      const victim = this.#fromTheMostHeld();
      if (victim === undefined) break;
      this.#answers.delete(victim);
    }
    const answer: MemoryAnswer = {
      owner,
      limits,
      used: { searches: 0, pages: 0 },
      seen: new Set(),
      hosts: new Set(),
      read: new Set(),
      ledger: new SourceLedger(this.#limits.ledgerCapacity),
      lastUsed: this.#now(),
    };
    this.#answers.set(key, answer);
    this.#addSeen(answer, seen);
  }

  async open(key: string): Promise<SessionSnapshot | undefined> {
    const answer = this.#find(key);
    if (!answer) return undefined;
    answer.lastUsed = this.#now();
    this.#answers.delete(key);
    this.#answers.set(key, answer);
    return { limits: answer.limits, used: { ...answer.used }, seen: answer.seen, hosts: answer.hosts };
  }

  async addSeen(key: string, entries: readonly SeenEntry[]): Promise<void> {
    const answer = this.#find(key);
    if (answer) this.#addSeen(answer, entries);
  }

  async markRead(key: string, digests: readonly string[]): Promise<boolean[] | undefined> {
    const answer = this.#find(key);
    if (!answer) return undefined;
    return digests.map((digest) => {
      if (answer.read.has(digest)) return false;
      // Bounded as seen addresses are: an answer reads only addresses it has seen.
      if (answer.read.size < this.#limits.maxSeenAddresses) answer.read.add(digest);
      return true;
    });
  }

  async take(key: string, budget: BudgetName, wanted: number): Promise<{ granted: number; used: number } | undefined> {
    const answer = this.#find(key);
    if (!answer) return undefined;
    const granted = grant(answer.used[budget], answer.limits[budget], wanted);
    answer.used[budget] += granted;
    return { granted, used: answer.used[budget] };
  }

  async number(key: string, sources: readonly { url: string; title: string }[]): Promise<(number | undefined)[] | undefined> {
    const answer = this.#find(key);
    return answer ? sources.map((source) => answer.ledger.number(source.url, source.title)) : undefined;
  }

  async sources(key: string): Promise<LedgerEntry[] | undefined> {
    return this.#find(key)?.ledger.entries();
  }

  async close(): Promise<void> {
    this.#answers.clear();
  }

  #find(key: string): MemoryAnswer | undefined {
    const answer = this.#answers.get(key);
    if (answer && this.#now() - answer.lastUsed > this.#limits.ttlMs) {
      this.#answers.delete(key);
      return undefined;
    }
    return answer;
  }

  #addSeen(answer: MemoryAnswer, entries: readonly SeenEntry[]): void {
    for (const { digest, host } of entries) {
      if (answer.seen.has(digest)) continue;
      if (answer.seen.size >= this.#limits.maxSeenAddresses) return;
      answer.seen.add(digest);
      answer.hosts.add(host);
    }
  }

  /**
   * The answer a full store drops: the least recently used of the wide block (IPv4 /16, IPv6 /48) holding the most
   * (issue 67, L6). Dropping the least recently used of all let ten networks of one block, each within its share,
   * push out every other client's answer; with every block holding as many, it is the least recently used of all.
   */
  #fromTheMostHeld(): string | undefined {
    const held = new Map<string | undefined, { count: number; oldest: string }>();
    for (const [key, answer] of this.#answers) {
      const block = held.get(blockOf(answer.owner));
      if (block) block.count += 1;
      else held.set(blockOf(answer.owner), { count: 1, oldest: key });
    }
    let most: { count: number; oldest: string } | undefined;
    for (const block of held.values()) if (!most || block.count > most.count) most = block;
    return most?.oldest;
  }

  #sweep(): void {
    const now = this.#now();
    for (const [key, answer] of this.#answers) {
      if (now - answer.lastUsed <= this.#limits.ttlMs) break;
      this.#answers.delete(key);
    }
  }
}

/**
 * How much of a budget a take grants: up to what is left, and a give-back (negative `wanted`) never
 * below zero used. The Redis store's script computes the same.
 */
function grant(used: number, limit: number, wanted: number): number {
  return wanted >= 0 ? Math.max(0, Math.min(wanted, limit - used)) : -Math.min(used, -wanted);
}
