/** At most this many redirects are followed per page (rule 4). */
export const MAX_REDIRECTS = 3;

const REDIRECT_STATUSES: ReadonlySet<number> = new Set([301, 302, 303, 307, 308]);

/**
 * True for the statuses whose `Location` the reader follows: 301, 302, 303, 307, 308.
 * @param status - an HTTP status code.
 */
export function isRedirectStatus(status: number): boolean {
  return REDIRECT_STATUSES.has(status);
}

/** Outcome of {@link nextHop}. */
export type NextHop = { ok: true; url: string } | { ok: false; reason: string };

/**
 * Works out where a redirect points: the `Location` header resolved against the page that sent it,
 * refused if it is missing, unparsable or not https. The caller then runs the result through
 * `vetAddress` (rules 2–3) and the fetch limits (rule 5) as a brand-new request.
 *
 * @param location - the raw `Location` header (possibly relative), or undefined.
 * @param current - the address of the page that answered with the redirect.
 * @param redirectsSoFar - redirects already followed for this page.
 * @param max - the most redirects allowed ({@link MAX_REDIRECTS}).
 *
 * @remarks Security: rule 4. Threat: a public page answering "moved to https://127.0.0.1/…" (or to a
 * name that resolves there), or an endless/long chain that keeps the reader busy. Redirects are never
 * followed automatically; each one is counted, resolved here and re-checked from scratch.
 */
export function nextHop(location: string | undefined, current: string, redirectsSoFar: number, max = MAX_REDIRECTS): NextHop {
  if (redirectsSoFar >= max) return { ok: false, reason: `more than ${max} redirects` };
  if (location === undefined || location.trim() === '') return { ok: false, reason: 'a redirect without a Location header' };
  let target: URL;
  try {
    target = new URL(location.trim(), current);
  } catch {
    return { ok: false, reason: 'a redirect to an invalid address' };
  }
  if (target.protocol !== 'https:') return { ok: false, reason: `a redirect to a non-https address (${target.protocol.slice(0, -1)})` };
  target.hash = '';
  return { ok: true, url: target.href };
}
