import rateLimit from '@fastify/rate-limit';
import Fastify, { type FastifyError, type FastifyInstance, type FastifyReply, type FastifyRequest } from 'fastify';
import { AnswerSessions, type AnswerSession, type Budgets } from './answer-sessions.ts';
import { InvalidOptionError } from '../shared/errors.ts';
import { BudgetSpentError, ProxyError, SessionStoreUnavailableError } from './errors.ts';
import { notReadNote } from './fence.ts';
import { createFetchLogSink, type FetchLogSink } from './fetch-log.ts';
import type { HtmlToTextLimits } from './html-to-text.ts';
import { createPageConverter, type PageConverter } from './page-converter.ts';
import { crawlLimitsFor, readSite, type CrawlLimits } from './read-site.ts';
import { checkRequestGuard } from './request-guard.ts';
import { systemResolver, type Resolver } from './resolver.ts';
import type { ConnectTarget } from './safe-fetch.ts';
import { RedisSessionStore } from './redis-session-store.ts';
import type { SessionStore } from './session-store.ts';
import type { FetchLike, SearchBackend } from './search-backend.ts';
import { createSearxBackend } from './searx-client.ts';
import { runSearch, type SearchArgs } from './web-search.ts';
import { createWikipediaBackend } from './wikipedia-search.ts';

/** Where the proxy's JSON log lines go. */
export interface LogDestination {
  write(line: string): void;
}

/** Options of {@link createProxy}. Everything reaching outside the process is injectable. */
export interface ProxyOptions {
  /** Name resolver for page reads (default: the system's `getaddrinfo`). Tests inject a fake. */
  resolve?: Resolver;
  /** Extra trusted CA certificates for page reads (tests: their local CA). Verification stays on. */
  ca?: string | Buffer | Array<string | Buffer>;
  /** Test seam: maps a checked public address to a loopback test server. Never set in production. */
  connectTo?: (address: string, family: 4 | 6) => ConnectTarget;
  /** Per-page limit for reads, ms (default 10 s). */
  fetchTimeoutMs?: number;
  /** Body cap for reads, bytes (default 2 MB). */
  maxBodyBytes?: number;
  /** Crawl limits (default: 2 hops, 6 pages, 24 links, 12,000/24,000 characters). */
  crawl?: CrawlLimits;
  /** HTML conversion caps. */
  htmlLimits?: HtmlToTextLimits;
  /**
   * Where fetched pages are turned into text: a pool of worker threads with a time budget per page by
   * default (`createPageConverter()`), so a hostile page cannot stall the server; the proxy closes it.
   */
  converter?: PageConverter;
  /** SearXNG/searx base address; without it the embedded Wikipedia search is used. */
  searxngUrl?: string;
  /** HTTP client for the search backend (default global `fetch`). Tests inject one. */
  searchFetch?: FetchLike;
  /** Wikipedia language edition of the embedded default (default `en`). */
  wikipediaLang?: string;
  /** A ready-made search backend; overrides `searxngUrl`. */
  backend?: SearchBackend;
  /** Results kept per backend query (default 8). */
  maxResultsPerQuery?: number;
  /** Per-answer budgets (default 16 searches, 12 pages). */
  budgets?: Partial<Budgets>;
  /** Answer lifetime and bound of the default in-memory store (default one idle hour, 1,000 answers). */
  sessions?: { ttlMs?: number; maxSessions?: number; maxSessionsPerClient?: number };
  /**
   * Where answers in progress live (default: this process's memory). A {@link RedisSessionStore}
   * shares them between instances behind a balancer; the proxy closes it.
   */
  store?: SessionStore;
  /**
   * Which proxies in front to believe about the client's address (Fastify's `trustProxy`: a hop
   * count, addresses or CIDR ranges). Behind a balancer the rate limit counts per client only with it;
   * default: none (the socket's address).
   */
  trustProxy?: boolean | number | string | readonly string[];
  /** Clock for sessions and logs (default `Date.now`). */
  now?: () => number;
  /** Shared token required on every request when set (`PROXY_TOKEN`). */
  token?: string;
  /** Extra allowed origins (`PROXY_ORIGINS`). */
  origins?: readonly string[];
  /**
   * Per-client rate limit (default 120 requests a minute), or false to disable. With a Redis store
   * its counters live in the same Redis, so every instance counts against one limit.
   */
  rateLimit?: { max: number; timeWindowMs: number } | false;
  /** Largest request body in bytes (default 64 KiB). */
  bodyLimit?: number;
  /** Log destination (default stdout); false for no log at all. */
  log?: LogDestination | false;
  /** Log level (default `info`). */
  logLevel?: string;
  /** Receives each fetch record too (tests); the JSON log line is written either way. */
  onFetch?: FetchLogSink;
}

