import { SearchFailedError } from './errors.ts';
import { scanMarkup } from './markup-scan.ts';
import { PROXY_USER_AGENT } from './safe-fetch.ts';
import type { BackendQueryOptions, BackendResult, FetchLike, SearchBackend, SearchHit } from './search-backend.ts';

/** Options of {@link createWikipediaBackend}. */
export interface WikipediaOptions {
  /** Wikipedia language edition (default `en`); letters and dashes only. */
  lang?: string;
  /** The HTTP client (default the global `fetch`); tests inject one. */
  fetch?: FetchLike;
  /** Per-query timeout (default 8 s). */
  timeoutMs?: number;
  /** Most results kept per query (default 8). */
  maxResults?: number;
}

/** The engine label every Wikipedia result carries, so the model knows what it searched. */
export const WIKIPEDIA_ENGINE = 'wikipedia (embedded default: no SearXNG configured)';

/**
 * The embedded default backend when no SearXNG is configured: Wikipedia's keyless search API
 * (`/w/api.php?action=query&list=search`). Only Wikipedia articles are found; the response note and
 * every result's engine say so. Wikipedia has no time filter, so a `time_range` is ignored (and the
 * note says that too); dates are when the article was last edited.
 *
 * @param options - language, client, timeout and result cap.
 */
export function createWikipediaBackend(options: WikipediaOptions = {}): SearchBackend {
  const lang = /^[a-z][a-z-]{1,20}$/.test(options.lang ?? '') ? (options.lang as string) : 'en';
  const doFetch: FetchLike = options.fetch ?? ((input, init) => fetch(input, init));
  const timeoutMs = options.timeoutMs ?? 8_000;
  const maxResults = options.maxResults ?? 8;
  return {
    name: 'wikipedia',
    note:
      'No SearXNG is configured, so this searched Wikipedia only (the embedded default): results are encyclopedia articles, ' +
      'dates are when each article was last edited, and a time range cannot be applied.',
    async search(query: string, queryOptions: BackendQueryOptions = {}): Promise<BackendResult> {
      const url = new URL(`https://${lang}.wikipedia.org/w/api.php`);
      url.searchParams.set('action', 'query');
      url.searchParams.set('list', 'search');
      url.searchParams.set('srsearch', query);
      url.searchParams.set('srlimit', String(Math.min(20, maxResults)));
      url.searchParams.set('srprop', 'snippet|timestamp');
      url.searchParams.set('format', 'json');
      url.searchParams.set('formatversion', '2');
      url.searchParams.set('utf8', '1');
      const signal = queryOptions.signal ? AbortSignal.any([queryOptions.signal, AbortSignal.timeout(timeoutMs)]) : AbortSignal.timeout(timeoutMs);
      let response: Response;
      try {
        response = await doFetch(url.href, {
          headers: { accept: 'application/json', 'user-agent': PROXY_USER_AGENT, 'api-user-agent': PROXY_USER_AGENT },
          signal,
          redirect: 'error',
        });
      } catch {
        throw new SearchFailedError('Wikipedia search could not be reached');
      }
      if (!response.ok) throw new SearchFailedError(`Wikipedia search answered HTTP ${response.status}`);
      let data: unknown;
      try {
        data = JSON.parse(await response.text());
      } catch {
        throw new SearchFailedError('Wikipedia search did not answer JSON');
      }
      return parseWikipediaResponse(data, lang, maxResults);
    },
  };
}

/**
 * Reads a MediaWiki `list=search` answer (formatversion 1 or 2) into a {@link BackendResult}.
 * Snippets arrive as HTML with `<span class="searchmatch">` highlights; they become plain text.
 * @param data - the parsed JSON.
 * @param lang - the language edition, for the article addresses.
 * @param maxResults - most hits kept.
 */
export function parseWikipediaResponse(data: unknown, lang: string, maxResults = 8): BackendResult {
  const root = (typeof data === 'object' && data !== null ? data : {}) as Record<string, unknown>;
  const error = root.error as { info?: unknown } | undefined;
  if (error) throw new SearchFailedError(`Wikipedia search failed: ${typeof error.info === 'string' ? error.info.slice(0, 200) : 'unknown error'}`);
  const search = (root.query as { search?: unknown } | undefined)?.search;
  const hits: SearchHit[] = [];
  for (const item of Array.isArray(search) ? search : []) {
    if (hits.length >= maxResults) break;
    const record = item as Record<string, unknown> | null;
    const title = typeof record?.title === 'string' ? record.title.trim() : '';
    if (!title) continue;
    const snippet = typeof record?.snippet === 'string' ? scanMarkup(record.snippet, true).text.replace(/\s+/g, ' ').trim() : '';
    const timestamp = typeof record?.timestamp === 'string' ? record.timestamp : '';
    hits.push({
      title,
      url: articleUrl(lang, title),
      snippet,
      engine: WIKIPEDIA_ENGINE,
      date: /^\d{4}-\d{2}-\d{2}/.test(timestamp) ? timestamp.slice(0, 10) : null,
    });
  }
  return { hits, answers: [], unresponsive: [] };
}

/**
 * The article address for a title, encoded the way MediaWiki writes its own links.
 * @param lang - the language edition.
 * @param title - the article title.
 */
export function articleUrl(lang: string, title: string): string {
  const path = encodeURIComponent(title.replace(/ /g, '_')).replace(/%2F/g, '/').replace(/%3A/g, ':').replace(/%2C/g, ',');
  return `https://${lang}.wikipedia.org/wiki/${path}`;
}
