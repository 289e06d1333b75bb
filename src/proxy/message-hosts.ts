import { hostKey } from './url-rules.ts';

const MAX_HOSTS = 100;

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
    const token = raw.replace(/^[([{.:;!?*_~]+/u, '');
    const trimmed = token.replace(/[)\]}.:;!?*_~]+$/u, '');
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
