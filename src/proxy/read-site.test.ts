import '../../tests/proxy/helpers/no-egress.ts';
import { gzipSync } from 'node:zlib';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { article, page, redirect, startTestWeb, type Handler, type TestWeb } from '../../tests/proxy/helpers/test-web.ts';
import { AnswerSessions } from './answer-sessions.ts';
import type { FetchLogEntry } from './fetch-log.ts';
import { readSite, SEEN_LINKS_PER_PAGE, siteOf, type ReadSiteOptions } from './read-site.ts';
import { SeenAddresses } from './seen-addresses.ts';
import { hostKey } from './url-rules.ts';

let web: TestWeb;
const hits = new Map<string, number>();
let log: FetchLogEntry[] = [];

function counted(key: string, handler: Handler): Handler {
  return (req, res) => {
    hits.set(key, (hits.get(key) ?? 0) + 1);
    handler(req, res);
  };
}

function serve(host: string, path: string, handler: Handler): void {
  web.route(host, path, counted(`${host}${path}`, handler));
}

const words = (n: number, label: string): string[] =>
  Array.from({ length: n }, (_, i) => `${label} paragraph ${i} has a few ordinary words in it for the reader.`);
const links = (hrefs: readonly string[]): string => `<ul>${hrefs.map((h) => `<li><a href="${h}">${h}</a></li>`).join('')}</ul>`;

/** Every address on these hosts counts as seen: for the tests of the other rules and of the crawl. */
function seen(...hosts: string[]): ReadSiteOptions['seen'] {
  return { hasSeen: (url: string) => hosts.includes(hostKey(new URL(url).hostname)) };
}

/** Exactly these addresses are seen, as an answer keeps them (rule 1). */
function seenAddresses(...addresses: string[]): SeenAddresses {
  const set = new SeenAddresses();
  for (const address of addresses) set.markSeen(address);
  return set;
}

function options(extra: Partial<ReadSiteOptions> = {}): ReadSiteOptions {
  return { seen: seen('site.example'), resolve: web.resolve, ca: web.pki.ca, connectTo: web.connectTo, log: (e) => log.push(e), ...extra };
}

beforeAll(async () => {
  web = await startTestWeb();
  serve(
    'site.example',
    '/start',
    page(
      article(
        'Start',
        words(5, 'Start'),
        links([
          '/p1',
          '/p2',
          '/p1',
          '/start#again',
          'https://www.site.example/p3',
          'https://other.example/off',
          'https://blog.site.example/x',
          '/file.pdf',
          'mailto:x@site.example',
          'http://site.example/p4',
          'https://site.example:8443/port',
        ]),
      ),
    ),
  );
  serve('site.example', '/p1', page(article('P1', words(5, 'P1'), links(['/p1a', '/start']))));
  serve('site.example', '/p1a', page(article('P1a', words(5, 'P1a'), links(['/p1a-deep']))));
  serve('site.example', '/p1a-deep', page(article('Deep', words(5, 'Deep'))));
  serve('site.example', '/p2', page('gone', 'text/plain', 404));
  serve('site.example', '/p4', page(article('P4', words(5, 'P4'))));
  serve('www.site.example', '/p3', page(article('P3', words(5, 'P3'))));
  serve('other.example', '/off', page(article('Off', words(5, 'Off'))));
  serve('blog.site.example', '/x', page(article('Blog', words(5, 'Blog'))));
  serve('site.example', '/file.pdf', page('%PDF', 'text/plain'));

  serve('site.example', '/many', page(article('Many', words(3, 'Many'), links(Array.from({ length: 40 }, (_, i) => `/many/${i}`)))));
  for (let i = 0; i < 40; i++) serve('site.example', `/many/${i}`, page(article(`M${i}`, words(2, `M${i}`))));

  serve('site.example', '/big', page(article('Big', ['x'.repeat(20_000)], links(['/big2', '/big3']))));
  serve('site.example', '/big2', page(article('Big2', ['y'.repeat(20_000)])));
  serve('site.example', '/big3', page(article('Big3', ['z'.repeat(20_000)])));

  serve('site.example', '/missing', page('gone', 'text/plain', 404));
  serve(
    'site.example',
    '/captcha',
    page('<html><head><title>Just a moment...</title></head><body><p>Please verify you are human to continue.</p></body></html>'),
  );
  serve('site.example', '/moved', redirect('https://other.example/new-home'));
  serve('other.example', '/new-home', page(article('New home', words(5, 'Home'), links(['/sub', 'https://site.example/p1']))));
  serve('other.example', '/sub', page(article('Sub', words(5, 'Sub'))));
  serve('site.example', '/hub', page(article('Hub', words(5, 'Hub'), links(['/jump', '/p4']))));
  serve(
    'site.example',
    '/codes',
    page(
      article('Codes', words(5, 'Codes'), links([...Array.from({ length: 20 }, (_, i) => `/k/${i}`), 'https://leak.example/k/7', 'https://other.example/x'])),
    ),
  );
  serve('site.example', '/jump', redirect('https://other.example/off'));
  serve('site.example', '/hub2', page(article('Hub2', words(5, 'Hub2'), links(['/to-www']))));
  serve('site.example', '/to-www', redirect('https://www.site.example/p3'));
  serve('site.example', '/short?lang=en', page('<html><head><title>Short</title></head><body><p>Only a few words, in English.</p></body></html>'));
  serve('site.example', '/short', page('<html><head><title>Short</title></head><body><p>Only a few words.</p></body></html>'));
  serve(
    'site.example',
    '/deep',
    page(`<html><head><title>Deep</title></head><body>${'<div>'.repeat(150_000)}<p>Text under very deep markup.</p>${'</div>'.repeat(150_000)}</body></html>`),
  );
  serve('site.example', '/huge', page(`<html><body><p>${'word '.repeat(600_000)}</p></body></html>`));
  serve('site.example', '/notes.txt', page('plain text file\n\n\n\nwith lines', 'text/plain'));
});

