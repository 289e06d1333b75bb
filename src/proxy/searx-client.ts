import { SearchFailedError } from './errors.ts';
import { oneLine } from './one-line.ts';
import type { BackendQueryOptions, BackendResult, FetchLike, SearchBackend, SearchHit, UnresponsiveEngine } from './search-backend.ts';

/** Options of {@link createSearxBackend}. */
export interface SearxOptions {
  /** The instance's base address, e.g. `http://127.0.0.1:8888` (set by the operator, never by a model). */
  baseUrl: string;
  /** The HTTP client (default the global `fetch`). */
  fetch?: FetchLike;
  /** Per-query timeout (default 8 s). */
  timeoutMs?: number;
  /** Most results kept per query (default 8). */
  maxResults?: number;
}

/** Largest JSON answer read from the instance. */
const MAX_RESPONSE_CHARS = 5_000_000;

/**
 * A search backend for SearXNG's (or the older searx's) JSON API: `GET /search?q=…&format=json`,
 * plus `time_range` when one is set.
 *
 * Both response shapes are read: `publishedDate` as ISO-8601 (SearXNG) or a display string with a
 * machine `pubdate` (searx 1.x); `answers` as strings or `{ answer }` objects; `number_of_results`
 * optional; `unresponsive_engines` as `[name, reason]` pairs. HTTP 200 with no results is "no
 * results", not an error; 403 means the instance does not allow JSON output.
 *
 * @param options - the instance address, client, timeout and result cap.
 */
export function createSearxBackend(options: SearxOptions): SearchBackend {
  const base = options.baseUrl.replace(/\/+$/, '');
  const doFetch: FetchLike = options.fetch ?? ((input, init) => fetch(input, init));
  const timeoutMs = options.timeoutMs ?? 8_000;
  const maxResults = options.maxResults ?? 8;
  return {
    name: 'searxng',
    async search(query: string, queryOptions: BackendQueryOptions = {}): Promise<BackendResult> {
      const url = new URL(`${base}/search`);
      url.searchParams.set('q', query);
      url.searchParams.set('format', 'json');
      url.searchParams.set('pageno', '1');
      if (queryOptions.timeRange) url.searchParams.set('time_range', queryOptions.timeRange);
      const signal = queryOptions.signal ? AbortSignal.any([queryOptions.signal, AbortSignal.timeout(timeoutMs)]) : AbortSignal.timeout(timeoutMs);
      let response: Response;
      try {
        response = await doFetch(url.href, { headers: { accept: 'application/json' }, signal, redirect: 'error' });
      } catch (error) {
        const timedOut = (error as { name?: string } | null)?.name === 'TimeoutError';
        throw new SearchFailedError(timedOut ? `the search engine did not answer within ${timeoutMs / 1000} s` : 'the search engine could not be reached');
      }
      if (response.status === 403) throw new SearchFailedError('the search engine refused JSON output (enable "json" in its search.formats setting)');
      if (!response.ok) throw new SearchFailedError(`the search engine answered HTTP ${response.status}`);
      const body = await response.text();
      if (body.length > MAX_RESPONSE_CHARS) throw new SearchFailedError('the search engine sent an oversized answer');
      let data: unknown;
      try {
        data = JSON.parse(body);
      } catch {
        throw new SearchFailedError('the search engine did not answer JSON');
      }
      return parseSearxResponse(data, maxResults);
    },
  };
}

/**
 * Reads a SearXNG or searx JSON answer into a {@link BackendResult}. Tolerant: unknown or malformed
 * entries are skipped, never thrown on.
 * @param data - the parsed JSON.
 * @param maxResults - most hits kept.
 */
export function parseSearxResponse(data: unknown, maxResults = 8): BackendResult {
  const root = (typeof data === 'object' && data !== null ? data : {}) as Record<string, unknown>;
  const hits: SearchHit[] = [];
  for (const item of asArray(root.results)) {
    if (hits.length >= maxResults) break;
    if (typeof item !== 'object' || item === null) continue;
    const result = item as Record<string, unknown>;
    const url = typeof result.url === 'string' ? result.url.trim() : '';
    if (!/^https?:\/\//i.test(url)) continue;
    try {
      new URL(url);
    } catch {
      continue;
    }
    const engines = asArray(result.engines).filter((e): e is string => typeof e === 'string');
    hits.push({
      title: text(result.title) || url,
      url,
      snippet: text(result.content),
      engine: text(result.engine, 60) || text(engines[0], 60) || 'unknown',
      date: resultDate(result.publishedDate, result.pubdate),
    });
  }
  const answers: string[] = [];
  for (const answer of asArray(root.answers)) {
    const value = typeof answer === 'string' ? answer : text((answer as Record<string, unknown> | null)?.answer);
    if (value) answers.push(text(value, 500));
  }
  const unresponsive: UnresponsiveEngine[] = [];
  for (const entry of asArray(root.unresponsive_engines)) {
    if (Array.isArray(entry) && typeof entry[0] === 'string') {
      const engine = text(entry[0], 60);
      if (engine) unresponsive.push({ engine, reason: text(entry[1], 200) || 'no reason given' });
    } else if (typeof entry === 'object' && entry !== null) {
      const record = entry as Record<string, unknown>;
      const engine = text(record.engine, 60) || text(record.name, 60);
      if (engine) unresponsive.push({ engine, reason: text(record.error, 200) || text(record.reason, 200) || 'no reason given' });
    }
  }
  const result: BackendResult = { hits, answers, unresponsive };
  if (typeof root.number_of_results === 'number' && Number.isFinite(root.number_of_results)) {
    result.numberOfResults = root.number_of_results;
  }
  return result;
}

/**
 * A result's date: `publishedDate` when it is ISO-8601 (SearXNG), else searx's machine `pubdate`
 * ("%Y-%m-%d %H:%M:%S%z"), as `YYYY-MM-DD`; else the display string searx wrote ("Jan 5, 2023",
 * "3 hour(s), 2 minute(s) ago"); else null.
 * @param publishedDate - the result's `publishedDate`.
 * @param pubdate - the result's `pubdate`.
 */
export function resultDate(publishedDate: unknown, pubdate: unknown): string | null {
  const iso = isoDay(publishedDate) ?? isoDay(pubdate);
  if (iso) return iso;
  const display = oneLine(publishedDate, 60);
  return display || null;
}

function isoDay(value: unknown): string | undefined {
  if (typeof value !== 'string') return undefined;
  const match = /^(\d{4})-(\d{2})-(\d{2})(?:$|[T ])/.exec(value.trim());
  if (!match) return undefined;
  const [, y, m, d] = match;
  const month = Number(m);
  const day = Number(d);
  if (month < 1 || month > 12 || day < 1 || day > 31) return undefined;
  return `${y}-${m}-${d}`;
}

function asArray(value: unknown): unknown[] {
  return Array.isArray(value) ? value : [];
}

/** A string field of the engine's answer on one line (every line terminator, NEL included), capped. */
function text(value: unknown, max = 2_000): string {
  return oneLine(value, max);
}
