import { describe, expect, it } from 'vitest';
import type { ProxyError } from './errors.ts';
import { checkRequestGuard, isLoopbackHost } from './request-guard.ts';

function guard(headers: Record<string, string>, options = {}): string | undefined {
  try {
    checkRequestGuard({ headers }, options);
    return undefined;
  } catch (error) {
    return (error as ProxyError).code;
  }
}

describe('checkRequestGuard', () => {
  it('accepts the page on loopback, with or without its own Origin', () => {
    expect(guard({ host: '127.0.0.1:4173' })).toBeUndefined();
    expect(guard({ host: 'localhost:5173', origin: 'http://localhost:5173' })).toBeUndefined();
    expect(guard({ host: '[::1]:8787', origin: 'http://[::1]:8787' })).toBeUndefined();
  });

  it('refuses a foreign Host (DNS rebinding of an attacker name to 127.0.0.1)', () => {
    expect(guard({ host: 'evil.example:4173' })).toBe('forbidden_origin');
    expect(guard({})).toBe('forbidden_origin');
  });

  it('refuses a cross-site Origin, a null Origin, and Sec-Fetch-Site: cross-site', () => {
    expect(guard({ host: '127.0.0.1:4173', origin: 'https://evil.example' })).toBe('forbidden_origin');
    expect(guard({ host: '127.0.0.1:4173', origin: 'http://127.0.0.1:9999' })).toBe('forbidden_origin');
    expect(guard({ host: '127.0.0.1:4173', origin: 'null' })).toBe('forbidden_origin');
    expect(guard({ host: '127.0.0.1:4173', 'sec-fetch-site': 'cross-site' })).toBe('forbidden_origin');
  });

  it('refuses a navigation or a frame, even from the page itself: an answer is never opened as a page (issue 41)', () => {
    const page = { host: '127.0.0.1:4173', 'sec-fetch-site': 'same-origin' };
    expect(guard({ ...page, 'sec-fetch-mode': 'navigate', 'sec-fetch-dest': 'document' })).toBe('navigation_refused');
    expect(guard({ ...page, 'sec-fetch-mode': 'navigate', 'sec-fetch-dest': 'iframe' })).toBe('navigation_refused');
    expect(guard({ ...page, 'sec-fetch-mode': 'no-cors', 'sec-fetch-dest': 'object' })).toBe('navigation_refused');
    // The page's own fetches pass.
    expect(guard({ ...page, 'sec-fetch-mode': 'cors', 'sec-fetch-dest': 'empty' })).toBeUndefined();
  });

  it('refuses a page on another port of this machine (same site, another origin) that sends no Origin', () => {
    expect(guard({ host: '127.0.0.1:4173', 'sec-fetch-site': 'same-site', 'sec-fetch-mode': 'no-cors', 'sec-fetch-dest': 'image' })).toBe('forbidden_origin');
  });

  it('accepts configured origins and their host', () => {
    const options = { origins: ['https://chat.example.org'] };
    expect(guard({ host: 'chat.example.org', origin: 'https://chat.example.org' }, options)).toBeUndefined();
    expect(guard({ host: 'chat.example.org', origin: 'https://evil.example' }, options)).toBe('forbidden_origin');
  });

  it('requires the token when one is configured', () => {
    const options = { token: 'a-long-shared-token-123' };
    expect(guard({ host: '127.0.0.1' }, options)).toBe('unauthorized');
    expect(guard({ host: '127.0.0.1', authorization: 'Bearer wrong' }, options)).toBe('unauthorized');
    expect(guard({ host: '127.0.0.1', authorization: 'Bearer a-long-shared-token-123' }, options)).toBeUndefined();
    expect(guard({ host: '127.0.0.1', 'x-proxy-token': 'a-long-shared-token-123' }, options)).toBeUndefined();
  });

  it('isLoopbackHost', () => {
    expect(['localhost', 'a.localhost', '127.0.0.1', '127.9.9.9', '::1', '[::1]'].every(isLoopbackHost)).toBe(true);
    expect(['0.0.0.0', '10.0.0.1', 'example.com', '::', '128.0.0.1'].some(isLoopbackHost)).toBe(false);
  });
});
