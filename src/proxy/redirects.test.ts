import { describe, expect, it } from 'vitest';
import { isRedirectStatus, nextHop } from './redirects.ts';

describe('redirects', () => {
  it('follows 301, 302, 303, 307 and 308 only', () => {
    expect([301, 302, 303, 307, 308].every(isRedirectStatus)).toBe(true);
    expect([200, 300, 304, 305, 306, 404].some(isRedirectStatus)).toBe(false);
  });

  it('rule 4: resolves Location against the current page and drops the fragment', () => {
    expect(nextHop('../b?x=1#f', 'https://a.example/dir/page', 0)).toEqual({ ok: true, url: 'https://a.example/b?x=1' });
    expect(nextHop('//other.example/p', 'https://a.example/', 0)).toEqual({ ok: true, url: 'https://other.example/p' });
  });

  it('rule 4: refuses the 4th redirect, a missing Location and a non-https target', () => {
    expect(nextHop('/x', 'https://a.example/', 3)).toEqual({ ok: false, reason: 'more than 3 redirects' });
    expect(nextHop(undefined, 'https://a.example/', 0).ok).toBe(false);
    expect(nextHop('http://a.example/', 'https://a.example/', 0)).toMatchObject({ ok: false, reason: expect.stringContaining('non-https') });
    expect(nextHop('file:///etc/passwd', 'https://a.example/', 0).ok).toBe(false);
  });
});
