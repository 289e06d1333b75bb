import { AddressRefusedError, ProxyError } from './errors.ts';
import { fencePage, isBlockPage, NOTE_CHARS, notReadNote, TITLE_CHARS, URL_CHARS } from './fence.ts';
import type { HtmlToTextLimits } from './html-to-text.ts';
import { inlinePageConverter, type PageConverter } from './page-converter.ts';
import { oneLine } from './one-line.ts';
import { safeFetch, type FetchedPage, type SafeFetchOptions } from './safe-fetch.ts';
import { sniffBinary } from './sniff-binary.ts';
import { checkUrlRules, hostKey } from './url-rules.ts';

/** The crawl's limits (the design's numbers are the defaults). */
export interface CrawlLimits {
  /** Link hops from the cited page (default 2). */
  maxHops?: number;
  /** Pages fetched at most, the cited one included (default 6). */
  maxPages?: number;
  /** New same-site links taken from each page (default 24). */
  linksPerPage?: number;
  /** Same-site links of each page read that the answer may read next (default {@link SEEN_LINKS_PER_PAGE}). */
  seenLinksPerPage?: number;
  /** Characters returned per page (default 12,000). */
  pageChars?: number;
  /** Characters returned in all (default 24,000). */
  totalChars?: number;
  /** Pages fetched at the same time after the first (default 3). */
  concurrency?: number;
  /** Deadline for the whole read (default 40 s); each page still has its own 10 s. */
  overallTimeoutMs?: number;
}

/** Characters of page text worth a page of its own: below this a read takes the cited page only. */
const CHARS_PER_PAGE_READ = 2_500;
/** What a read's result spends besides page text: its first line and budget line, then per page its fence and title lines, or a failure line. */
const RESULT_OVERHEAD = { base: 500, perPage: 400 } as const;

/**
 * The crawl limits that make a read's whole result — page text, fences, notes, the budget line —
 * fit in `maxChars`, the characters the model will read of it: fewer pages when there is little
 * room (each one worth reading), and never more text than the limits already allow.
 * @param maxChars - the characters the caller's model will read of the result.
 * @param limits - the limits otherwise in force.
 */
export function crawlLimitsFor(maxChars: number, limits: CrawlLimits = {}): CrawlLimits {
  const maxPages = Math.max(1, Math.min(limits.maxPages ?? 6, Math.floor(maxChars / CHARS_PER_PAGE_READ)));
  const text = Math.max(300, maxChars - RESULT_OVERHEAD.base - RESULT_OVERHEAD.perPage * maxPages);
  const totalChars = Math.min(limits.totalChars ?? 24_000, text);
  return { ...limits, maxPages, totalChars, pageChars: Math.min(limits.pageChars ?? 12_000, totalChars) };
}

/** Options of {@link readSite}. */
export interface ReadSiteOptions extends CrawlLimits, Omit<SafeFetchOptions, 'signal'> {
  /** The answer's seen addresses (rule 1); the links of every page read are added to them. */
  seen: SeenSet;
  /** Caps for the HTML conversion. */
  htmlLimits?: HtmlToTextLimits;
  /** Turns bodies into text (default: on this thread; the proxy passes its worker pool). */
  converter?: PageConverter;
  /** Numbers a page address in the answer's ledger (its source number). */
  number?: (url: string, title: string) => number | undefined | Promise<number | undefined>;
}

/** What the reader needs of an answer's seen addresses (an `AnswerSession` is one). */
interface SeenSet {
  /** Whether this exact address (normalised) was seen in this answer. */
  hasSeen(url: string): boolean;
  /** Adds an address: the reader adds the links of the pages it read, and where they came from. */
  markSeen?(url: string): void;
  /** Whether some address on this host was seen: only to word a refusal. */
  hasSeenHost?(host: string): boolean;
  /**
   * Records addresses as read; false when the first was read before in this answer. Without it every
   * read fetches (a reader with no answer to remember).
   */
  firstRead?(...urls: string[]): Promise<boolean>;
}

/** One page that was read. */
export interface ReadPage {
  /** Source number in the answer's ledger, when known. */
  n: number | null;
  /** The address that was fetched (the cited one, or a link). */
  url: string;
  /** The address the text came from, after redirects. */
  finalUrl: string;
  title: string;
  /** 0 for the cited page, 1 or 2 for pages reached by links. */
  hop: number;
  /** The page text as returned (cut to the limits). */
  text: string;
  /** Characters of the page's text that were not returned. */
  omittedChars: number;
  /** The page text inside its fence, with header and notes: what the model should read. */
  fenced: string;
}

