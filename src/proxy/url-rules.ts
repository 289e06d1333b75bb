/** Longest address the reader accepts; longer ones are refused rather than truncated. */
const MAX_URL_LENGTH = 2048;

/** Outcome of {@link checkUrlRules}. */
export type UrlRulesResult = { ok: true; url: URL; host: string } | { ok: false; reason: string };

/**
 * Normalises a host for comparisons (rule 1's seen-hosts set, the same-site check): lower case,
 * no trailing dot, IPv6 without brackets. The WHATWG parser has already punycoded it.
 * @param hostname - `URL.hostname` or a host written by hand.
 */
export function hostKey(hostname: string): string {
  let host = hostname.trim().toLowerCase();
  if (host.startsWith('[') && host.endsWith(']')) host = host.slice(1, -1);
  while (host.endsWith('.')) host = host.slice(0, -1);
  return host;
}

/**
 * True for `localhost` and any `*.localhost` name, which resolve to the machine itself by
 * convention (RFC 6761) whatever DNS says.
 * @param host - a host as returned by {@link hostKey}.
 */
export function isLocalhostName(host: string): boolean {
  return host === 'localhost' || host.endsWith('.localhost') || host === 'localhost.localdomain';
}

/**
 * Applies the page reader's URL rules to an address written by a model, a user or a page:
 * https only (an `http:` address is tried as `https:`), port 443 only, no user name or password,
 * no fragment (it is stripped: it is never sent to a server anyway), a trailing dot removed from the
 * host, `localhost`/`*.localhost` refused by name. Numeric host spellings (`2130706433`, `0x7f.1`,
 * `0177.0.0.1`, `127.1`) come out of the WHATWG parser as dotted decimal, so the address table of
 * rule 2 judges them.
 *
 * @param raw - the address as written.
 * @returns the normalised URL and its {@link hostKey}, or the reason it is refused.
 *
 * @remarks Security: the URL rules in front of rules 2–4. Threat: reaching a non-web service on
 * another port (port 443 only), leaking credentials in the address, plain-text requests that anyone
 * on the path can rewrite (https only), and `localhost` names that never go through DNS.
 */
export function checkUrlRules(raw: string): UrlRulesResult {
  if (typeof raw !== 'string' || raw.trim() === '') return { ok: false, reason: 'no address given' };
  if (raw.length > MAX_URL_LENGTH) return { ok: false, reason: `address longer than ${MAX_URL_LENGTH} characters` };
  let url: URL;
  try {
    url = new URL(raw.trim());
  } catch {
    return { ok: false, reason: 'not a valid absolute address' };
  }
  if (url.protocol === 'http:') url.protocol = 'https:';
  if (url.protocol !== 'https:') return { ok: false, reason: `${url.protocol.slice(0, -1)} addresses cannot be opened; only https` };
  if (url.username !== '' || url.password !== '') return { ok: false, reason: 'addresses with a user name or password are refused' };
  if (url.port !== '') return { ok: false, reason: `port ${url.port} is refused; only port 443 (the https default)` };
  url.hash = '';
  const host = hostKey(url.hostname);
  if (host === '') return { ok: false, reason: 'the address has no host' };
  if (!url.hostname.startsWith('[') && url.hostname !== host) url.hostname = host;
  if (isLocalhostName(host)) return { ok: false, reason: `${host} is the local machine and is refused by name` };
  return { ok: true, url, host };
}