afterAll(async () => {
  await web.close();
});

beforeEach(() => {
  hits.clear();
  log = [];
});

describe('readSite', () => {
  it('rule 1: refuses a host this answer has not seen, before any lookup or connection', async () => {
    const lookups = web.resolve.calls.length;
    const connections = web.connections();
    const result = await readSite('https://other.example/off', options());
    expect(result).toMatchObject({ ok: false, code: 'refused', reason: "other.example is not in this answer's search results" });
    expect(result.text).toContain('YOU DID NOT READ THAT PAGE');
    expect(web.resolve.calls.length).toBe(lookups);
    expect(web.connections()).toBe(connections);
    expect(log).toEqual([]);
  });

  it('rule 1: a host that differs only in case or trailing dot counts as seen; a subdomain does not', async () => {
    expect((await readSite('https://SITE.example./short', options())).ok).toBe(true);
    expect((await readSite('https://blog.site.example/x', options())).ok).toBe(false);
  });

  it('reads the cited page, then its same-site links breadth-first, two hops at most', async () => {
    const result = await readSite('http://site.example/start#top', options({ maxPages: 20 }));
    if (!result.ok) throw new Error(result.reason);
    expect(result.url).toBe('https://site.example/start');
    expect(result.pages.map((p) => [p.hop, p.finalUrl])).toEqual([
      [0, 'https://site.example/start'],
      [1, 'https://site.example/p1'],
      [1, 'https://www.site.example/p3'],
      [1, 'https://site.example/p4'],
      [2, 'https://site.example/p1a'],
    ]);
    expect(hits.get('site.example/p1a-deep')).toBeUndefined();
    expect(result.failures).toEqual([{ url: 'https://site.example/p2', hop: 1, reason: 'HTTP 404' }]);
    expect(hits.get('site.example/p1')).toBe(1);
    expect(hits.get('site.example/start')).toBe(1);
  });

  it('rule 1: never follows a link off the cited page’s site (other hosts, other subdomains), nor binary paths or other ports', async () => {
    await readSite('https://site.example/start', options({ maxPages: 20 }));
    expect(hits.get('other.example/off')).toBeUndefined();
    expect(hits.get('blog.site.example/x')).toBeUndefined();
    expect(hits.get('site.example/file.pdf')).toBeUndefined();
    expect(log.some((l) => l.url.includes('other.example') || l.url.includes('8443'))).toBe(false);
  });

  it('reads six pages at most', async () => {
    const result = await readSite('https://site.example/many', options({ totalChars: 1_000_000 }));
    if (!result.ok) throw new Error(result.reason);
    expect(result.pages).toHaveLength(6);
    expect(log).toHaveLength(6);
  });

  it('takes 24 new same-site links per page', async () => {
    const result = await readSite('https://site.example/many', options({ maxPages: 100, totalChars: 1_000_000, concurrency: 8 }));
    if (!result.ok) throw new Error(result.reason);
    expect(result.pages).toHaveLength(25);
    expect(hits.get('site.example/many/23')).toBe(1);
    expect(hits.get('site.example/many/24')).toBeUndefined();
  });

  it('cuts each page to 12,000 characters and the whole read to 24,000, saying how much was left out', async () => {
    const result = await readSite('https://site.example/big', options());
    if (!result.ok) throw new Error(result.reason);
    expect(result.pages.map((p) => p.text.length)).toEqual([12_000, 12_000]);
    expect(result.pages[0]?.omittedChars).toBeGreaterThan(8_000);
    expect(result.pages[0]?.fenced).toMatch(/\d+ more characters were not returned/);
    expect(result.pages.reduce((n, p) => n + p.text.length, 0)).toBe(24_000);
    expect(hits.get('site.example/big3') ?? 0).toBeLessThanOrEqual(1);
  });

  it('returns each page fenced, with title and final address', async () => {
    const result = await readSite('https://site.example/short', options({ number: () => 4 }));
    if (!result.ok) throw new Error(result.reason);
    const [only] = result.pages;
    expect(only).toMatchObject({ n: 4, title: 'Short', finalUrl: 'https://site.example/short', text: 'Only a few words.' });
    expect(only?.fenced).toMatch(/^\[4\] Short — https:\/\/site\.example\/short\nUntrusted text from/);
    expect(only?.fenced).toContain('whole text is 17 characters');
    expect(result.text).toContain(only?.fenced ?? 'missing');
  });

  it('reads text/plain pages as they are', async () => {
    const result = await readSite('https://site.example/notes.txt', options());
    expect(result.ok && result.pages[0]?.text).toBe('plain text file\n\nwith lines');
  });

  it('says so when the cited page itself fails', async () => {
    const result = await readSite('https://site.example/missing', options());
    expect(result).toMatchObject({ ok: false, code: 'fetch_failed', reason: 'HTTP 404' });
    expect(result.text).toContain('YOU DID NOT READ THAT PAGE (https://site.example/missing) — HTTP 404');
  });

  it('rule 6: a verification/block page is a failure, not a success', async () => {
    const result = await readSite('https://site.example/captcha', options());
    expect(result).toMatchObject({ ok: false, reason: expect.stringContaining('verification or block page') });
  });

  it('rule 2: a seen host that resolves to a private address is still refused', async () => {
    const result = await readSite('https://private.example/', options({ seen: seen('private.example') }));
    expect(result).toMatchObject({ ok: false, code: 'refused', reason: expect.stringContaining('10.0.0.7') });
  });

  it('rule 1 at every hop: a redirect of the cited page to an address on another site that the answer has not seen is not followed', async () => {
    const result = await readSite('https://site.example/moved', options({ seen: seenAddresses('https://site.example/moved') }));
    expect(result).toMatchObject({ ok: false, code: 'refused', contacted: true });
    if (result.ok) return;
    expect(result.reason).toContain('https://other.example/new-home');
    expect(result.reason).toContain('has not seen');
    expect(result.text).toContain('YOU DID NOT READ THAT PAGE');
    expect(hits.get('other.example/new-home')).toBeUndefined();
    expect(log.find((l) => l.url === 'https://site.example/moved')?.reason).toContain('has not seen');
  });

  it('a redirect of the cited page to an address the answer has seen is followed, and the crawl stays on the cited site', async () => {
    const result = await readSite(
      'https://site.example/moved',
      options({ seen: seenAddresses('https://site.example/moved', 'https://other.example/new-home') }),
    );
    if (!result.ok) throw new Error(result.reason);
    expect(result.pages.map((p) => p.finalUrl)).toEqual([
      'https://other.example/new-home',
      'https://site.example/p1',
      'https://site.example/p1a',
      'https://site.example/start',
    ]);
    expect(hits.get('other.example/sub')).toBeUndefined();
  });

  it('rule 1: the cited address must have been seen exactly; a changed query or a composed path on a seen host is refused before any connection', async () => {
    const known = seenAddresses('https://site.example/short?lang=en');
    const connections = web.connections();
    for (const composed of [
      'https://site.example/short?lang=en&d=the+conversation',
      'https://site.example/short?lang=de',
      'https://site.example/short',
      'https://site.example/c?d=secret',
    ]) {
      const result = await readSite(composed, options({ seen: known }));
      expect(result, composed).toMatchObject({ ok: false, code: 'refused', contacted: false });
      if (!result.ok) expect(result.reason).toContain('is not an address this answer has seen');
    }
    expect(web.connections()).toBe(connections);
    expect(log).toEqual([]);
    expect((await readSite('http://SITE.example:443/short?lang=en#top', options({ seen: known }))).ok).toBe(true);
  });

  it('rule 1: the links of a page read become addresses the answer may read next, exactly as the page wrote them', async () => {
    const known = seenAddresses('https://site.example/hub');
    const first = await readSite('https://site.example/hub', options({ seen: known, maxPages: 1 }));
    expect(first.ok).toBe(true);
    expect(known.hasSeen('https://site.example/p4')).toBe(true);
    expect(known.hasSeen('https://site.example/p4?x=1')).toBe(false);
    expect((await readSite('https://site.example/p4', options({ seen: known }))).ok).toBe(true);
  });

  it("bounds what choosing a link can carry: only a page's first eight own-site links become readable (issue 41)", async () => {
    const known = seenAddresses('https://site.example/codes');
    const read = await readSite('https://site.example/codes', options({ seen: known, maxPages: 1 }));
    expect(read.ok).toBe(true);
    const readable = Array.from({ length: 20 }, (_, i) => known.hasSeen(`https://site.example/k/${i}`));
    expect(readable.filter(Boolean)).toHaveLength(SEEN_LINKS_PER_PAGE);
    expect(readable.slice(0, SEEN_LINKS_PER_PAGE).every(Boolean)).toBe(true);
    expect(known.hasSeen('https://leak.example/k/7')).toBe(false);
    expect(known.hasSeen('https://other.example/x')).toBe(false);
  });

  it('bounds what repeating a read can carry: a second read of an address in one answer fetches nothing and points at the first (issue 41)', async () => {
    serve('site.example', '/k/3', page(article('Three', words(5, 'Three'))));
    const session = await new AnswerSessions().create('Read https://site.example/codes');
    const first = await readSite('https://site.example/codes', options({ seen: session, maxPages: 1 }));
    expect(first.ok).toBe(true);
    expect((await readSite('https://site.example/k/3', options({ seen: session, maxPages: 1 }))).ok).toBe(true);
    const hitsBefore = new Map(hits);
    const connections = web.connections();
    for (const again of ['https://site.example/k/3', 'https://site.example/k/3#top', 'https://site.example/codes']) {
      const repeat = await readSite(again, options({ seen: session, maxPages: 1 }));
      expect(repeat, again).toMatchObject({ ok: false, code: 'refused', contacted: false });
      if (!repeat.ok) expect(repeat.reason).toContain('was already read in this answer');
    }
    expect(web.connections()).toBe(connections);
    expect(hits).toEqual(hitsBefore);
    // Another answer reads it again: the record is per answer.
    const other = await new AnswerSessions().create('https://site.example/k/3');
    expect((await readSite('https://site.example/k/3', options({ seen: other, maxPages: 1 }))).ok).toBe(true);
  });

  it('rule 1 at every hop: a crawled same-site link that redirects to another site is not followed', async () => {
    const result = await readSite('https://site.example/hub', options());
    if (!result.ok) throw new Error(result.reason);
    expect(result.pages.map((p) => p.finalUrl)).toEqual(['https://site.example/hub', 'https://site.example/p4']);
    expect(result.failures).toEqual([{ url: 'https://site.example/jump', hop: 1, reason: expect.stringContaining('redirect off the site') }]);
    expect(hits.get('other.example/off')).toBeUndefined();
    expect(hits.get('evil.example/landing')).toBeUndefined();
    // The refused hop is logged (rule 8) and nothing on the other site was resolved or contacted.
    expect(log.some((l) => l.url.startsWith('https://other.example') || l.url.startsWith('https://evil.example'))).toBe(false);
    expect(log.find((l) => l.url === 'https://site.example/jump')?.reason).toContain('redirect off the site');
  });

  it('rule 1 at every hop: a same-site redirect of a crawled link is still followed', async () => {
    const result = await readSite('https://site.example/hub2', options());
    if (!result.ok) throw new Error(result.reason);
    expect(result.pages.map((p) => p.finalUrl)).toEqual(['https://site.example/hub2', 'https://www.site.example/p3']);
  });

  it('hostile markup: a page nested 150,000 deep is read as plain text', async () => {
    const result = await readSite('https://site.example/deep', options());
    expect(result.ok && result.pages[0]?.text).toBe('Text under very deep markup.');
  });

  it('rule 5: a page over the byte cap is read up to the cap and says so', async () => {
    const result = await readSite('https://site.example/huge', options({ maxBytes: 64 * 1024 }));
    if (!result.ok) throw new Error(result.reason);
    expect(result.pages[0]?.fenced).toContain('larger than the 64 KB read limit');
  });

  it('issue 28, N13: a gzip body sent as text/html without Content-Encoding is refused as not text, never fenced as a page', async () => {
    serve('site.example', '/gz', (_req, res) => {
      res.writeHead(200, { 'content-type': 'text/html; charset=utf-8' });
      res.end(gzipSync(article('Hidden', words(20, 'Hidden'))));
    });
    const result = await readSite('https://site.example/gz', options());
    expect(result).toMatchObject({
      ok: false,
      code: 'fetch_failed',
      reason: 'the page is not text: it was sent as text/html but its body is gzip-compressed data',
    });
    expect(result.text).not.toContain('Untrusted text');
  });

  it('siteOf strips only a leading www.', () => {
    expect(siteOf('WWW.Example.com')).toBe('example.com');
    expect(siteOf('blog.example.com')).toBe('blog.example.com');
  });
});
