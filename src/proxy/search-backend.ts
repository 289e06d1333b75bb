import type { TimeRange } from './time-range.ts';

/** One search result as a backend reports it, before numbering. */
export interface SearchHit {
  /** The result's title (plain text). */
  title: string;
  /** The result's absolute http(s) address. */
  url: string;
  /** The result's snippet (plain text, not yet capped). */
  snippet: string;
  /** The engine that found it. */
  engine: string;
  /** Publication date: ISO `YYYY-MM-DD` when known, else the engine's display string, else null. */
  date: string | null;
}

/** An engine that did not answer, and why (SearXNG's `unresponsive_engines` pairs). */
export interface UnresponsiveEngine {
  engine: string;
  reason: string;
}

/** What one backend query returns. */
export interface BackendResult {
  hits: SearchHit[];
  /** Direct answers the backend offers, as strings. */
  answers: string[];
  unresponsive: UnresponsiveEngine[];
  /** The engines' own estimate of the total, when the backend reports one. */
  numberOfResults?: number;
}

/** Per-query options a backend receives. */
export interface BackendQueryOptions {
  timeRange?: TimeRange;
  signal?: AbortSignal;
}

/** A search backend: SearXNG/searx, or the embedded Wikipedia default. */
export interface SearchBackend {
  /** `searxng` or `wikipedia`. */
  readonly name: 'searxng' | 'wikipedia';
  /** A sentence every search response carries about this backend, if any. */
  readonly note?: string;
  /** Runs one query. Throws `SearchFailedError` when the backend cannot be queried. */
  search(query: string, options?: BackendQueryOptions): Promise<BackendResult>;
}

/** The `fetch` a backend uses; tests inject one so nothing leaves the machine. */
export type FetchLike = (input: string, init?: RequestInit) => Promise<Response>;