/** A page that could not be read, and why. */
export interface ReadFailure {
  url: string;
  hop: number;
  reason: string;
}

/** The outcome of {@link readSite}. */
export type ReadSiteResult =
  | { ok: true; url: string; pages: ReadPage[]; failures: ReadFailure[]; text: string }
  | {
      ok: false;
      url: string;
      code: 'refused' | 'fetch_failed';
      reason: string;
      failures: ReadFailure[];
      text: string;
      /** Whether a site was contacted before the read failed (it then spends its page). */
      contacted: boolean;
    };

/**
 * How many of a page's own-site links become addresses the answer may read next. Which of them a steered
 * model reads is a message to their site; this bounds the choices each page read adds (eight, where a page of
 * a thousand links added a thousand). A repeated read fetches nothing ({@link ReadSiteOptions.seen}'s
 * `firstRead`); the order of distinct reads is what remains.
 */
export const SEEN_LINKS_PER_PAGE = 8;

/** Path endings that are never text pages; such links are not followed. */
const BINARY_PATH =
  /\.(pdf|zip|gz|tgz|bz2|xz|rar|7z|exe|msi|dmg|pkg|deb|rpm|iso|img|apk|png|jpe?g|gif|webp|avif|svg|ico|bmp|tiff?|mp[34]|m4a|ogg|wav|flac|avi|mov|mkv|webm|woff2?|ttf|otf|eot|css|js|mjs|json|xml|rss|atom|csv|xlsx?|docx?|pptx?)$/i;

/**
 * The site a host belongs to, for the crawl's same-site rule: the host without a leading `www.`.
 * Without a public-suffix list this is deliberately strict: `blog.example.com` and `example.com` are
 * different sites.
 * @param host - a host name.
 */
export function siteOf(host: string): string {
  const key = hostKey(host);
  return key.startsWith('www.') ? key.slice(4) : key;
}

/**
 * The page reader (the seed's `fetch_page_content_recursive`): opens one cited https page, then its
 * own site's links breadth-first — at most two hops and six pages, 24 new same-site links per page,
 * 12,000 characters a page and 24,000 in all. Each page comes back with its title, final address and
 * its text fenced as untrusted data; a page that fails is listed with the reason; if the cited page
 * itself fails, the result says so (and carries the "you did not read that page" note).
 *
 * @param url - the cited address.
 * @param options - the answer's seen hosts, the fetcher's options (resolver, TLS trust, log…), limits.
 *
 * @remarks Security: rule 1 — the cited address must be one this answer has seen, verbatim up to
 * normalisation (a search result, the user's message, or a link on a page already read), otherwise
 * nothing is fetched; its redirects stay on its site or go to addresses seen; links are followed only
 * on the cited page's own site. Threat: the model, steered by a page, sending the conversation to an
 * attacker's address — directly, in the query of an address on a host it has seen (the injecting
 * page's own host, or an open redirect there) — or a page sending the crawl to another site. Every fetch
 * goes through {@link safeFetch} (rules 2–5, 7, 8) and every page through the fence (rule 6).
 */
