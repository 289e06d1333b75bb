import { describe, expect, it, vi } from 'vitest';
import type { ResolvedAddress } from './resolver.ts';
import { vetAddress } from './vet-address.ts';

function resolverOf(table: Record<string, string[]>) {
  return vi.fn(async (host: string): Promise<ResolvedAddress[]> => {
    const addresses = table[host];
    if (!addresses) throw Object.assign(new Error(`getaddrinfo ENOTFOUND ${host}`), { code: 'ENOTFOUND' });
    return addresses.map((address) => ({ address, family: address.includes(':') ? 6 : 4 }));
  });
}

describe('vetAddress', () => {
  it('rule 3: resolves once and returns the one address to connect to', async () => {
    const resolve = resolverOf({ 'example.com': ['93.184.216.34'] });
    const result = await vetAddress('http://Example.com/a#frag', { resolve });
    expect(result).toEqual({ ok: true, url: 'https://example.com/a', host: 'example.com', address: '93.184.216.34', family: 4 });
    expect(resolve).toHaveBeenCalledTimes(1);
    expect(resolve).toHaveBeenCalledWith('example.com');
  });

  it('rule 3: prefers an IPv4 address when the name has both', async () => {
    const resolve = resolverOf({ 'dual.example': ['2606:4700::6810:84e5', '104.16.132.229'] });
    expect(await vetAddress('https://dual.example/', { resolve })).toMatchObject({ ok: true, address: '104.16.132.229', family: 4 });
  });

  it('accepts an IPv6-only name', async () => {
    const resolve = resolverOf({ 'v6.example': ['2606:4700::6810:84e5'] });
    expect(await vetAddress('https://v6.example/', { resolve })).toMatchObject({ ok: true, address: '2606:4700::6810:84e5', family: 6 });
  });

  it.each([
    ['127.0.0.1', 'loopback'],
    ['10.0.0.7', 'private'],
    ['192.168.0.1', 'private'],
    ['169.254.169.254', 'link-local'],
    ['100.64.1.1', 'CGNAT'],
    ['224.0.0.251', 'multicast'],
    ['0.0.0.0', 'unspecified'],
    ['240.0.0.1', 'reserved'],
    ['::1', 'loopback'],
    ['::ffff:127.0.0.1', 'IPv4-mapped'],
    ['::7f00:1', 'IPv4-compatible'],
    ['64:ff9b::a00:1', 'NAT64'],
    ['2002:a00:1::1', '6to4'],
    ['2001:0:4136:e378:8000:63bf:3fff:fdd2', 'Teredo'],
    ['fd00::1', 'unique local'],
    ['fe80::1', 'link-local'],
  ])('rule 2: refuses a name resolving to %s (%s)', async (address, range) => {
    const resolve = resolverOf({ 'evil.example': [address] });
    const result = await vetAddress('https://evil.example/', { resolve });
    expect(result.ok).toBe(false);
    if (!result.ok) expect(result.reason).toContain(range);
  });

  it('rule 2: refuses when ANY resolved address is not public, wherever it is in the answer', async () => {
    for (const answer of [
      ['93.184.216.34', '127.0.0.1'],
      ['127.0.0.1', '93.184.216.34'],
      ['93.184.216.34', '2606:4700::1', 'fd00::1'],
    ]) {
      const resolve = resolverOf({ 'mixed.example': answer });
      const result = await vetAddress('https://mixed.example/', { resolve });
      expect(result.ok).toBe(false);
    }
  });

  it.each([
    'https://127.0.0.1/',
    'https://2130706433/',
    'https://0x7f.1/',
    'https://0x7f000001/',
    'https://0177.0.0.1/',
    'https://127.1/',
    'https://017700000001/',
    'https://10.1/',
    'https://169.254.169.254/latest/meta-data/',
    'https://0xa9fea9fe/',
    'https://[::1]/',
    'https://[::ffff:127.0.0.1]/',
    'https://[::127.0.0.1]/',
    'https://[0:0:0:0:0:ffff:7f00:1]/',
    'https://[64:ff9b::127.0.0.1]/',
    'https://[fd00::1]/',
    'https://0.0.0.0/',
    'https://100.100.100.100/',
  ])('rule 2: refuses the numeric host %s without any lookup', async (url) => {
    const resolve = resolverOf({});
    const result = await vetAddress(url, { resolve });
    expect(result.ok).toBe(false);
    expect(resolve).not.toHaveBeenCalled();
  });

  it('accepts a public IP literal without a lookup', async () => {
    const resolve = resolverOf({});
    expect(await vetAddress('https://93.184.216.34/x', { resolve })).toMatchObject({ ok: true, address: '93.184.216.34', host: '93.184.216.34' });
    expect(resolve).not.toHaveBeenCalled();
  });

  it('rule 2: refuses localhost names without resolving them', async () => {
    const resolve = resolverOf({ localhost: ['93.184.216.34'], 'app.localhost': ['93.184.216.34'] });
    expect((await vetAddress('https://localhost/', { resolve })).ok).toBe(false);
    expect((await vetAddress('https://app.localhost/', { resolve })).ok).toBe(false);
    expect(resolve).not.toHaveBeenCalled();
  });

  it('URL rules: refuses before resolving (port, scheme, credentials)', async () => {
    const resolve = resolverOf({ 'example.com': ['93.184.216.34'] });
    for (const url of ['https://example.com:8443/', 'ftp://example.com/', 'https://u:p@example.com/']) {
      expect((await vetAddress(url, { resolve })).ok).toBe(false);
    }
    expect(resolve).not.toHaveBeenCalled();
  });

  it('fails closed when the name does not resolve, resolves to nothing, or to junk', async () => {
    expect(await vetAddress('https://nxdomain.example/', { resolve: resolverOf({}) })).toEqual({
      ok: false,
      reason: 'could not resolve nxdomain.example (ENOTFOUND)',
    });
    expect(await vetAddress('https://empty.example/', { resolve: async () => [] })).toMatchObject({ ok: false, reason: expect.stringContaining('no address') });
    expect(await vetAddress('https://junk.example/', { resolve: async () => [{ address: 'not-an-ip', family: 4 }] })).toMatchObject({ ok: false });
    expect(
      await vetAddress('https://sync-throw.example/', {
        resolve: () => {
          throw new Error('boom');
        },
      }),
    ).toMatchObject({ ok: false });
  });

  it('gives up when the deadline passes during the lookup', async () => {
    const controller = new AbortController();
    const pending = vetAddress('https://slow.example/', { resolve: () => new Promise(() => undefined), signal: controller.signal });
    controller.abort();
    expect(await pending).toEqual({ ok: false, reason: 'timed out resolving slow.example' });
  });
});
