import { describe, expect, it } from 'vitest';
import { LINEAR_GROWTH_LIMIT, growthRatio } from '../../tests/proxy/helpers/growth.ts';
import { addressesInMessage, hostsInMessage } from './message-hosts.ts';

describe('hostsInMessage', () => {
  it('finds full addresses and bare names, normalised and deduplicated', () => {
    expect(hostsInMessage('Read (https://Blog.Rust-lang.org/releases/latest/), then example.com/jobs, "www.site.example". Also http://example.com!')).toEqual([
      'blog.rust-lang.org',
      'example.com',
      'www.site.example',
    ]);
  });

  it('handles IDNs and IP literals the user wrote', () => {
    expect(hostsInMessage('bücher.de and https://[2606:4700::1]/x and https://93.184.216.34/')).toEqual(['xn--bcher-kva.de', '2606:4700::1', '93.184.216.34']);
  });

  it('ignores e-mail addresses, numbers and plain words', () => {
    expect(hostsInMessage('mail me at someone@example.com, version 1.5, cost 3.50, e.g. this')).toEqual([]);
  });

  it('caps the number of hosts', () => {
    const message = Array.from({ length: 150 }, (_, i) => `h${i}.example`).join(' ');
    expect(hostsInMessage(message)).toHaveLength(100);
  });
});

describe('addressesInMessage', () => {
  it('keeps each address as written, bare names as https, both readings of a closing bracket', () => {
    expect(addressesInMessage('Read (https://en.wikipedia.org/wiki/Rust_(language)), then example.com/jobs?x=1 and www.site.example.')).toEqual([
      'https://en.wikipedia.org/wiki/Rust_(language',
      'https://en.wikipedia.org/wiki/Rust_(language))',
      'https://example.com/jobs?x=1',
      'https://www.site.example',
    ]);
  });

  it('caps the number of addresses', () => {
    const message = Array.from({ length: 300 }, (_, i) => `https://h.example/${i}`).join(' ');
    expect(addressesInMessage(message)).toHaveLength(200);
  });
});

describe('hostsInMessage is linear in the message (issue 12, finding 1)', () => {
  it.each([
    ['closing punctuation that does not end the token', (n: number) => `example.com${')'.repeat(n)}x`],
    ['mixed trailing punctuation', (n: number) => `a${'.:;!?'.repeat(n / 5)}b`],
    ['opening punctuation', (n: number) => `${'(['.repeat(n / 2)}example.com`],
    ['a long dotted name that fails at the end', (n: number) => `${'a.'.repeat(n / 2)}-`],
    ['an address with a long tail of punctuation', (n: number) => `https://example.com/${')'.repeat(n)}x`],
  ])('%s', (_name, make) => {
    expect(growthRatio(hostsInMessage, make, 2_000)).toBeLessThan(LINEAR_GROWTH_LIMIT);
  });
});
