import { createHash } from 'node:crypto';
import { hostKey } from './url-rules.ts';

/**
 * The form in which rule 1 compares addresses: parsed by the WHATWG parser (scheme and host in lower
 * case, the default port dropped, percent-encoding made canonical), `http:` read as `https:` (the
 * reader upgrades it anyway), the host's trailing dot removed, the fragment dropped (it never reaches
 * a server) and one trailing slash of the path ignored. The query is kept exactly as written: it is
 * where a composed address would carry data.
 *
 * @param raw - an absolute address as written.
 * @returns the comparison key, or undefined when the text is not an absolute http(s) address.
 */
export function addressKey(raw: string): string | undefined {
  let url: URL;
  try {
    url = new URL(raw.trim());
  } catch {
    return undefined;
  }
  if (url.protocol === 'http:') url.protocol = 'https:';
  if (url.protocol !== 'https:') return undefined;
  url.hash = '';
  const host = hostKey(url.hostname);
  if (host === '') return undefined;
  if (!url.hostname.startsWith('[') && url.hostname !== host) url.hostname = host;
  if (url.pathname.length > 1 && url.pathname.endsWith('/')) url.pathname = url.pathname.slice(0, -1);
  return url.href;
}

/** Options of {@link SeenAddresses}. */
export interface SeenAddressesOptions {
  /** Most addresses kept (default 5,000); past it new addresses are not added. */
  maxAddresses?: number;
}

/**
 * The addresses one answer has seen (rule 1): those of its search results, those the user wrote, and
 * the links of the pages it read. Kept as short hashes of their {@link addressKey}, so an answer's
 * memory stays small however long its addresses are; their hosts are kept too, only to word a
 * refusal ("that site was seen, that address was not").
 */
export class SeenAddresses {
  readonly #addresses = new Set<string>();
  readonly #hosts = new Set<string>();
  readonly #max: number;

  /** @param options - the bound. */
  constructor(options: SeenAddressesOptions = {}) {
    this.#max = Math.max(0, options.maxAddresses ?? 5000);
  }

  /**
   * Adds an address; text that is not an absolute http(s) address is ignored.
   * @returns whether the address is now seen (false when it is invalid or the bound is reached).
   */
  markSeen(raw: string): boolean {
    const entry = seenEntryOf(raw);
    if (entry === undefined) return false;
    if (this.#addresses.has(entry.digest)) return true;
    if (this.#addresses.size >= this.#max) return false;
    this.#addresses.add(entry.digest);
    this.#hosts.add(entry.host);
    return true;
  }

  /**
   * Whether this exact address (up to {@link addressKey}'s normalisation) was seen.
   * @param raw - an absolute address.
   */
  hasSeen(raw: string): boolean {
    const entry = seenEntryOf(raw);
    return entry !== undefined && this.#addresses.has(entry.digest);
  }

  /**
   * Whether some address on this host was seen.
   * @param host - a host name or IP literal.
   */
  hasSeenHost(host: string): boolean {
    return this.#hosts.has(hostKey(host));
  }

  /** How many addresses are held. */
  get size(): number {
    return this.#addresses.size;
  }
}

/**
 * How a seen address is kept: a short hash of its {@link addressKey} (an answer's memory stays small
 * however long its addresses are, and a store holds no address verbatim) and its host.
 * @param raw - an absolute address as written.
 * @returns undefined when the text is not an absolute http(s) address.
 */
export function seenEntryOf(raw: string): { digest: string; host: string } | undefined {
  const key = addressKey(raw);
  return key === undefined ? undefined : { digest: digestOf(key), host: hostKey(new URL(key).hostname) };
}

function digestOf(key: string): string {
  return createHash('sha256').update(key).digest('base64url').slice(0, 22);
}
