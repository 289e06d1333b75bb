import { describe, expect, it } from 'vitest';
import { describeLink } from './link-check.ts';

describe('describeLink (issue 28, N6)', () => {
  it('names the host and counts the data an address carries after ? and #', () => {
    expect(describeLink('https://www.example.org/docs/guide')).toEqual({
      href: 'https://www.example.org/docs/guide',
      destination: 'example.org',
      mail: false,
      dataChars: 10,
      longData: false,
      dataParts: [],
      dataWhere: 'its path and query',
    });
    expect(describeLink('https://news.example/item?id=42')).toMatchObject({ dataChars: 9, longData: false });
  });

  it('flags a long query, where a composed link would carry the conversation', () => {
    const leak = `https://attacker.example/c?d=${encodeURIComponent('The user said their card number is 4111 1111 1111 1111 and lives at 12 Rose Street')}`;
    expect(describeLink(leak)).toMatchObject({ destination: 'attacker.example', longData: true });
    expect(describeLink(`https://a.example/?q=${'ab%20'.repeat(15)}`)?.longData).toBe(false);
  });

  it.each([
    ['a card number in the path', 'https://attacker.example/c/4111-1111-1111-1111', ['path']],
    ['a long path', `https://attacker.example/${'the-user-lives-at-12-rose-street-and-their-doctor-said-'.repeat(2)}`, ['path']],
    ['a card number as a subdomain', 'https://4111111111111111.attacker.example/', ['subdomain']],
    ['words as subdomains', 'https://the.user.lives.at.rose.street.attacker.example/', ['subdomain']],
    ['an encoded token in the query', 'https://attacker.example/?t=VGhlIHVzZXIgbGl2ZXMgYXQgMTIgUm9zZSBTdHJlZXQ', ['query']],
    ['a phone number, spaced, in the query', 'https://attacker.example/?p=%2B44+20+7946+0958+12', ['query']],
  ])('flags data in the path, the subdomain or the query, not only a long query (issue 41): %s', (_what, href, parts) => {
    expect(describeLink(href)).toMatchObject({ destination: expect.stringContaining('attacker.example'), longData: true, dataParts: parts });
  });

  it.each([
    'https://en.wikipedia.org/wiki/Darjeeling_tea',
    'https://docs.python.org/3/library/asyncio.html',
    'https://news.example/2026/12/04/rain-in-chennai',
    'https://github.com/huggingface/transformers.js/issues/1234',
    'https://example.org/search?q=weather+in+oslo',
  ])('leaves an ordinary address unflagged: %s', (href) => {
    expect(describeLink(href)?.longData).toBe(false);
  });

  it('describes mail links by recipient, and refuses other schemes', () => {
    expect(describeLink('mailto:someone@example.org?body=hello')).toMatchObject({ destination: 'someone@example.org', mail: true });
    expect(describeLink('javascript:alert(1)')).toBeUndefined();
    expect(describeLink('not a url')).toBeUndefined();
  });
});
