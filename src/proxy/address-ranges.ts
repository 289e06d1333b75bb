import { isIP } from 'node:net';
import ipaddr from 'ipaddr.js';

/** Outcome of {@link classifyAddress}. */
export type AddressVerdict = { public: true; address: string; family: 4 | 6 } | { public: false; address: string; range: string };

/** Human names for ipaddr.js range labels, used in refusal reasons. */
const RANGE_NAMES: Readonly<Record<string, string>> = {
  unspecified: 'unspecified',
  broadcast: 'broadcast',
  multicast: 'multicast',
  linkLocal: 'link-local',
  loopback: 'loopback',
  carrierGradeNat: 'shared address space (CGNAT 100.64.0.0/10)',
  private: 'private',
  reserved: 'reserved',
  as112: 'reserved (AS112)',
  amt: 'reserved (AMT)',
  uniqueLocal: 'unique local (ULA fc00::/7)',
  deprecatedSiteLocal: 'site-local',
  discard: 'discard-only',
  rfc6145: 'IPv4-translated',
  rfc6052: 'NAT64 (64:ff9b::/96)',
  '6to4': '6to4 (2002::/16)',
  teredo: 'Teredo (2001::/32)',
  benchmarking: 'benchmarking',
  orchid2: 'reserved (ORCHIDv2)',
  deprecatedOrchid: 'reserved (ORCHID)',
  droneRemoteIdProtocolEntityTags: 'reserved (DRIP)',
  segmentRouting: 'segment routing',
  as112v6: 'reserved (AS112)',
};

/** Only 2000::/3 is allocated global unicast; everything outside it is refused. */
const GLOBAL_UNICAST_V6 = ipaddr.IPv6.parseCIDR('2000::/3');

/**
 * Decides whether one IP address (as the URL parser or a resolver wrote it) is a public unicast
 * address the page reader may connect to.
 *
 * IPv4: only ipaddr.js's `unicast` range passes. That excludes loopback 127/8, private 10/8,
 * 172.16/12 and 192.168/16, link-local 169.254/16 (the cloud metadata address 169.254.169.254),
 * CGNAT 100.64/10, multicast, broadcast, 0/8 and every reserved block.
 * IPv6: an IPv4-mapped address (`::ffff:a.b.c.d`) is judged as the IPv4 inside it; any other
 * address must be `unicast` **and** inside 2000::/3. That refuses ::1, ::, link-local, ULA,
 * multicast, and the forms that embed an IPv4 address: IPv4-compatible `::a.b.c.d`, NAT64
 * 64:ff9b::/96, 6to4 2002::/16 and Teredo 2001::/32. Zone ids (`fe80::1%eth0`) are refused.
 *
 * @param address - a textual IPv4 or IPv6 address (no brackets, no port).
 * @returns `public: true` with the canonical address, or `public: false` with the range's name.
 *
 * @remarks Security: rule 2 (public addresses only). Threat: server-side request forgery — a model
 * or a page steering the proxy to the machine's own services, the home router, other devices on the
 * network or a cloud metadata endpoint. ipaddr.js calls the IPv4-compatible form `::7f00:1` plain
 * `unicast`; the 2000::/3 requirement is what closes that gap.
 */
export function classifyAddress(address: string): AddressVerdict {
  const text = address.trim();
  const kind = isIP(text);
  if (kind === 4) {
    // isIP accepts only dotted-decimal, so inet_aton spellings never reach ipaddr.js's lenient parser.
    const v4 = ipaddr.IPv4.parse(text);
    return judgeV4(v4, text, '');
  }
  if (kind === 6) {
    if (text.includes('%')) return { public: false, address: text, range: 'scoped (zone id)' };
    // Canonicalise through the WHATWG parser: ipaddr.js reads `::1.2.3.4` as IPv4-mapped, the URL
    // parser (which produced the host in the first place) as IPv4-compatible `::102:304`.
    const canonical = new URL(`http://[${text}]/`).hostname.slice(1, -1);
    const v6 = ipaddr.IPv6.parse(canonical);
    if (v6.isIPv4MappedAddress()) {
      const inner = judgeV4(v6.toIPv4Address(), canonical, 'IPv4-mapped IPv6 of ');
      return inner.public ? { public: true, address: canonical, family: 6 } : inner;
    }
    const parts = v6.parts;
    if (parts.slice(0, 6).every((p) => p === 0) && !(parts[6] === 0 && (parts[7] ?? 0) <= 1)) {
      const embedded = `${(parts[6] ?? 0) >> 8}.${(parts[6] ?? 0) & 255}.${(parts[7] ?? 0) >> 8}.${(parts[7] ?? 0) & 255}`;
      return { public: false, address: canonical, range: `IPv4-compatible IPv6 (embeds ${embedded})` };
    }
    const range = v6.range();
    if (range !== 'unicast') return { public: false, address: canonical, range: RANGE_NAMES[range] ?? range };
    if (!v6.match(GLOBAL_UNICAST_V6)) return { public: false, address: canonical, range: 'unallocated (outside 2000::/3)' };
    return { public: true, address: canonical, family: 6 };
  }
  return { public: false, address: text, range: 'not an IP address' };
}

function judgeV4(v4: ipaddr.IPv4, shown: string, prefix: string): AddressVerdict {
  const range = v4.range();
  if (range === 'unicast') return { public: true, address: shown, family: 4 };
  return { public: false, address: shown, range: `${prefix}${RANGE_NAMES[range] ?? range}` };
}

/**
 * One line naming why an address is refused, e.g. `127.0.0.1 is not a public address (loopback)`.
 * @param verdict - a non-public verdict from {@link classifyAddress}.
 */
export function refusalReason(verdict: Extract<AddressVerdict, { public: false }>): string {
  return `${verdict.address} is not a public address (${verdict.range})`;
}

/**
 * The network a client address belongs to, as a fair share counts clients: its IPv4 /24 or its IPv6
 * /56 (what one home or one server is usually given), so the addresses one party holds in a block
 * count as one client. `wide`, the block around it: its IPv4 /16 or IPv6 /48 (one site's), where a party
 * holding many networks is still one. An IPv4-mapped IPv6 address counts as its IPv4 address; text that
 * is not an address is returned as it is.
 *
 * @param address - the client's address, as the socket or the trusted proxy header gives it.
 * @param options.wide - the wider block instead.
 * @returns `203.0.113.0/24` or `2001:db8:0:ab00::/56`; `wide`, `203.0.0.0/16` or `2001:db8::/48`.
 */
export function clientNetwork(address: string, { wide = false }: { wide?: boolean } = {}): string {
  if (!ipaddr.isValid(address)) return address;
  let parsed = ipaddr.parse(address);
  if (parsed.kind() === 'ipv6' && (parsed as ipaddr.IPv6).isIPv4MappedAddress()) parsed = (parsed as ipaddr.IPv6).toIPv4Address();
  const bits = parsed.kind() === 'ipv4' ? (wide ? 16 : 24) : wide ? 48 : 56;
  const bytes = parsed.toByteArray();
  const masked = bytes.map((byte, i) => {
    const kept = Math.max(0, Math.min(8, bits - i * 8));
    return byte & ((0xff << (8 - kept)) & 0xff);
  });
  return `${ipaddr.fromByteArray(masked).toString()}/${bits}`;
}