export async function readSite(url: string, options: ReadSiteOptions): Promise<ReadSiteResult> {
  const maxHops = options.maxHops ?? 2;
  const maxPages = options.maxPages ?? 6;
  const linksPerPage = options.linksPerPage ?? 24;
  const seenLinksPerPage = options.seenLinksPerPage ?? SEEN_LINKS_PER_PAGE;
  const pageChars = options.pageChars ?? 12_000;
  const totalChars = options.totalChars ?? 24_000;
  const concurrency = Math.max(1, options.concurrency ?? 3);
  const failures: ReadFailure[] = [];

  const rules = checkUrlRules(url);
  if (!rules.ok) return failed(url, 'refused', rules.reason, failures);
  const start = rules.url.href;
  if (!options.seen.hasSeen(start)) return failed(start, 'refused', notSeenReason(start, rules.host, options.seen), failures);
  if (options.seen.firstRead && !(await options.seen.firstRead(start))) return failed(start, 'refused', repeatedReason(start), failures);

  const deadline = new AbortController();
  const timer = setTimeout(() => deadline.abort(), options.overallTimeoutMs ?? 40_000);
  const fetchOptions: SafeFetchOptions = { ...options, signal: deadline.signal };
  try {
    const sites = new Set([siteOf(rules.host)]);
    const visited = new Set([start]);
    const pages: ReadPage[] = [];
    let used = 0;
    let attempts = 0;

    // The cited address may redirect within its own site, or to an address this answer has seen; a
    // redirect elsewhere is not followed (an open redirect on a seen site must not carry a read to a
    // host the answer never saw). The crawl that follows stays on the cited site, and so does every
    // redirect of a crawled link.
    const citedOptions: SafeFetchOptions = {
      ...fetchOptions,
      redirectAllowed: (next, from) =>
        siteOf(next.hostname) === siteOf(from.hostname) || options.seen.hasSeen(next.href)
          ? undefined
          : `a redirect to ${oneLine(next.href, URL_CHARS)}, an address on another site (${hostKey(next.hostname)}) that this answer has not seen, which read_page does not follow`,
    };
    const converter = options.converter ?? inlinePageConverter;
    const first = await readOne(start, citedOptions, options.htmlLimits, converter);
    attempts++;
    if (!first.ok) return failed(start, first.code, first.reason, failures, first.contacted);
    visited.add(first.page.finalUrl);
    const crawlOptions: SafeFetchOptions = {
      ...fetchOptions,
      redirectAllowed: (next) =>
        sites.has(siteOf(next.hostname)) ? undefined : `a redirect off the site (to ${hostKey(next.hostname)}), which the crawl does not follow`,
    };

    let level: Array<{ url: string; links: string[] }> = [];
    const accept = async (fetched: Fetched, hop: number, requested: string): Promise<boolean> => {
      const room = Math.min(pageChars, totalChars - used);
      if (room <= 0) return false;
      const { text, omitted } = cut(fetched.text, room);
      used += text.length;
      const n = (await options.number?.(fetched.finalUrl, fetched.title)) ?? null;
      const fenced = fencePage({
        url: fetched.finalUrl,
        title: fetched.title,
        text,
        omittedChars: omitted,
        ...(n !== null ? { source: n } : {}),
        notes: fetched.notes,
      });
      pages.push({ n, url: requested, finalUrl: fetched.finalUrl, title: fetched.title, hop, text, omittedChars: omitted, fenced });
      // A link on a page read in this answer may be read next, exactly as the page wrote it — but which
      // link a steered model reads is itself a message to that link's server (issue 41): only the page's
      // own-site links, and only the first few, become readable, and each cited address is read once (a
      // repeat fetches nothing), which bounds what a choice can carry. A page the crawl reached may still be
      // cited once: that is a choice among readable links, not a repeat.
      options.seen.markSeen?.(fetched.finalUrl);
      const site = siteOf(new URL(fetched.finalUrl).hostname);
      const readable = fetched.links.filter((link) => siteOf(new URL(link).hostname) === site).slice(0, seenLinksPerPage);
      for (const link of readable) options.seen.markSeen?.(link);
      level.push({ url: fetched.finalUrl, links: fetched.links });
      return true;
    };
    await accept(first.page, 0, start);

    for (let hop = 1; hop <= maxHops; hop++) {
      const candidates: string[] = [];
      for (const parent of level) {
        let taken = 0;
        for (const link of parent.links) {
          if (taken >= linksPerPage) break;
          const next = crawlable(link, sites);
          if (!next || visited.has(next)) continue;
          visited.add(next);
          candidates.push(next);
          taken++;
        }
      }
      level = [];
      const room = maxPages - attempts;
      const batch = candidates.slice(0, Math.max(0, room));
      if (batch.length === 0 || used >= totalChars) break;
      for (let i = 0; i < batch.length && used < totalChars && !deadline.signal.aborted; i += concurrency) {
        const slice = batch.slice(i, i + concurrency);
        attempts += slice.length;
        const outcomes = await Promise.all(slice.map((link) => readOne(link, crawlOptions, options.htmlLimits, converter)));
        for (const [k, outcome] of outcomes.entries()) {
          const link = slice[k] ?? '';
          if (!outcome.ok) {
            failures.push({ url: link, hop, reason: outcome.reason });
            continue;
          }
          visited.add(outcome.page.finalUrl);
          if (!(await accept(outcome.page, hop, link))) {
            failures.push({ url: link, hop, reason: `not included: the ${totalChars}-character total was reached` });
          }
        }
      }
    }
    return { ok: true, url: start, pages, failures, text: readText(start, pages, failures) };
  } finally {
    clearTimeout(timer);
  }
}

interface Fetched {
  finalUrl: string;
  title: string;
  text: string;
  links: string[];
  notes: string[];
}

type ReadOne = { ok: true; page: Fetched } | { ok: false; code: 'refused' | 'fetch_failed'; reason: string; contacted: boolean };

