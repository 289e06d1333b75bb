/**
 * The companion proxy (Node only): answer sessions, web search through SearXNG (or Wikipedia),
 * and the safe page reader, served under `/api/` on the page's origin.
 *
 * - {@link createProxy} builds the Fastify instance; {@link mountProxy} adapts it to a Node handler
 *   for the app server's `before` hook; `vite-plugin.ts` mounts it in `npm run dev` (kept out of this entry point, so it needs no Vite).
 * - {@link vetAddress} is the address check every fetch hop runs (URL rules, rules 2–3).
 *
 * @packageDocumentation
 */
export { vetAddress, type VetOptions, type VetResult } from './vet-address.ts';
export { classifyAddress, type AddressVerdict } from './address-ranges.ts';
export { checkUrlRules, hostKey } from './url-rules.ts';
export { createProxy, type ProxyOptions, type LogDestination } from './server.ts';
export { mountProxy, isProxyPath } from './mount.ts';
export { proxyOptionsFromEnv, sessionStoreFromEnv } from './env-options.ts';
export { RedisSessionStore, type RedisSessionStoreOptions } from './redis-session-store.ts';
export {
  MemorySessionStore,
  answerKey,
  type SessionStore,
  type SessionSnapshot,
  type SessionStoreLimits,
  type BudgetName,
  type SeenEntry,
} from './session-store.ts';
export { assertSafeBind } from './bind-guard.ts';
export { isAllowedHost, isLoopbackHost } from './request-guard.ts';
export { oneLine } from './one-line.ts';
export { safeFetch, PROXY_USER_AGENT, type SafeFetchOptions, type FetchedPage, type ConnectTarget } from './safe-fetch.ts';
export { readSite, type ReadSiteOptions, type ReadSiteResult, type ReadPage, type ReadFailure } from './read-site.ts';
export { htmlToText, type PageText, type HtmlToTextLimits } from './html-to-text.ts';
export { createPageConverter, inlinePageConverter, DEFAULT_CONVERT_BUDGET_MS, type PageConverter, type PageConverterOptions } from './page-converter.ts';
export { convertPage, type ConvertInput, type ConvertedPage } from './convert-page.ts';
export { addressKey, SeenAddresses } from './seen-addresses.ts';
export { sniffBinary } from './sniff-binary.ts';
export { fencePage, isBlockPage, notReadNote } from './fence.ts';
export { parseTimeRange, type TimeRange } from './time-range.ts';
export { searchAngles, parseSearchKind, type SearchKind } from './search-angles.ts';
export { AnswerSessions, AnswerSession, DEFAULT_BUDGETS, type Budgets, type BudgetState } from './answer-sessions.ts';
export { createSearxBackend, parseSearxResponse } from './searx-client.ts';
export { createWikipediaBackend, parseWikipediaResponse } from './wikipedia-search.ts';
export type { SearchBackend, SearchHit, BackendResult, UnresponsiveEngine, FetchLike } from './search-backend.ts';
export { runSearch, type SearchResponse, type NumberedResult } from './web-search.ts';
export type { Resolver, ResolvedAddress } from './resolver.ts';
export type { FetchLogEntry, FetchLogSink } from './fetch-log.ts';
export {
  ProxyError,
  AddressRefusedError,
  FetchFailedError,
  AnswerNotFoundError,
  BudgetSpentError,
  SearchFailedError,
  SessionStoreUnavailableError,
  type ProxyErrorCode,
} from './errors.ts';
