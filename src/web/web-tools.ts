import type { ToolRegistry } from '../tools/tool-registry.ts';
import type { ProxyClient, Source, ToolReply } from './proxy-client.ts';
import { withDetails } from '../tools/tool-registry.ts';

/** What a web tool did, for the page's "searched: …" and "read: …" lines. */
export type WebActivity =
  | { kind: 'search'; queries: string[]; ok: boolean; results: number; detail?: string }
  | { kind: 'read'; url: string; pages: { url: string; title: string }[]; ok: boolean; detail?: string };

/** The tool names, as the model sees them. */
export const WEB_SEARCH = 'web_search';
export const READ_PAGE = 'read_page';

/** Per-answer state the web tools share with the research session. */
export interface WebToolState {
  answer: string;
  /** The last reply of each tool, for the budget effects. */
  last: Map<string, ToolReply>;
  /** Every numbered source the answer's calls brought, by number (the first title and address of each kept). */
  sources: Map<number, Source>;
  onActivity?: (activity: WebActivity) => void;
}

/**
 * The numbered sources in a reply's results or pages (the proxy numbers each address once per answer), as a
 * call's details keep them: the answer's sources are its calls' (see {@link sourcesOfCalls}), no request more.
 */
function numberedSources(items: unknown): Source[] {
  if (!Array.isArray(items)) return [];
  return items.flatMap((item: { n?: unknown; url?: unknown; finalUrl?: unknown; title?: unknown; date?: unknown }) => {
    const url = typeof item.finalUrl === 'string' ? item.finalUrl : item.url;
    if (typeof item.n !== 'number' || typeof url !== 'string') return [];
    const title = typeof item.title === 'string' && item.title ? item.title : url;
    return [{ n: item.n, url, title, ...(typeof item.date === 'string' && item.date ? { date: item.date } : {}) }];
  });
}

/** Adds a call's sources to the answer's, a number's first title and address kept. */
function remember(state: WebToolState, sources: readonly Source[]): void {
  for (const source of sources) if (!state.sources.has(source.n)) state.sources.set(source.n, source);
}

/**
 * An answer's numbered sources, from its calls' details (each web call keeps the sources it brought):
 * by number, each number's first title and address; anything not shaped as a source is passed over.
 */
export function sourcesOfCalls(calls: readonly { details?: Readonly<Record<string, unknown>> | undefined }[]): Source[] {
  const byNumber = new Map<number, Source>();
  for (const source of calls.flatMap((call) => numberedSources(call.details?.sources))) if (!byNumber.has(source.n)) byNumber.set(source.n, source);
  return [...byNumber.values()].sort((a, b) => a.n - b.n);
}

/**
 * Registers `web_search` and `read_page`, which call the companion proxy for the current answer.
 * Their descriptions tell a small model when to use which: search for anything it would otherwise
 * answer from memory; read only an address copied from this answer's results, its pages or the user.
 */
export function registerWebTools(registry: ToolRegistry, client: ProxyClient, state: WebToolState): void {
  registry.tool(
    WEB_SEARCH,
    'Search the web. Use it for any question about facts, news, prices, people, places or anything that may have changed, instead of answering from memory. Returns numbered results with title, address, date and snippet.',
    {
      query: { type: 'string', description: "The search, in the user's own words" },
      queries: { type: 'array', items: { type: 'string' }, maxItems: 3, description: 'Up to 3 more sub-questions to search in the same call' },
      time_range: { type: 'string', enum: ['day', 'week', 'month', 'year'], description: 'Only results newer than this, when recency matters' },
      kind: { type: 'string', enum: ['jobs', 'people'], description: 'jobs: find postings; people: find the people behind them' },
    },
    async (args, context) => {
      const queries = [args.query, ...(args.queries ?? [])];
      const reply = await client.search(
        {
          answer: state.answer,
          query: args.query,
          ...(args.queries?.length ? { queries: args.queries } : {}),
          ...(args.time_range ? { time_range: args.time_range } : {}),
          ...(args.kind ? { kind: args.kind } : {}),
        },
        context.signal,
      );
      state.last.set(WEB_SEARCH, reply);
      const results = Array.isArray(reply.results) ? reply.results.length : 0;
      const activity: WebActivity = {
        kind: 'search',
        queries,
        ok: reply.ok,
        results,
        ...(reply.ok ? {} : { detail: String(reply.reason ?? reply.code ?? 'failed') }),
      };
      state.onActivity?.(activity);
      const sources = numberedSources(reply.results);
      remember(state, sources);
      // What the search found goes with the call, for the page to show: the model reads the reply's text.
      return withDetails(reply.text, { web: activity, ...(sources.length ? { sources } : {}) });
    },
    { required: ['query'], readOnly: true },
  );
  registry.tool(
    READ_PAGE,
    "Read a web page and the pages its own site links to. Only an https address exactly as it appears in this answer's search results, in a page read in this answer, or in the user's message can be opened: copy it, never change or invent one.",
    { url: { type: 'string', description: "An https address copied exactly from this answer's search results" } },
    async ({ url }, context) => {
      // The proxy sizes the read to what the model will read of it, so each page arrives whole and fenced instead of cut.
      const maxChars = context.maxResultChars && context.maxResultChars >= 1000 ? Math.floor(context.maxResultChars) : undefined;
      const reply = await client.read({ answer: state.answer, url, ...(maxChars ? { maxChars } : {}) }, context.signal);
      state.last.set(READ_PAGE, reply);
      const pages = Array.isArray(reply.pages)
        ? (reply.pages as { url: string; finalUrl?: string; title?: string }[]).map((p) => ({ url: p.finalUrl ?? p.url, title: p.title || p.url }))
        : [];
      const activity: WebActivity = { kind: 'read', url, pages, ok: reply.ok, ...(reply.ok ? {} : { detail: String(reply.reason ?? reply.code ?? 'failed') }) };
      state.onActivity?.(activity);
      const sources = numberedSources(reply.pages);
      remember(state, sources);
      return withDetails(reply.text, { web: activity, ...(sources.length ? { sources } : {}) });
    },
    { readOnly: true },
  );
}

/** True when a budget is used up. */
function spent(reply: ToolReply | undefined, which: 'searches' | 'pages'): boolean {
  const budget = reply?.budget?.[which];
  return reply?.code === 'budget_spent' || (budget !== undefined && budget.used >= budget.limit);
}

/**
 * What each web tool's result does to the rest of the answer: a search with results offers
 * `read_page`; a spent search budget withdraws `web_search` and ends the tool rounds (the model is
 * asked for the answer instead of collecting refusals); a spent page budget withdraws `read_page`.
 */
export function webToolEffects(state: WebToolState): Record<string, () => { withdraw?: string[]; offer?: string[]; endToolRounds?: boolean } | undefined> {
  return {
    [WEB_SEARCH]: () => {
      const reply = state.last.get(WEB_SEARCH);
      const found = Array.isArray(reply?.results) && reply.results.length > 0;
      if (spent(reply, 'searches')) return { withdraw: [WEB_SEARCH], endToolRounds: true, ...(found ? { offer: [READ_PAGE] } : {}) };
      return found ? { offer: [READ_PAGE] } : undefined;
    },
    [READ_PAGE]: () => (spent(state.last.get(READ_PAGE), 'pages') ? { withdraw: [READ_PAGE] } : undefined),
  };
}

/** Whether the user's last few messages hold an address the model may be asked to read. */
export function linkInPlay(userMessages: readonly string[]): boolean {
  return userMessages.slice(-3).some((m) => /\bhttps?:\/\/[^\s<>"']+/i.test(m));
}