const ANSWER_ID = { type: 'string', pattern: '^[A-Za-z0-9_-]{16,64}$' } as const;

/**
 * Builds the companion proxy as a Fastify instance (not listening): JSON-schema request validation,
 * per-client rate limiting, pino JSON logs, size-limited bodies and JSON errors with a reason.
 *
 * Routes, all under `/api/`:
 * - `GET  /api/health` → `{ ok, backend, budgets }`
 * - `POST /api/answers { message }` → 201 `{ ok, answer, budget, budgetLine }`
 * - `GET  /api/answers/:answer` → `{ ok, answer, sources, budget, budgetLine }`
 * - `POST /api/search { answer, query, queries?, time_range?, kind? }` → {@link runSearch}'s response
 * - `POST /api/read { answer, url, maxChars? }` → `{ ok, url, pages, failed, budget, budgetLine, text }`
 *   (`maxChars`: what the caller's model reads of `text`; the crawl is sized so it fits whole)
 *
 * Request errors are 4xx `{ ok: false, code, reason }` (400 invalid, 401 token, 403 host/origin,
 * 404 unknown or expired answer, 413 body too large, 415 not JSON, 429 rate limited). A tool that ran
 * and failed — a refused or unreadable page, a spent budget, a search backend down — is a 200 with
 * `{ ok: false, code, reason, text, budget }`, `text` being what the model should read.
 *
 * @param options - see {@link ProxyOptions}.
 *
 * @remarks Security: the proxy's front door. Threats: other sites or strangers driving it (host,
 * origin and token guard, see `checkRequestGuard`), floods (rate limit, 64 KiB bodies, bounded answer
 * sessions), and log leaks (request bodies and page text are never logged; fetches are, rule 8).
 */
export function createProxy(options: ProxyOptions = {}): FastifyInstance {
  const app = fastifyFor(options);
  // JSON only: a text/plain body is what a cross-site form can send without a CORS preflight.
  app.removeContentTypeParser('text/plain');
  const sessions = new AnswerSessions({
    ...options.sessions,
    ...(options.store ? { store: options.store } : {}),
    ...(options.budgets ? { budgets: options.budgets } : {}),
    ...(options.now ? { now: options.now } : {}),
  });
  const converter = options.converter ?? createPageConverter();
  app.addHook('onClose', async () => {
    await sessions.store.close();
  });
  app.addHook('onClose', async () => {
    await converter.close();
  });
  const logSink = createFetchLogSink((record) => {
    const { time, ...rest } = record;
    app.log.info({ ...rest, started: time }, 'fetch');
  });
  const api = new ProxyApi({
    options,
    sessions,
    backend: backendFor(options),
    converter,
    fetchLog: (entry) => {
      logSink(entry);
      options.onFetch?.(entry);
    },
  });
  app.setErrorHandler((error: FastifyError | ProxyError, request, reply) => answerError({ error, request, reply, sessions, bodyLimit: options.bodyLimit }));
  app.setNotFoundHandler((request, reply) => sendError(reply, 404, 'not_found', `no such endpoint: ${request.method} ${request.url.split('?')[0]}`));
  // The guard runs first, on every request: a foreign page's requests are refused before they can
  // count against the rate limit (whose key, the socket address, is loopback for everyone).
  const guard = { ...(options.token ? { token: options.token } : {}), ...(options.origins ? { origins: options.origins } : {}) };
  app.addHook('onRequest', async (request) => {
    checkRequestGuard({ headers: request.headers, remoteAddress: request.socket.remoteAddress }, guard);
  });
  if (options.rateLimit !== false) limitRate(app, options.rateLimit ?? { max: 120, timeWindowMs: 60_000 }, sessions);
  void app.register(async (routes) => api.route(routes));
  return app;
}

