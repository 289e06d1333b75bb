import { describe, expect, it } from 'vitest';
import { checkUrlRules, hostKey, isLocalhostName } from './url-rules.ts';

function refused(raw: string): string {
  const result = checkUrlRules(raw);
  if (result.ok) throw new Error(`expected ${raw} to be refused`);
  return result.reason;
}

describe('checkUrlRules', () => {
  it('accepts an https address and normalises it', () => {
    const result = checkUrlRules('https://Example.COM./a/b?c=d');
    expect(result).toMatchObject({ ok: true, host: 'example.com' });
    if (result.ok) expect(result.url.href).toBe('https://example.com/a/b?c=d');
  });

  it('URL rules: tries an http address as https', () => {
    const result = checkUrlRules('http://example.com/page');
    expect(result.ok && result.url.href).toBe('https://example.com/page');
  });

  it('URL rules: refuses other schemes', () => {
    for (const raw of ['ftp://example.com/', 'file:///etc/passwd', 'gopher://example.com/', 'data:text/html,hi', 'javascript:alert(1)', 'ws://example.com/']) {
      expect(refused(raw)).toMatch(/only https/);
    }
  });

  it('URL rules: refuses any port but 443', () => {
    expect(refused('https://example.com:8443/')).toContain('port 8443');
    expect(refused('https://example.com:22/')).toContain('port 22');
    expect(refused('http://example.com:8080/')).toContain('port 8080');
    expect(checkUrlRules('https://example.com:443/').ok).toBe(true);
    expect(checkUrlRules('http://example.com:80/').ok).toBe(true);
  });

  it('URL rules: refuses a user name or password', () => {
    expect(refused('https://user@example.com/')).toContain('user name or password');
    expect(refused('https://user:secret@example.com/')).toContain('user name or password');
    expect(refused('https://:secret@example.com/')).toContain('user name or password');
  });

  it('URL rules: strips the fragment, including an empty one', () => {
    const a = checkUrlRules('https://example.com/page#section-2');
    const b = checkUrlRules('https://example.com/page#');
    expect(a.ok && a.url.href).toBe('https://example.com/page');
    expect(b.ok && b.url.href).toBe('https://example.com/page');
  });

  it('rule 2: refuses localhost and *.localhost by name', () => {
    expect(refused('https://localhost/')).toContain('local machine');
    expect(refused('https://LOCALHOST./x')).toContain('local machine');
    expect(refused('https://api.localhost/')).toContain('local machine');
    expect(refused('http://localhost:80/')).toContain('local machine');
  });

  it('rule 2: numeric host spellings come out as dotted decimal for the address table', () => {
    for (const raw of ['https://2130706433/', 'https://0x7f.1/', 'https://0177.0.0.1/', 'https://127.1/', 'https://0x7f000001/']) {
      const result = checkUrlRules(raw);
      expect(result.ok && result.host).toBe('127.0.0.1');
    }
    const v6 = checkUrlRules('https://[::127.0.0.1]/');
    expect(v6.ok && v6.host).toBe('::7f00:1');
  });

  it('refuses junk and overlong input', () => {
    expect(refused('')).toContain('no address');
    expect(refused('not a url')).toContain('not a valid');
    expect(refused(`https://example.com/${'a'.repeat(3000)}`)).toContain('longer than');
  });

  it('hostKey lower-cases, strips brackets and trailing dots', () => {
    expect(hostKey('WWW.Example.com.')).toBe('www.example.com');
    expect(hostKey('[::1]')).toBe('::1');
    expect(isLocalhostName('a.b.localhost')).toBe(true);
    expect(isLocalhostName('localhost.example')).toBe(false);
  });
});
