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

/**
 * The hosts a user wrote in their message: full `http(s)://` addresses, and bare names with a path or
 * not (`example.com`, `www.example.org/jobs`). Surrounding brackets, quotes and sentence punctuation
 * are ignored; e-mail addresses and numbers (`1.5`) are not hosts. At most 100.
 *
 * @param message - the user's message as typed.
 * @returns normalised hosts ({@link hostKey}), deduplicated, in order of appearance.
 *
 * @remarks Security: feeds rule 1. Only what the user literally wrote is added — never text from a
 * page or the model — so the allowlist cannot be widened by prompt injection.
 */
export function hostsInMessage(message: string): string[] {
  const hosts: string[] = [];
  const seen = new Set<string>();
  for (const raw of message.split(/[\s<>"'`,|]+/u)) {
    // Wrapping punctuation: "(see example.com)." — but keep a bracketed IPv6 host intact.
    const token = trimStart(raw, LEADING);
    const trimmed = trimEnd(token, TRAILING);
    if (!token || token.includes('@')) continue;
    let host: string | undefined;
    if (/^https?:\/\//i.test(token)) {
      for (const candidate of [trimmed, token]) {
        try {
          host = hostKey(new URL(candidate).hostname);
          break;
        } catch {
          host = undefined;
        }
      }
    } else if (/^[\p{L}\p{N}-]+(\.[\p{L}\p{N}-]+)+(\/|$)/u.test(trimmed)) {
      try {
        const candidate = hostKey(new URL(`https://${trimmed}`).hostname);
        const tld = candidate.slice(candidate.lastIndexOf('.') + 1);
        if (/^([a-z]{2,63}|xn--[a-z0-9-]+)$/.test(tld)) host = candidate;
      } catch {
        host = undefined;
      }
    }
    if (host && !seen.has(host)) {
      seen.add(host);
      hosts.push(host);
      if (hosts.length >= MAX_HOSTS) break;
    }
  }
  return hosts;
}
