import { oneLine } from './one-line.ts';

/** Most characters of a title the ledger keeps. */
const LEDGER_TITLE_CHARS = 200;

/** One numbered source. */
export interface LedgerEntry {
  /** The number to cite, from 1. */
  n: number;
  /** The address, fragment removed. */
  url: string;
  /** The best title known for it. */
  title: string;
}

/**
 * Numbers every source an answer sees, from 1, once per address: the same address found by two
 * searches, or read later, keeps its first number, and numbers never change, so an answer can cite
 * [7] for a source found in the second round. Bounded: past `capacity` entries new addresses get no
 * number (the answer already has more sources than it can cite).
 */
export class SourceLedger {
  readonly #byUrl = new Map<string, LedgerEntry>();
  readonly #capacity: number;

  /** @param capacity - the most addresses kept (default 500). */
  constructor(capacity = 500) {
    this.#capacity = capacity;
  }

  /**
   * The address's number, assigning the next one if it is new. Undefined when the ledger is full.
   * @param url - an absolute address; its fragment is ignored.
   * @param title - a title to remember (the first non-empty one is kept).
   */
  number(url: string, title = ''): number | undefined {
    const key = ledgerKey(url);
    // Titles come from pages and search engines, and end up in the "Sources found" turn: one line, capped.
    title = oneLine(title, LEDGER_TITLE_CHARS);
    const known = this.#byUrl.get(key);
    if (known) {
      if (!known.title && title) known.title = title;
      return known.n;
    }
    if (this.#byUrl.size >= this.#capacity) return undefined;
    const entry: LedgerEntry = { n: this.#byUrl.size + 1, url: key, title };
    this.#byUrl.set(key, entry);
    return entry.n;
  }

  /** The number of an address already in the ledger, without adding it. */
  lookup(url: string): number | undefined {
    return this.#byUrl.get(ledgerKey(url))?.n;
  }

  /** Every entry, in number order. */
  entries(): LedgerEntry[] {
    return [...this.#byUrl.values()].map((entry) => ({ ...entry }));
  }

  /** How many addresses are numbered. */
  get size(): number {
    return this.#byUrl.size;
  }
}

/**
 * The ledger's identity for an address: parsed, fragment removed. Unparsable text is kept as is.
 * @param url - an address.
 */
export function ledgerKey(url: string): string {
  try {
    const parsed = new URL(url.trim());
    parsed.hash = '';
    return parsed.href;
  } catch {
    return url.trim();
  }
}
