import { describe, expect, it } from 'vitest';
import { hostsInMessage } from './message-hosts.ts';

describe('hostsInMessage', () => {
  it('finds full addresses and bare names, normalised and deduplicated', () => {
    expect(
      hostsInMessage('Read (https://Blog.Rust-lang.org/releases/latest/), then example.com/jobs, "www.site.example". Also http://example.com!'),
    ).toEqual(['blog.rust-lang.org', 'example.com', 'www.site.example']);
  });

  it('handles IDNs and IP literals the user wrote', () => {
    expect(hostsInMessage('bücher.de and https://[2606:4700::1]/x and https://93.184.216.34/')).toEqual([
      'xn--bcher-kva.de',
      '2606:4700::1',
      '93.184.216.34',
    ]);
  });

  it('ignores e-mail addresses, numbers and plain words', () => {
    expect(hostsInMessage('mail me at someone@example.com, version 1.5, cost 3.50, e.g. this')).toEqual([]);
  });

  it('caps the number of hosts', () => {
    const message = Array.from({ length: 150 }, (_, i) => `h${i}.example`).join(' ');
    expect(hostsInMessage(message)).toHaveLength(100);
  });
});
