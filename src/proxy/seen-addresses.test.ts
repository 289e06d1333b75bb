import { describe, expect, it } from 'vitest';
import { addressKey, SeenAddresses } from './seen-addresses.ts';

describe('addressKey', () => {
  it('normalises scheme and host case, the default port, one trailing slash and the fragment; keeps the query as written', () => {
    expect(addressKey('HTTP://Example.COM.:443/a/b/?x=1&y=2#frag')).toBe('https://example.com/a/b?x=1&y=2');
    expect(addressKey('https://example.com')).toBe('https://example.com/');
    expect(addressKey('https://example.com/a?y=2&x=1')).not.toBe(addressKey('https://example.com/a?x=1&y=2'));
    expect(addressKey('https://example.com/A')).not.toBe(addressKey('https://example.com/a'));
  });

  it('is undefined for what is not an absolute http(s) address', () => {
    for (const text of ['', 'example.com', 'ftp://example.com/', 'javascript:alert(1)', 'https://']) expect(addressKey(text), text).toBeUndefined();
  });
});

describe('SeenAddresses', () => {
  it('answers for exact addresses, and for hosts only through hasSeenHost', () => {
    const seen = new SeenAddresses();
    expect(seen.markSeen('https://site.example/page?id=7')).toBe(true);
    expect(seen.hasSeen('https://SITE.example/page/?id=7#x')).toBe(true);
    expect(seen.hasSeen('https://site.example/page?id=8')).toBe(false);
    expect(seen.hasSeen('https://site.example/')).toBe(false);
    expect(seen.hasSeenHost('site.example')).toBe(true);
    expect(seen.markSeen('not an address')).toBe(false);
  });

  it('is bounded', () => {
    const seen = new SeenAddresses({ maxAddresses: 2 });
    expect([1, 2, 3].map((i) => seen.markSeen(`https://a.example/${i}`))).toEqual([true, true, false]);
    expect(seen.size).toBe(2);
    expect(seen.markSeen('https://a.example/1')).toBe(true);
  });
});
