import '../../tests/proxy/helpers/no-egress.ts';
import type { TLSSocket } from 'node:tls';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { PUBLIC, page, redirect, startTestWeb, type TestWeb } from '../../tests/proxy/helpers/test-web.ts';
import { AddressRefusedError, FetchFailedError } from './errors.ts';
import type { FetchLogEntry } from './fetch-log.ts';
import { MAX_BODY_BYTES, PROXY_USER_AGENT, safeFetch, type SafeFetchOptions } from './safe-fetch.ts';

let web: TestWeb;
let log: FetchLogEntry[];

function options(extra: Partial<SafeFetchOptions> = {}): SafeFetchOptions {
  return { resolve: web.resolve, ca: web.pki.ca, connectTo: web.connectTo, log: (entry) => log.push(entry), ...extra };
}

async function failure(url: string, extra: Partial<SafeFetchOptions> = {}): Promise<Error> {
  try {
    await safeFetch(url, options(extra));
  } catch (error) {
    return error as Error;
  }
  throw new Error(`expected ${url} to fail`);
}

let lastServername: string | false | null | undefined;
let bigBodyWritten = 0;
let onBodyStarted: () => void = () => undefined;
let onSlowRedirect: () => void = () => undefined;

/** A deadline the test fires by hand (safeFetch's `startDeadline` seam): what was asked, whether it was cancelled. */
function manualDeadline() {
  const state = { asked: [] as number[], cancelled: false, expire: undefined as (() => void) | undefined };
  return {
    get asked() {
      return state.asked;
    },
    get cancelled() {
      return state.cancelled;
    },
    start: (ms: number, expire: () => void) => {
      state.asked.push(ms);
      state.expire = expire;
      return () => {
        state.cancelled = true;
      };
    },
    fire: () => state.expire?.(),
  };
}

beforeAll(async () => {
  web = await startTestWeb();
  web.route('site.example', '/hello', (req, res) => {
    lastServername = (req.socket as TLSSocket).servername;
    page('<html><head><title>Hello</title></head><body><p>Hello, world.</p></body></html>')(req, res);
  });
  web.route('site.example', '/plain', page('just text', 'text/plain; charset=iso-8859-1'));
  web.route('site.example', '/md', page('# Title\n\ntext', 'text/markdown'));
  web.route('site.example', '/octet', (_req, res) => {
    res.writeHead(200, { 'content-type': 'application/octet-stream' });
    res.write(Buffer.alloc(64 * 1024));
    // Never ends: the reader must refuse on the headers alone.
  });
  web.route('site.example', '/json', page('{"a":1}', 'application/json'));
  web.route('site.example', '/untyped', (_req, res) => {
    res.writeHead(200);
    res.end('<p>no type</p>');
  });
  web.route('site.example', '/gzip', (_req, res) => {
    res.writeHead(200, { 'content-type': 'text/html', 'content-encoding': 'gzip' });
    res.end(Buffer.from([0x1f, 0x8b]));
  });
  web.route('site.example', '/missing', page('gone', 'text/plain', 404));
  web.route('site.example', '/never-ends', (_req, res) => {
    res.writeHead(200, { 'content-type': 'text/html' });
    res.write('<html><body><p>starting', () => onBodyStarted());
    // …and nothing more, ever.
  });
  web.route('site.example', '/ten-mb', (_req, res) => {
    res.writeHead(200, { 'content-type': 'text/plain' });
    const chunk = Buffer.alloc(64 * 1024, 0x61);
    let left = 10 * 1024 * 1024;
    const pump = (): void => {
      while (left > 0) {
        left -= chunk.length;
        bigBodyWritten += chunk.length;
        if (!res.write(chunk)) {
          res.once('drain', pump);
          return;
        }
      }
      res.end();
    };
    res.on('close', () => {
      left = 0;
    });
    pump();
  });
  web.route('site.example', '/to-private', redirect('https://private.example/admin'));
  web.route('site.example', '/to-loopback-literal', redirect('https://127.0.0.1/'));
  web.route('site.example', '/to-metadata', redirect('https://169.254.169.254/latest/meta-data/'));
  web.route('site.example', '/to-localhost', redirect('https://localhost/'));
  web.route('site.example', '/to-http', redirect('http://other.example/page'));
  web.route('site.example', '/to-port', redirect('https://other.example:8443/page'));
  web.route('site.example', '/to-other', redirect('https://other.example/landing', 301));
  web.route('other.example', '/landing', page('<p>landed</p>'));
  web.route('site.example', '/relative', redirect('../hello', 307));
  web.route('site.example', '/no-location', (_req, res) => {
    res.writeHead(302);
    res.end();
  });
  for (let i = 1; i <= 4; i++) web.route('site.example', `/chain4/${i}`, redirect(i < 4 ? `/chain4/${i + 1}` : '/chain4/end'));
  web.route('site.example', '/chain4/end', page('<p>end of the chain</p>'));
  for (let i = 1; i <= 3; i++) web.route('site.example', `/chain3/${i}`, redirect(i < 3 ? `/chain3/${i + 1}` : '/chain3/end'));
  web.route('site.example', '/chain3/end', page('<p>end of the chain</p>'));
  web.route('site.example', '/slow-redirect', redirect('/slow-redirect-2'));
  web.route('site.example', '/slow-redirect-2', (req, res) => {
    // The second hop is where the page's one deadline runs out, when the test says so.
    onSlowRedirect();
    setImmediate(() => page('<p>late</p>')(req, res));
  });
  web.route('rebind.example', '/', page('<p>the public server answered</p>'));
  web.route('hop.example', '/again', redirect('https://hop.example/'));
  web.route('v6.example', '/', page('<p>over IPv6</p>'));
  web.dns.set('nocert.example', [PUBLIC.site]);
  web.route('nocert.example', '/', page('<p>wrong certificate</p>'));
});

