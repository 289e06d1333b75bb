import { lookup } from 'node:dns/promises';

/** One address a name resolves to, as `dns.lookup({ all: true })` reports it. */
export interface ResolvedAddress {
  address: string;
  family: number;
}

/**
 * Resolves a host name to every address it has. Throws for a name that does not exist.
 * The page reader calls it exactly once per hop; tests inject a fake.
 */
export type Resolver = (host: string) => Promise<readonly ResolvedAddress[]> | readonly ResolvedAddress[];

/**
 * The production resolver: the system's `getaddrinfo` (reads /etc/hosts too), all addresses, in the
 * order the system returned them. It cannot be cancelled, so callers race it against their deadline.
 * @param host - a DNS name (never an IP literal; those are judged without a lookup).
 */
export async function systemResolver(host: string): Promise<ResolvedAddress[]> {
  return lookup(host, { all: true, verbatim: true });
}