/** The Fastify instance with the proxy's logging (answer ids never logged), body limit, proxy trust and request timeout. */
function fastifyFor(options: ProxyOptions): FastifyInstance {
  return Fastify({
    logger:
      options.log === false
        ? false
        : {
            level: options.logLevel ?? 'info',
            stream: options.log ?? process.stdout,
            timestamp: () => `,"time":"${new Date().toISOString()}"`,
            // Answer ids are capabilities (they unlock an answer's seen hosts and budgets): never logged.
            serializers: {
              req: (request: { method?: string; url?: string; hostname?: string; ip?: string }) => ({
                method: request.method,
                url: redactAnswerIds(request.url ?? ''),
                host: request.hostname,
                remoteAddress: request.ip,
              }),
            },
          },
    bodyLimit: options.bodyLimit ?? 64 * 1024,
    trustProxy: trustProxyOf(options.trustProxy),
    return503OnClosing: true,
    // A client that trickles its request may not hold a connection (and a socket) for ever.
    requestTimeout: 60_000,
  });
}

/** The search engine the options name: a given backend, a searx instance, or Wikipedia's search. */
function backendFor(options: ProxyOptions): SearchBackend {
  if (options.backend) return options.backend;
  const common = {
    ...(options.searchFetch ? { fetch: options.searchFetch } : {}),
    ...(options.maxResultsPerQuery ? { maxResults: options.maxResultsPerQuery } : {}),
  };
  return options.searxngUrl
    ? createSearxBackend({ baseUrl: options.searxngUrl, ...common })
    : createWikipediaBackend({ ...(options.wikipediaLang ? { lang: options.wikipediaLang } : {}), ...common });
}

/** Requests per client and window, counted where the answers are kept (Redis shares the counts between instances). */
function limitRate(app: FastifyInstance, limit: { max: number; timeWindowMs: number }, sessions: AnswerSessions): void {
  void app.register(rateLimit, {
    max: limit.max,
    timeWindow: limit.timeWindowMs,
    ...(sessions.store instanceof RedisSessionStore ? { redis: sessions.store.client, nameSpace: `${sessions.store.prefix}rate:` } : {}),
    errorResponseBuilder: (_request, context) => new ProxyError(`too many requests; try again in ${context.after}`, 'rate_limited', 429),
  });
}

/** Every error as the API's `{ ok: false, error, reason }` with its status; an unexpected one logged, without its detail sent. */
function answerError(failure: {
  error: FastifyError | ProxyError;
  request: FastifyRequest;
  reply: FastifyReply;
  sessions: AnswerSessions;
  bodyLimit: number | undefined;
}): FastifyReply {
  const { error, request, reply, sessions } = failure;
  if (error instanceof ProxyError) return sendError(reply, error.status, error.code, error.message);
  // The rate limiter's counters are in the store too: an unreachable Redis is the same 503 there.
  if (sessions.store instanceof RedisSessionStore && sessions.store.isConnectionError(error)) {
    const unavailable = new SessionStoreUnavailableError(sessions.store.describe(error));
    return sendError(reply, unavailable.status, unavailable.code, unavailable.message);
  }
  const fastifyError = error as FastifyError;
  if (fastifyError.validation) return sendError(reply, 400, 'invalid_request', fastifyError.message);
  switch (fastifyError.code) {
    case 'FST_ERR_CTP_BODY_TOO_LARGE':
      return sendError(reply, 413, 'body_too_large', `the request body is larger than ${failure.bodyLimit ?? 64 * 1024} bytes`);
    case 'FST_ERR_CTP_INVALID_MEDIA_TYPE':
      return sendError(reply, 415, 'unsupported_media_type', 'send the request body as application/json');
    case 'FST_ERR_CTP_EMPTY_JSON_BODY':
    case 'FST_ERR_CTP_INVALID_JSON_BODY':
      return sendError(reply, 400, 'invalid_request', 'the request body is not valid JSON');
    default:
      break;
  }
  if (fastifyError.statusCode !== undefined && fastifyError.statusCode >= 400 && fastifyError.statusCode < 500) {
    return sendError(reply, fastifyError.statusCode, 'invalid_request', fastifyError.message);
  }
  request.log.error({ err: { name: error.name, message: error.message } }, 'request failed');
  return sendError(reply, 500, 'internal', 'internal error');
}

/** What the API's endpoints work with. */
interface ProxyApiParts {
  options: ProxyOptions;
  sessions: AnswerSessions;
  backend: SearchBackend;
  converter: PageConverter;
  fetchLog: FetchLogSink;
}

/** The proxy's endpoints, one method each, over the answers, the search engine and the page reader. */
class ProxyApi {
  private readonly searchProbe: { check(): Promise<SearchHealth> };

