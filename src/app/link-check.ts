/** Query or fragment lengths above this are flagged: longer than any ordinary article or search link needs. */
export const LONG_QUERY_CHARS = 80;

/** What a link a model wrote would open, shown before it does. */
export interface LinkDestination {
  /** The whole address. */
  href: string;
  /** Where it goes: the host (without `www.`), or the e-mail address of a `mailto:` link. */
  destination: string;
  /** Whether it is an e-mail link. */
  mail: boolean;
  /** Characters after `?` (and `#`): where a composed link carries data. */
  dataChars: number;
  /** True when that data is long enough to be flagged. */
  longData: boolean;
}

/**
 * Describes a link from a model's answer before it is opened: its host (or the mail recipient) and
 * how much data its address carries in the query and fragment.
 *
 * @param href - the link's resolved address.
 * @returns the description, or undefined when it is not an http(s) or mailto address.
 *
 * @remarks Security: a page the model read can make it write a link whose query holds parts of the
 * conversation (`https://attacker.example/?d=…`); one click would send them. The page shows the full
 * destination first, and flags a long query.
 */
export function describeLink(href: string): LinkDestination | undefined {
  let url: URL;
  try {
    url = new URL(href);
  } catch {
    return undefined;
  }
  if (url.protocol === 'mailto:') {
    const dataChars = url.search.length + url.hash.length;
    return { href: url.href, destination: decodeURIComponent(url.pathname), mail: true, dataChars, longData: dataChars > LONG_QUERY_CHARS };
  }
  if (url.protocol !== 'https:' && url.protocol !== 'http:') return undefined;
  const dataChars = Math.max(0, url.search.length - 1) + Math.max(0, url.hash.length - 1);
  return { href: url.href, destination: url.hostname.replace(/^www\./, ''), mail: false, dataChars, longData: dataChars > LONG_QUERY_CHARS };
}
