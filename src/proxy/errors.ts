import { NexusError } from '../shared/errors.ts';

/**
 * Machine-readable codes the proxy answers with, in a JSON body `{ ok: false, code, reason }`.
 * The HTTP status says whether the request itself was wrong (4xx) or the tool ran and failed (200).
 */
export type ProxyErrorCode =
  | 'invalid_request'
  | 'unauthorized'
  | 'forbidden_origin'
  | 'navigation_refused'
  | 'unknown_answer'
  | 'body_too_large'
  | 'unsupported_media_type'
  | 'rate_limited'
  | 'not_found'
  | 'internal'
  | 'refused'
  | 'fetch_failed'
  | 'budget_spent'
  | 'search_failed'
  | 'store_unavailable';

/**
 * Base class of every error the companion proxy throws on purpose. Carries a {@link ProxyErrorCode}
 * and the HTTP status the API answers it with; the message is one sentence meant to be shown to the
 * model or the user as the reason.
 */
export class ProxyError extends NexusError {
  override readonly name: string = 'ProxyError';
  /** Stable machine-readable code of this failure. */
  readonly code: ProxyErrorCode;
  /** HTTP status the API uses for this failure. */
  readonly status: number;

  /**
   * @param message - the reason, one sentence.
   * @param code - the machine-readable code.
   * @param status - the HTTP status for the API response.
   */
  constructor(message: string, code: ProxyErrorCode, status: number) {
    super(message);
    this.code = code;
    this.status = status;
  }
}

/**
 * A page read was refused by a safety rule: the address is not in this answer's search results
 * (rule 1), not public (rule 2), breaks the URL rules, or a redirect led somewhere refused (rule 4).
 * `contacted` says whether a site had already answered before the refusal (a refused redirect):
 * such a read has cost the site a request, and spends its page.
 */
export class AddressRefusedError extends ProxyError {
  override readonly name = 'AddressRefusedError';
  /** True when a request had already reached a site (the refusal came on a redirect). */
  readonly contacted: boolean;
  /**
   * @param reason - why the address was refused, naming the rule's subject (host, address, port…).
   * @param contacted - whether a site was contacted before the refusal (default false).
   */
  constructor(reason: string, contacted = false) {
    super(reason, 'refused', 200);
    this.contacted = contacted;
  }
}

/** A page read that was allowed but did not produce a usable page: timeout, HTTP error, wrong type, block page. */
export class FetchFailedError extends ProxyError {
  override readonly name = 'FetchFailedError';
  /** @param reason - what went wrong, one sentence. */
  constructor(reason: string) {
    super(reason, 'fetch_failed', 200);
  }
}

/** An answer id that was never issued or has expired (sessions last an hour and are LRU-bounded). */
export class AnswerNotFoundError extends ProxyError {
  override readonly name = 'AnswerNotFoundError';
  constructor() {
    super('This answer id is unknown or has expired; start a new answer with POST /api/answers.', 'unknown_answer', 404);
  }
}

/** The answer has used all its searches or page reads. */
export class BudgetSpentError extends ProxyError {
  override readonly name = 'BudgetSpentError';
  /** @param reason - which budget is spent, e.g. "The search budget is spent (16 of 16 used)." */
  constructor(reason: string) {
    super(reason, 'budget_spent', 200);
  }
}

/** The search backend (SearXNG/searx, or the embedded Wikipedia default) could not be queried. */
export class SearchFailedError extends ProxyError {
  override readonly name = 'SearchFailedError';
  /** @param reason - what went wrong with the backend, without any secret configuration. */
  constructor(reason: string) {
    super(reason, 'search_failed', 200);
  }
}

/**
 * The store that holds answers in progress (Redis, with `REDIS_URL`) cannot be reached. Answered with
 * 503 and a reason the model can read; the proxy never falls back to its own memory, which would
 * count the budgets again from zero on each instance.
 */
export class SessionStoreUnavailableError extends ProxyError {
  override readonly name = 'SessionStoreUnavailableError';
  /** @param detail - what failed (a connection error), without any address or password. */
  constructor(detail: string) {
    super(
      `The web tools are briefly unavailable: the proxy's answer store (Redis) cannot be reached (${detail}). Try the search or read again in a moment, or answer from what you have.`,
      'store_unavailable',
      503,
    );
  }
}