  constructor(private readonly parts: ProxyApiParts) {
    this.searchProbe = probeOf(parts.backend, parts.options.now ?? Date.now);
  }

  /** Puts each endpoint on its path, with the schema its body must meet. */
  route(api: FastifyInstance): void {
    api.get<{ Querystring: { search?: string } }>('/api/health', (request) => this.health(request.query.search === '1'));
    api.post<{ Body: { message: string } }>('/api/answers', { schema: { body: ANSWER_BODY } }, async (request, reply) =>
      reply.code(201).send(await this.startAnswer(request.body.message, request.ip)),
    );
    api.get<{ Params: { answer: string } }>('/api/answers/:answer', { schema: { params: ANSWER_PARAMS } }, (request) => this.answer(request.params.answer));
    api.post<{ Body: SearchArgs & { answer: string } }>('/api/search', { schema: { body: SEARCH_BODY } }, (request) => this.search(request.body));
    api.post<{ Body: ReadBody }>('/api/read', { schema: { body: READ_BODY } }, (request) => this.read(request.body));
  }

  /**
   * Whether the proxy works; with `probeSearch`, also the search engine (one small query, its answer kept a
   * minute): a page must not offer web search that only fails once the user asks.
   */
  async health(probeSearch: boolean) {
    const { backend, sessions } = this.parts;
    return {
      ok: true,
      backend: backend.name,
      store: sessions.store.kind,
      budgets: sessions.budgets,
      ...(probeSearch ? { search: await this.searchProbe.check() } : {}),
    };
  }

  /** A new answer, its budgets and its id (a capability: whoever holds it spends its budgets). */
  async startAnswer(message: string, client: string) {
    const session = await this.parts.sessions.create(message, client);
    return { ok: true, answer: session.id, budget: session.budget(), budgetLine: session.budgetLine() };
  }

  /** An answer's sources and what is left of its budgets. */
  async answer(id: string) {
    const session = await this.parts.sessions.get(id);
    return { ok: true, answer: session.id, sources: await session.sources(), budget: session.budget(), budgetLine: session.budgetLine() };
  }

  /** A search of the answer's, within its budget; a refusal the model should read comes back as a tool failure. */
  async search(body: SearchArgs & { answer: string }) {
    const session = await this.parts.sessions.get(body.answer);
    try {
      return await runSearch(session, body, this.parts.backend);
    } catch (error) {
      if (error instanceof ProxyError && error.status === 200) return toolFailure(session, error.code, error.message, error.message);
      throw error;
    }
  }

  /** Reads a page (and the pages it leads to, within the crawl's limits) for the answer, under every fetch rule. */
  async read(body: ReadBody) {
    const { options, converter, fetchLog } = this.parts;
    const session = await this.parts.sessions.get(body.answer);
    if (!(await session.takePage())) {
      const spent = new BudgetSpentError(`The page budget is spent (${session.budgets.pages} of ${session.budgets.pages} read): answer from what you have.`);
      return toolFailure(session, spent.code, spent.message, spent.message);
    }
    const result = await readSite(body.url, {
      seen: session,
      resolve: options.resolve ?? systemResolver,
      ...(options.ca !== undefined ? { ca: options.ca } : {}),
      ...(options.connectTo ? { connectTo: options.connectTo } : {}),
      ...(options.fetchTimeoutMs !== undefined ? { timeoutMs: options.fetchTimeoutMs } : {}),
      ...(options.maxBodyBytes !== undefined ? { maxBytes: options.maxBodyBytes } : {}),
      ...(options.now ? { now: options.now } : {}),
      ...(body.maxChars ? crawlLimitsFor(body.maxChars, options.crawl) : options.crawl),
      ...(options.htmlLimits ? { htmlLimits: options.htmlLimits } : {}),
      converter,
      log: fetchLog,
      // The fetch log correlates the hops of one answer by its tag, never by its id (a capability).
      answer: session.logTag,
      number: async (url, title) => (await session.number([{ url, title }]))[0],
    });
    await session.save();
    if (!result.ok) {
      // A read refused before any request went out (rule 1, the URL rules, a non-public address)
      // does not use up the page budget; one that reached a site does, whatever came next (a
      // refused redirect, too many redirects, an error), or a site could be hit without limit.
      if (!result.contacted) await session.refundPage();
      return {
        ...toolFailure(session, result.code, result.reason, notReadNote(result.url, result.reason)),
        url: result.url,
        failed: result.failures,
      };
    }
    return {
      ok: true,
      url: result.url,
      pages: result.pages.map((page) => ({
        n: page.n,
        url: page.url,
        finalUrl: page.finalUrl,
        title: page.title,
        hop: page.hop,
        chars: page.text.length,
        omittedChars: page.omittedChars,
        text: page.text,
        fenced: page.fenced,
      })),
      failed: result.failures,
      budget: session.budget(),
      budgetLine: session.budgetLine(),
      text: `${result.text}\n\n${session.budgetLine()}`,
    };
  }
}