async function readOne(url: string, options: SafeFetchOptions, htmlLimits: HtmlToTextLimits | undefined, converter: PageConverter): Promise<ReadOne> {
  let fetched: FetchedPage;
  try {
    fetched = await safeFetch(url, options);
  } catch (error) {
    // Reasons may quote what a site sent (a content type, an address): one line, capped.
    if (error instanceof AddressRefusedError) return { ok: false, code: 'refused', reason: oneLine(error.message, NOTE_CHARS), contacted: error.contacted };
    if (error instanceof ProxyError) return { ok: false, code: 'fetch_failed', reason: oneLine(error.message, NOTE_CHARS), contacted: true };
    return { ok: false, code: 'fetch_failed', reason: 'the page could not be read', contacted: true };
  }
  const binary = sniffBinary(fetched.body);
  if (binary) {
    return { ok: false, code: 'fetch_failed', reason: `the page is not text: it was sent as ${fetched.mediaType} but its body is ${binary}`, contacted: true };
  }
  const notes: string[] = [];
  if (fetched.capped) notes.push(`the page is larger than the ${formatBytes(fetched.body.length)} read limit; only its beginning was read.`);
  let title: string;
  let text: string;
  let links: string[];
  try {
    ({ title, text, links } = await converter.convert({
      body: fetched.body,
      charset: fetched.charset,
      mediaType: fetched.mediaType,
      url: fetched.finalUrl,
      ...(htmlLimits ? { limits: htmlLimits } : {}),
    }));
  } catch (error) {
    return {
      ok: false,
      code: 'fetch_failed',
      reason: error instanceof ProxyError ? oneLine(error.message, NOTE_CHARS) : 'the page could not be converted to text',
      contacted: true,
    };
  }
  if (text.trim() === '') return { ok: false, code: 'fetch_failed', reason: 'the page has no readable text (it may need JavaScript)', contacted: true };
  if (isBlockPage(`${title}\n${text}`)) {
    return { ok: false, code: 'fetch_failed', reason: 'the site served a verification or block page instead of the content', contacted: true };
  }
  return { ok: true, page: { finalUrl: fetched.finalUrl, title: oneLine(title, TITLE_CHARS), text, links, notes } };
}

function formatBytes(bytes: number): string {
  return bytes >= 1024 * 1024 ? `${Math.round((bytes / 1024 / 1024) * 10) / 10} MB` : `${Math.round(bytes / 1024)} KB`;
}

/** The normalised address of a link the crawl may follow, or undefined. */
function crawlable(link: string, sites: ReadonlySet<string>): string | undefined {
  const rules = checkUrlRules(link);
  if (!rules.ok) return undefined;
  if (!sites.has(siteOf(rules.host))) return undefined;
  if (BINARY_PATH.test(rules.url.pathname)) return undefined;
  return rules.url.href;
}

function cut(text: string, room: number): { text: string; omitted: number } {
  if (text.length <= room) return { text, omitted: 0 };
  let end = room;
  const code = text.charCodeAt(end - 1);
  if (code >= 0xd800 && code <= 0xdbff) end--;
  return { text: text.slice(0, end), omitted: text.length - end };
}

/** Why a second read of an address is answered without fetching it. */
function repeatedReason(url: string): string {
  return `${oneLine(url, URL_CHARS)} was already read in this answer: its text is in that earlier result (read_page reads each address once per answer). Answer from it, or read another address`;
}

/** Why an address that was not seen is refused, in words the model and the user can act on. */
function notSeenReason(url: string, host: string, seen: SeenSet): string {
  if (!seen.hasSeenHost?.(host)) return `${host} is not in this answer's search results`;
  return `${oneLine(url, URL_CHARS)} is not an address this answer has seen: read_page opens an address only exactly as a search result, the user's message or a page already read gave it (an address that was composed or changed, its query included, is refused); read one of those addresses, or search again`;
}

function failed(url: string, code: 'refused' | 'fetch_failed', reason: string, failures: ReadFailure[], contacted = false): ReadSiteResult {
  return { ok: false, url, code, reason, failures, text: notReadNote(url, reason), contacted };
}

function readText(start: string, pages: readonly ReadPage[], failures: readonly ReadFailure[]): string {
  const parts: string[] = [];
  const count = pages.length === 1 ? '1 page' : `${pages.length} pages`;
  parts.push(`Read ${oneLine(start, URL_CHARS)}: ${count} from its site.`);
  for (const page of pages) parts.push(page.fenced);
  if (failures.length > 0) {
    const lines = failures.map((f) => `- ${oneLine(f.url, URL_CHARS)} — ${oneLine(f.reason, NOTE_CHARS)}`);
    parts.push(['Pages that could not be read:', ...lines].join('\n'));
  }
  return parts.join('\n\n');
}
