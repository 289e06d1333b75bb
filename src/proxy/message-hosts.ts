import { hostKey } from './url-rules.ts';

const MAX_HOSTS = 100;

/** Punctuation that may wrap a host in prose: "(see example.com)." */
const LEADING = new Set('([{.:;!?*_~');
const TRAILING = new Set(')]}.:;!?*_~');

// Index scans rather than `/[…]+$/`, whose cost on a long run of punctuation that does not end the
// token grows with the square of the run (the user's message is up to 20,000 characters).
function trimStart(text: string, chars: ReadonlySet<string>): string {
  let start = 0;
  while (start < text.length && chars.has(text[start] ?? '')) start++;
  return text.slice(start);
}

function trimEnd(text: string, chars: ReadonlySet<string>): string {
  let end = text.length;
  while (end > 0 && chars.has(text[end - 1] ?? '')) end--;
  return text.slice(0, end);
}

/** One host the user wrote, with the addresses it was written as. */
interface WrittenHost {
  host: string;
  /** Absolute addresses, as the user wrote them (bare names get `https://`). */
  addresses: string[];
}

const MAX_ADDRESSES = 200;

function writtenHosts(message: string): WrittenHost[] {
  const found = new Map<string, WrittenHost>();
  let addressCount = 0;
  for (const raw of message.split(/[\s<>"'`,|]+/u)) {
    // Wrapping punctuation: "(see example.com)." — but keep a bracketed IPv6 host intact.
    const token = trimStart(raw, LEADING);
    const trimmed = trimEnd(token, TRAILING);
    if (!token || token.includes('@')) continue;
    let host: string | undefined;
    const addresses: string[] = [];
    if (/^https?:\/\//i.test(token)) {
      // Both readings of "(see https://en.wikipedia.org/wiki/Rust_(language))." are kept as written:
      // the closing bracket may be part of the address or of the sentence.
      for (const candidate of new Set([trimmed, token])) {
        try {
          const url = new URL(candidate);
          host ??= hostKey(url.hostname);
          addresses.push(candidate);
        } catch {
          // not an address in this reading
        }
      }
    } else if (/^[\p{L}\p{N}-]+(\.[\p{L}\p{N}-]+)+(\/|$)/u.test(trimmed)) {
      try {
        const candidate = hostKey(new URL(`https://${trimmed}`).hostname);
        const tld = candidate.slice(candidate.lastIndexOf('.') + 1);
        if (/^([a-z]{2,63}|xn--[a-z0-9-]+)$/.test(tld)) {
          host = candidate;
          addresses.push(`https://${trimmed}`);
        }
      } catch {
        host = undefined;
      }
    }
    if (!host) continue;
    const known = found.get(host);
    if (!known) {
      if (found.size >= MAX_HOSTS) break;
      found.set(host, { host, addresses: addresses.slice(0, MAX_ADDRESSES - addressCount) });
    } else {
      known.addresses.push(...addresses.slice(0, MAX_ADDRESSES - addressCount));
    }
    addressCount = Math.min(MAX_ADDRESSES, addressCount + addresses.length);
  }
  return [...found.values()];
}

/**
 * The hosts a user wrote in their message: full `http(s)://` addresses, and bare names with a path or
 * not (`example.com`, `www.example.org/jobs`). Surrounding brackets, quotes and sentence punctuation
 * are ignored; e-mail addresses and numbers (`1.5`) are not hosts. At most 100.
 *
 * @param message - the user's message as typed.
 * @returns normalised hosts ({@link hostKey}), deduplicated, in order of appearance.
 */
export function hostsInMessage(message: string): string[] {
  return writtenHosts(message).map((written) => written.host);
}

/**
 * The addresses a user wrote in their message, as absolute addresses: full `http(s)://` addresses as
 * written, and bare names with or without a path as `https://` addresses (`example.com` is
 * `https://example.com/`). At most 100 hosts and 200 addresses.
 *
 * @param message - the user's message as typed.
 * @returns absolute addresses, in order of appearance (not yet normalised: see `addressKey`).
 *
 * @remarks Security: feeds rule 1. Only what the user literally wrote is added — never text from a
 * page or the model — so the allowlist cannot be widened by prompt injection.
 */
export function addressesInMessage(message: string): string[] {
  return writtenHosts(message).flatMap((written) => written.addresses);
}