/** `/api/read`'s body. */
interface ReadBody {
  answer: string;
  url: string;
  maxChars?: number;
}

const ANSWER_BODY = {
  type: 'object',
  required: ['message'],
  additionalProperties: false,
  properties: { message: { type: 'string', maxLength: 20_000 } },
} as const;

const ANSWER_PARAMS = { type: 'object', required: ['answer'], properties: { answer: ANSWER_ID } } as const;

const SEARCH_BODY = {
  type: 'object',
  required: ['answer', 'query'],
  additionalProperties: false,
  properties: {
    answer: ANSWER_ID,
    query: { type: 'string', minLength: 1, maxLength: 500 },
    queries: { type: 'array', maxItems: 3, items: { type: 'string', minLength: 1, maxLength: 500 } },
    time_range: { type: ['string', 'null'], maxLength: 40 },
    kind: { type: ['string', 'null'], maxLength: 40 },
  },
} as const;

const READ_BODY = {
  type: 'object',
  required: ['answer', 'url'],
  additionalProperties: false,
  properties: {
    answer: ANSWER_ID,
    url: { type: 'string', minLength: 1, maxLength: 2048 },
    // What the caller's model will read of the result: the crawl is sized so the result fits whole.
    maxChars: { type: 'integer', minimum: 1000, maximum: 1_000_000 },
  },
} as const;

/** Fastify's `trustProxy` from the option: a hop count becomes "trust the nearest N hops", as Fastify's docs define it. */
function trustProxyOf(trust: ProxyOptions['trustProxy']): boolean | string | string[] | ((address: string, hop: number) => boolean) {
  if (trust === undefined) return false;
  // As PROXY_TRUST_PROXY=true is refused: trusting every hop lets any client name its own address in
  // X-Forwarded-For, and so pick the key its rate limit and its share of answers are counted under.
  if (trust === true)
    throw new InvalidOptionError('trustProxy', true, ['1 (a hop count: the balancers in front)', '10.0.0.0/8 (their addresses or CIDR ranges)', 'false']);
  if (typeof trust === 'number') return (_address, hop) => hop < trust;
  return typeof trust === 'string' || typeof trust === 'boolean' ? trust : [...trust];
}

/** Answer ids in a request path, replaced by a marker: `/api/answers/<id>` → `/api/answers/:answer`. */
function redactAnswerIds(url: string): string {
  const path = url.split('?')[0] ?? '';
  return path.replace(/^\/api\/answers\/[^/]+/, '/api/answers/:answer');
}

function toolFailure(session: AnswerSession, code: string, reason: string, text: string) {
  return { ok: false as const, code, reason, budget: session.budget(), budgetLine: session.budgetLine(), text: `${text}\n\n${session.budgetLine()}` };
}

function sendError(reply: FastifyReply, status: number, code: string, reason: string): FastifyReply {
  return reply.code(status).type('application/json; charset=utf-8').send({ ok: false, code, reason });
}

/** Whether the search engine answers, as `GET /api/health?search=1` reports it. */
type SearchHealth = { ok: true } | { ok: false; reason: string };

/** How long one answer of the search engine about its health is kept. */
const SEARCH_PROBE_TTL_MS = 60_000;

/** One small query, at most once a minute however many pages ask; concurrent askers share it. */
function probeOf(backend: SearchBackend, now: () => number): { check(): Promise<SearchHealth> } {
  let last: { at: number; result: Promise<SearchHealth> } | undefined;
  return {
    check() {
      if (last && now() - last.at < SEARCH_PROBE_TTL_MS) return last.result;
      const result = backend.search('weather', { signal: AbortSignal.timeout(5_000) }).then(
        (): SearchHealth => ({ ok: true }),
        (error: unknown): SearchHealth => ({ ok: false, reason: error instanceof Error ? error.message : String(error) }),
      );
      last = { at: now(), result };
      return result;
    },
  };
}
