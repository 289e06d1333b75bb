import { NexusError, registerErrorClass } from '../shared/errors.ts';

/** Searches and page reads left in an answer. */
export interface Budget {
  searches: { used: number; limit: number };
  pages: { used: number; limit: number };
}

/** A numbered source of an answer. */
export interface Source {
  n: number;
  url: string;
  title: string;
  date?: string;
}

/** What the proxy returns for a search or a read: the text the model reads, and the data the page shows. */
export interface ToolReply {
  ok: boolean;
  /** Why it failed (`budget_spent`, `refused`, `fetch_failed`, …), when it did. */
  code?: string;
  /** What the model reads (fenced page text, numbered results, notes, the budget line). */
  text: string;
  budget?: Budget;
  [key: string]: unknown;
}

/** Thrown when the proxy cannot be reached or refuses a request; the message says what to do. */
export class ProxyUnavailableError extends NexusError {
  override readonly name = 'ProxyUnavailableError';
}

registerErrorClass(ProxyUnavailableError, 'ProxyUnavailableError');

/** What `GET /api/health` answers. */
export interface ProxyHealth {
  ok: boolean;
  backend?: string;
  /** Asked for with `?search=1`: whether the search engine behind the proxy answers. */
  search?: { ok: boolean; reason?: string };
}

/** The proxy's API on the page's own origin (`/api` by default). The browser never fetches third-party pages itself. */
export class ProxyClient {
  constructor(
    private readonly baseUrl = '/api',
    private readonly fetchImpl: typeof fetch = (input, init) => globalThis.fetch(input, init),
  ) {}

  /**
   * Whether the proxy answers, and which search backend it uses; with `search`, whether that
   * backend answers too (the proxy asks it, at most once a minute).
   */
  async health(signal?: AbortSignal, options: { search?: boolean } = {}): Promise<ProxyHealth> {
    return (await this.request('GET', options.search ? '/health?search=1' : '/health', undefined, signal)) as ProxyHealth;
  }

  /** Starts an answer session for the user's message; returns its id. */
  async startAnswer(message: string, signal?: AbortSignal): Promise<string> {
    const reply = (await this.request('POST', '/answers', { message }, signal)) as { answer: string };
    return reply.answer;
  }

  /** The answer's source ledger. */
  async sources(answer: string, signal?: AbortSignal): Promise<Source[]> {
    const reply = (await this.request('GET', `/answers/${encodeURIComponent(answer)}`, undefined, signal)) as {
      sources?: { n: number; url: string; title?: string; date?: string | null }[];
    };
    return (reply.sources ?? []).map((s) => ({ n: s.n, url: s.url, title: s.title || s.url, ...(s.date ? { date: s.date } : {}) }));
  }

  search(body: { answer: string; query: string; queries?: string[]; time_range?: string; kind?: string }, signal?: AbortSignal): Promise<ToolReply> {
    return this.request('POST', '/search', body, signal) as Promise<ToolReply>;
  }

  read(body: { answer: string; url: string; maxChars?: number }, signal?: AbortSignal): Promise<ToolReply> {
    return this.request('POST', '/read', body, signal) as Promise<ToolReply>;
  }

  private async request(method: 'GET' | 'POST', path: string, body: unknown, signal?: AbortSignal): Promise<unknown> {
    let response: Response;
    try {
      response = await this.fetchImpl(`${this.baseUrl}${path}`, {
        method,
        ...(body === undefined ? {} : { body: JSON.stringify(body), headers: { 'content-type': 'application/json' } }),
        ...(signal ? { signal } : {}),
      });
    } catch (error) {
      if ((error as { name?: string }).name === 'AbortError') throw error;
      throw new ProxyUnavailableError(
        `The web proxy at ${this.baseUrl} could not be reached (${error instanceof Error ? error.message : String(error)}). Start the app with npm start, which serves it.`,
      );
    }
    const type = response.headers.get('content-type') ?? '';
    if (!type.includes('application/json')) {
      throw new ProxyUnavailableError(
        `${this.baseUrl}${path} answered ${response.status} with ${type || 'no content type'}, not the proxy's JSON: the web proxy is not running on this origin. Start the app with npm start.`,
      );
    }
    const data = (await response.json()) as { ok?: boolean; reason?: string; code?: string };
    if (!response.ok)
      throw new ProxyUnavailableError(
        `The web proxy refused ${path} (${response.status}${data.code ? ` ${data.code}` : ''}): ${data.reason ?? 'no reason given'}.`,
      );
    return data;
  }
}
