import { isIP } from 'node:net';
import { classifyAddress, refusalReason } from './address-ranges.ts';
import type { Resolver } from './resolver.ts';
import { checkUrlRules } from './url-rules.ts';

/** What {@link vetAddress} needs: the one resolver it may call, and an optional deadline. */
export interface VetOptions {
  /** Called at most once, with the URL's host name (never for an IP literal). */
  resolve: Resolver;
  /** Aborts the wait for the resolver (the fetch's overall deadline). */
  signal?: AbortSignal;
}

/** Outcome of {@link vetAddress}. */
export type VetResult =
  | {
      ok: true;
      /** The normalised address: https, no fragment, no trailing dot on the host. */
      url: string;
      /** The normalised host name (the TLS server name when it is not an IP literal). */
      host: string;
      /** The one checked IP address to connect to; no other may be used for this hop. */
      address: string;
      /** 4 or 6. */
      family: 4 | 6;
    }
  | { ok: false; reason: string };

/**
 * Decides whether the page reader may open `url`, and which single address it must connect to.
 *
 * Applies the URL rules ({@link checkUrlRules}), then: an IP-literal host is judged directly (no
 * lookup); a name is resolved with exactly one call of `resolve`, and refused if the lookup fails,
 * returns nothing, or returns ANY address that is not public ({@link classifyAddress}). The address to
 * pin is the first IPv4 one, else the first one. No network is touched except through `resolve`.
 *
 * @param url - the address as written (by the model, the user, a page link or a redirect).
 * @param options - the injected resolver and an optional abort signal.
 * @returns `{ ok: true, url, host, address, family }` or `{ ok: false, reason }`.
 *
 * @remarks Security: rules 2 and 3. Threats: server-side request forgery to loopback, private,
 * link-local (cloud metadata 169.254.169.254), CGNAT, multicast or reserved addresses, including
 * numeric host spellings and IPv6 forms that embed an IPv4 address; and DNS rebinding — a name that
 * answers a public address when checked and 127.0.0.1 when connected. Every address of the answer is
 * checked (a mixed answer is refused), the lookup happens once, and the caller connects to the
 * returned `address` only. The same function runs on every redirect hop and every crawled link.
 */
export async function vetAddress(url: string, options: VetOptions): Promise<VetResult> {
  const rules = checkUrlRules(url);
  if (!rules.ok) return rules;
  const { url: parsed, host } = rules;
  if (isIP(host) !== 0) {
    const verdict = classifyAddress(host);
    if (!verdict.public) return { ok: false, reason: refusalReason(verdict) };
    return { ok: true, url: parsed.href, host, address: verdict.address, family: verdict.family };
  }
  let answers: readonly { address: string; family: number }[];
  try {
    answers = await raceAbort(Promise.resolve(options.resolve(host)), options.signal);
  } catch (error) {
    if (options.signal?.aborted) return { ok: false, reason: `timed out resolving ${host}` };
    const code = (error as { code?: unknown } | null)?.code;
    return { ok: false, reason: `could not resolve ${host}${typeof code === 'string' ? ` (${code})` : ''}` };
  }
  if (!Array.isArray(answers) || answers.length === 0) return { ok: false, reason: `${host} resolved to no address` };
  let pinned: { address: string; family: 4 | 6 } | undefined;
  for (const answer of answers) {
    const verdict = classifyAddress(String(answer?.address ?? ''));
    if (!verdict.public) return { ok: false, reason: `${host} resolves to ${refusalReason(verdict)}` };
    if (!pinned || (pinned.family === 6 && verdict.family === 4)) pinned = { address: verdict.address, family: verdict.family };
  }
  if (!pinned) return { ok: false, reason: `${host} resolved to no address` };
  return { ok: true, url: parsed.href, host, address: pinned.address, family: pinned.family };
}

function raceAbort<T>(work: Promise<T>, signal: AbortSignal | undefined): Promise<T> {
  if (!signal) return work;
  if (signal.aborted) return Promise.reject(new Error('aborted'));
  return new Promise<T>((done, fail) => {
    const onAbort = (): void => fail(new Error('aborted'));
    signal.addEventListener('abort', onAbort, { once: true });
    work.then(
      (value) => {
        signal.removeEventListener('abort', onAbort);
        done(value);
      },
      (error: unknown) => {
        signal.removeEventListener('abort', onAbort);
        fail(error);
      },
    );
  });
}
