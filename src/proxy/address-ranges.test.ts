import { describe, expect, it } from 'vitest';
import { classifyAddress, clientNetwork } from './address-ranges.ts';

describe('classifyAddress', () => {
  it.each([
    ['127.0.0.1', 'loopback'],
    ['127.255.255.254', 'loopback'],
    ['10.1.2.3', 'private'],
    ['172.16.0.1', 'private'],
    ['172.31.255.255', 'private'],
    ['192.168.1.1', 'private'],
    ['169.254.169.254', 'link-local'],
    ['169.254.0.1', 'link-local'],
    ['100.64.0.1', 'CGNAT'],
    ['100.127.255.254', 'CGNAT'],
    ['224.0.0.1', 'multicast'],
    ['239.255.255.250', 'multicast'],
    ['0.0.0.0', 'unspecified'],
    ['0.1.2.3', 'unspecified'],
    ['255.255.255.255', 'broadcast'],
    ['240.0.0.1', 'reserved'],
    ['192.0.2.1', 'reserved'],
    ['198.18.0.1', 'reserved'],
    ['198.51.100.7', 'reserved'],
    ['203.0.113.9', 'reserved'],
    ['192.0.0.8', 'reserved'],
  ])('rule 2: refuses IPv4 %s (%s)', (address, range) => {
    const verdict = classifyAddress(address);
    expect(verdict.public).toBe(false);
    if (!verdict.public) expect(verdict.range).toContain(range);
  });

  it.each([
    ['::1', 'loopback'],
    ['::', 'unspecified'],
    ['fe80::1', 'link-local'],
    ['fc00::1', 'unique local'],
    ['fd12:3456::1', 'unique local'],
    ['ff02::1', 'multicast'],
    ['fec0::1', 'site-local'],
    ['::ffff:127.0.0.1', 'IPv4-mapped IPv6 of loopback'],
    ['::ffff:7f00:1', 'IPv4-mapped IPv6 of loopback'],
    ['::ffff:10.0.0.1', 'IPv4-mapped IPv6 of private'],
    ['::ffff:169.254.169.254', 'IPv4-mapped IPv6 of link-local'],
    ['::7f00:1', 'IPv4-compatible IPv6 (embeds 127.0.0.1)'],
    ['::127.0.0.1', 'IPv4-compatible IPv6 (embeds 127.0.0.1)'],
    ['::a00:1', 'IPv4-compatible IPv6 (embeds 10.0.0.1)'],
    ['::8.8.8.8', 'IPv4-compatible'],
    ['64:ff9b::7f00:1', 'NAT64'],
    ['64:ff9b::a9fe:a9fe', 'NAT64'],
    ['2002:7f00:1::1', '6to4'],
    ['2001:0:4136:e378:8000:63bf:3fff:fdd2', 'Teredo'],
    ['2001:db8::1', 'reserved'],
    ['4000::1', 'outside 2000::/3'],
    ['fe80::1%eth0', 'zone id'],
  ])('rule 2: refuses IPv6 %s (%s)', (address, range) => {
    const verdict = classifyAddress(address);
    expect(verdict.public).toBe(false);
    if (!verdict.public) expect(verdict.range).toContain(range);
  });

  it.each(['93.184.216.34', '8.8.8.8', '1.1.1.1', '151.101.1.69', '100.63.255.255', '100.128.0.0', '172.32.0.1', '11.0.0.1'])(
    'accepts public IPv4 %s',
    (address) => {
      expect(classifyAddress(address)).toEqual({ public: true, address, family: 4 });
    },
  );

  it.each(['2606:4700:4700::1111', '2a00:1450:4001:81c::200e', '2001:4860:4860::8888'])('accepts public IPv6 %s', (address) => {
    expect(classifyAddress(address).public).toBe(true);
  });

  it('judges an IPv4-mapped address by the IPv4 inside it', () => {
    expect(classifyAddress('::ffff:93.184.216.34')).toMatchObject({ public: true, family: 6 });
  });

  it.each(['example.com', '', '0x7f.1', '2130706433', '0177.0.0.1', '127.1', '1.2.3.4.5'])(
    'refuses a string that is not a dotted-decimal or IPv6 address: %j',
    (text) => {
      expect(classifyAddress(text)).toMatchObject({ public: false, range: 'not an IP address' });
    },
  );
});

describe('clientNetwork (issue 52)', () => {
  it('is the IPv4 /24 or the IPv6 /56 of an address; a mapped IPv4 address counts as IPv4', () => {
    expect(clientNetwork('203.0.113.77')).toBe('203.0.113.0/24');
    expect(clientNetwork('2001:db8:0:abcd:1:2:3:4')).toBe('2001:db8:0:ab00::/56');
    expect(clientNetwork('::ffff:203.0.113.9')).toBe('203.0.113.0/24');
    // The wide block a full answer store drops from first (issue 67, L6).
    expect(clientNetwork('203.0.113.77', { wide: true })).toBe('203.0.0.0/16');
    expect(clientNetwork('2001:db8:0:abcd:1:2:3:4', { wide: true })).toBe('2001:db8::/48');
    expect(clientNetwork('not an address')).toBe('not an address');
  });
});
