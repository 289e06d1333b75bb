import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createMcpRelay } from '../../src/server/mcp-relay.ts';
import { startHarness, type Harness } from './app/harness-server.ts';
import { launchChromium } from './chromium.ts';
import { TIMEOUTS } from '../timeouts.ts';

/**
 * Nothing relayed is ever a document on the app's origin (issue 41, item 2), in Chromium: a listed MCP
 * server that answers HTML or SVG with a script, opened by navigation (the link dialog's Open, or a page on
 * another port) or in a frame of the app, runs nothing and reads nothing of the app.
 */
describe("a listed MCP server's HTML and SVG, opened in Chromium", () => {
  let harness: Harness;
  let browser: Browser;
  let page: Page;
  let upstream: Server;
  /** Whether any hostile script ran (it calls back here). */
  const ran: string[] = [];

  beforeAll(async () => {
    upstream = createServer((req, res) => {
      if ((req.url ?? '').startsWith('/ran')) {
        ran.push(req.url ?? '');
        res.end();
        return;
      }
      const svg = (req.url ?? '').includes('svg');
      const beacon = `fetch('http://127.0.0.1:${(upstream.address() as AddressInfo).port}/ran?'+document.domain)`;
      res.writeHead(200, { 'content-type': svg ? 'image/svg+xml' : 'text/html' });
      res.end(
        svg
          ? `<svg xmlns="http://www.w3.org/2000/svg"><script>${beacon}</script></svg>`
          : `<!doctype html><script>${beacon}; document.title = 'owned'</script>`,
      );
    });
    await new Promise<void>((resolve) => upstream.listen(0, '127.0.0.1', () => resolve()));
    const base = `http://127.0.0.1:${(upstream.address() as AddressInfo).port}`;
    [harness, browser] = await Promise.all([startHarness(), launchChromium({ webgpu: false })]);
    harness.route(
      createMcpRelay({
        servers: [
          { name: 'html', url: `${base}/html` },
          { name: 'svg', url: `${base}/svg` },
        ],
      }),
    );
    page = await browser.newPage();
  }, TIMEOUTS.browserHook);

  afterAll(async () => {
    await browser?.close();
    await harness?.close();
    upstream?.close();
  });

  it('refuses the navigation, and a frame of the app, before the server is asked: no script runs', async () => {
    for (const name of ['html', 'svg']) {
      const address = new URL(`/mcp-relay/${name}`, harness.origin).href;
      const response = await page.goto(address);
      expect(response?.status()).toBe(403);
      expect(await page.title()).not.toBe('owned');
      expect(await page.textContent('body')).toContain('navigation_refused');
    }
    // Framed by the app itself.
    await page.goto(harness.url);
    await page.evaluate((src) => {
      const frame = document.createElement('iframe');
      frame.src = src;
      document.body.append(frame);
      return new Promise((resolve) => frame.addEventListener('load', resolve));
    }, new URL('/mcp-relay/html', harness.origin).href);
    // A same-origin fetch (what the MCP client does) is answered as the relay's own error, not as the page.
    const fetched = await page.evaluate(async (src) => {
      const r = await fetch(src, { method: 'POST', headers: { 'content-type': 'application/json' }, body: '{}' });
      return { status: r.status, type: r.headers.get('content-type'), body: await r.text() };
    }, new URL('/mcp-relay/svg', harness.origin).href);
    expect(fetched.status).toBe(502);
    expect(fetched.type).toMatch(/^application\/json/);
    expect(fetched.body).not.toContain('<script>');
    expect(ran).toEqual([]);
  });
});
