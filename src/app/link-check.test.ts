import { describe, expect, it } from 'vitest';
import { describeLink, LONG_QUERY_CHARS } from './link-check.ts';

describe('describeLink (issue 28, N6)', () => {
  it('names the host and counts the data an address carries after ? and #', () => {
    expect(describeLink('https://www.example.org/docs/guide')).toEqual({
      href: 'https://www.example.org/docs/guide',
      destination: 'example.org',
      mail: false,
      dataChars: 0,
      longData: false,
    });
    expect(describeLink('https://news.example/item?id=42')).toMatchObject({ dataChars: 5, longData: false });
  });

  it('flags a long query, where a composed link would carry the conversation', () => {
    const leak = `https://attacker.example/c?d=${encodeURIComponent('The user said their card number is 4111 1111 1111 1111 and lives at 12 Rose Street')}`;
    expect(describeLink(leak)).toMatchObject({ destination: 'attacker.example', longData: true });
    expect(describeLink(`https://a.example/?q=${'x'.repeat(LONG_QUERY_CHARS - 2)}`)?.longData).toBe(false);
  });

  it('describes mail links by recipient, and refuses other schemes', () => {
    expect(describeLink('mailto:someone@example.org?body=hello')).toMatchObject({ destination: 'someone@example.org', mail: true });
    expect(describeLink('javascript:alert(1)')).toBeUndefined();
    expect(describeLink('not a url')).toBeUndefined();
  });
});