afterAll(async () => {
  await web.close();
});

describe('safeFetch', () => {
  it('reads an https page over real TLS, pinned to the checked address', async () => {
    log = [];
    const fetched = await safeFetch('http://site.example/hello#top', options());
    expect(fetched).toMatchObject({
      url: 'https://site.example/hello',
      finalUrl: 'https://site.example/hello',
      ip: PUBLIC.site,
      status: 200,
      mediaType: 'text/html',
      charset: 'utf-8',
      capped: false,
      redirects: [],
    });
    expect(fetched.body.toString()).toContain('Hello, world.');
  });

  it('rule 3: sends the host name as TLS SNI', async () => {
    await safeFetch('https://site.example/hello', options());
    expect(lastServername).toBe('site.example');
  });

  it('rule 3: verifies the certificate against the host name, not the IP it connected to', async () => {
    const error = await failure('https://nocert.example/');
    expect(error).toBeInstanceOf(FetchFailedError);
    expect(error.message).toContain('ERR_TLS_CERT_ALTNAME_INVALID');
  });

  it('verifies certificates: a server whose CA is not trusted is refused', async () => {
    const error = await failure('https://rogue.example/');
    expect(error).toBeInstanceOf(FetchFailedError);
    expect(error.message).toMatch(/TLS error/);
  });

  it('rule 3: DNS rebinding — one lookup, and the connection goes to the checked public address', async () => {
    log = [];
    web.dns.set('rebind.example', (n) => (n === 0 ? [PUBLIC.site] : ['127.0.0.1']));
    const before = web.resolve.calls.filter((h) => h === 'rebind.example').length;
    const fetched = await safeFetch('https://rebind.example/', options());
    expect(fetched.body.toString()).toContain('the public server answered');
    expect(web.resolve.calls.filter((h) => h === 'rebind.example').length - before).toBe(1);
    expect(log.map((l) => l.ip)).toEqual([PUBLIC.site]);
  });

  it('rule 4: a redirect back to a name that now resolves to loopback is re-checked and refused', async () => {
    web.dns.set('hop.example', (n) => (n === 0 ? [PUBLIC.site] : ['127.0.0.1']));
    const calls = web.resolve.calls.length;
    const error = await failure('https://hop.example/again');
    expect(error).toBeInstanceOf(AddressRefusedError);
    expect(error.message).toContain('127.0.0.1');
    expect(web.resolve.calls.slice(calls)).toEqual(['hop.example', 'hop.example']);
  });

  it('IPv6: connects to a checked public IPv6 address', async () => {
    const fetched = await safeFetch('https://v6.example/', options());
    expect(fetched.ip).toBe(PUBLIC.v6);
    expect(fetched.body.toString()).toContain('over IPv6');
  });

  it.each([
    ['/to-private', 'private'],
    ['/to-loopback-literal', 'loopback'],
    ['/to-metadata', 'link-local'],
    ['/to-localhost', 'local machine'],
  ])('rule 4: a redirect to a non-public address is refused (%s)', async (path, why) => {
    log = [];
    const error = await failure(`https://site.example${path}`);
    expect(error).toBeInstanceOf(AddressRefusedError);
    expect(error.message).toContain(why);
    expect(log).toHaveLength(2);
    expect(log[0]).toMatchObject({ hop: 0, status: 302, ip: PUBLIC.site });
    expect(log[1]).toMatchObject({ hop: 1, ip: null, status: null });
    expect(log[1]?.reason).toContain(why);
  });

  it('rule 4: a redirect must stay https; other ports are refused too', async () => {
    expect((await failure('https://site.example/to-http')).message).toContain('non-https');
    expect((await failure('https://site.example/to-port')).message).toContain('port 8443');
    expect((await failure('https://site.example/no-location')).message).toContain('without a Location');
  });

  it('rule 4: a chain of 4 redirects is refused; 3 are followed', async () => {
    log = [];
    const error = await failure('https://site.example/chain4/1');
    expect(error.message).toContain('more than 3 redirects');
    expect(log.map((l) => l.hop)).toEqual([0, 1, 2, 3]);
    const fetched = await safeFetch('https://site.example/chain3/1', options());
    expect(fetched.finalUrl).toBe('https://site.example/chain3/end');
    expect(fetched.redirects).toHaveLength(3);
  });

  it('rule 4: a relative Location is resolved against the current page', async () => {
    const fetched = await safeFetch('https://site.example/relative', options());
    expect(fetched.finalUrl).toBe('https://site.example/hello');
  });

  it('rule 4: a redirect may leave the site, with a fresh lookup and check of the new host', async () => {
    const calls = web.resolve.calls.length;
    const fetched = await safeFetch('https://site.example/to-other', options());
    expect(fetched.finalUrl).toBe('https://other.example/landing');
    expect(fetched.ip).toBe(PUBLIC.other);
    expect(web.resolve.calls.slice(calls)).toEqual(['site.example', 'other.example']);
  });

  it('rule 5: a body that never finishes is abandoned at the deadline', async () => {
    // The deadline is fired by the test once the body has started, not by the wall clock.
    const deadline = manualDeadline();
    onBodyStarted = () => deadline.fire();
    const error = await failure('https://site.example/never-ends', { timeoutMs: 400, startDeadline: deadline.start });
    expect(deadline.asked).toEqual([400]);
    expect(error).toBeInstanceOf(FetchFailedError);
    expect(error.message).toContain('timed out after 0.4 s');
  });

  it('rule 5: the deadline covers the redirects too', async () => {
    // Fired while the hop after the redirect is being answered: one deadline for the whole chain.
    const deadline = manualDeadline();
    onSlowRedirect = () => deadline.fire();
    const error = await failure('https://site.example/slow-redirect', { timeoutMs: 300, startDeadline: deadline.start });
    expect(error.message).toContain('timed out');
    expect(deadline.asked).toEqual([300]);
    expect(deadline.cancelled).toBe(true);
    // Never fired, the same chain completes.
    onSlowRedirect = () => undefined;
    const patient = manualDeadline();
    const fetched = await safeFetch('https://site.example/slow-redirect', options({ startDeadline: patient.start }));
    expect(fetched.body.toString()).toContain('late');
    expect(patient.cancelled).toBe(true);
  });

  it('rule 5: reading stops at 2 MB of a 10 MB body', async () => {
    log = [];
    bigBodyWritten = 0;
    const fetched = await safeFetch('https://site.example/ten-mb', options());
    expect(fetched.body.length).toBe(MAX_BODY_BYTES);
    expect(fetched.capped).toBe(true);
    expect(log[0]?.bytes).toBe(MAX_BODY_BYTES);
    await new Promise((done) => setTimeout(done, 100));
    expect(bigBodyWritten).toBeLessThan(10 * 1024 * 1024);
  });

  it('rule 5: application/octet-stream is refused on the headers, before the body', async () => {
    log = [];
    // The body never ends, so only a refusal on the headers can give this message (a read would time out).
    const error = await failure('https://site.example/octet');
    expect(error.message).toContain('application/octet-stream');
    expect(log[0]).toMatchObject({ status: 200, bytes: 0 });
  });

  it('rule 5: only text/html, text/plain and text/markdown are read', async () => {
    expect((await failure('https://site.example/json')).message).toContain('application/json');
    expect((await failure('https://site.example/untyped')).message).toContain('no content type');
    expect((await failure('https://site.example/gzip')).message).toContain('compressed');
    const plain = await safeFetch('https://site.example/plain', options());
    expect(plain).toMatchObject({ mediaType: 'text/plain', charset: 'iso-8859-1' });
    expect((await safeFetch('https://site.example/md', options())).mediaType).toBe('text/markdown');
  });

  it('an HTTP error status is a failure with the status', async () => {
    const error = await failure('https://site.example/missing');
    expect(error).toBeInstanceOf(FetchFailedError);
    expect(error.message).toBe('HTTP 404');
  });

  it('URL rules: the test port mapping is not a way around "port 443 only"', async () => {
    const error = await failure(`https://site.example:${web.port}/hello`);
    expect(error).toBeInstanceOf(AddressRefusedError);
    expect(error.message).toContain(`port ${web.port}`);
  });

  it('rule 2: refuses a name with any private address, and never connects', async () => {
    const before = web.connections();
    for (const host of ['private.example', 'metadata.example', 'mixed.example']) {
      expect(await failure(`https://${host}/`)).toBeInstanceOf(AddressRefusedError);
    }
    expect(web.connections()).toBe(before);
  });

  it('rule 7: sends only Host, a fixed User-Agent, Accept, Accept-Encoding and Connection', async () => {
    web.rawRequests.length = 0;
    await safeFetch('https://raw.example/some/path?q=1', options());
    expect(web.rawRequests).toHaveLength(1);
    const [head = ''] = web.rawRequests;
    const lines = head.split('\r\n').filter(Boolean);
    expect(lines[0]).toBe('GET /some/path?q=1 HTTP/1.1');
    const names = lines
      .slice(1)
      .map((l) => l.slice(0, l.indexOf(':')).toLowerCase())
      .sort();
    expect(names).toEqual(['accept', 'accept-encoding', 'connection', 'host', 'user-agent']);
    expect(head).toContain(`\r\nuser-agent: ${PROXY_USER_AGENT}\r\n`);
    expect(head).toContain('\r\nhost: raw.example\r\n');
    expect(head).not.toMatch(/cookie|authorization|referer/i);
  });

  it('rule 8: one log record per hop with time, address, IP, status, bytes and ms — no content', async () => {
    log = [];
    await safeFetch('https://site.example/relative', options({ answer: 'answer-1' }));
    expect(log).toHaveLength(2);
    for (const entry of log) {
      expect(Object.keys(entry).sort()).toEqual(['answer', 'bytes', 'hop', 'ip', 'ms', 'status', 'time', 'url']);
      expect(new Date(entry.time).toISOString()).toBe(entry.time);
      expect(entry.ms).toBeGreaterThanOrEqual(0);
      expect(JSON.stringify(entry)).not.toContain('Hello, world');
    }
    expect(log[0]).toMatchObject({ url: 'https://site.example/relative', ip: PUBLIC.site, status: 307, bytes: 0, hop: 0 });
    expect(log[1]).toMatchObject({ url: 'https://site.example/hello', ip: PUBLIC.site, status: 200, hop: 1 });
    expect(log[1]?.bytes).toBeGreaterThan(0);
  });

  it('rule 8: a refused address is logged with the reason', async () => {
    log = [];
    await failure('https://private.example/');
    expect(log).toEqual([
      expect.objectContaining({ url: 'https://private.example/', ip: null, status: null, bytes: 0, hop: 0, reason: expect.stringContaining('private') }),
    ]);
  });
});
