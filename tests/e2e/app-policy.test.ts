import { createServer } from 'node:net';
import type { Browser, BrowserContext, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { type AppServer, startAppServer } from '../../src/server/app-server.ts';
import { pageSecurityHeaders } from '../../src/server/page-policy.ts';
import { launchChromium } from './chromium.ts';
import { TIMEOUTS } from '../timeouts.ts';

/** A free loopback port: the page's origin must stay the same across the two servers. */
async function freePort(): Promise<number> {
  const probe = createServer();
  await new Promise<void>((resolve) => probe.listen(0, '127.0.0.1', () => resolve()));
  const port = (probe.address() as { port: number }).port;
  await new Promise<void>((resolve) => probe.close(() => resolve()));
  return port;
}

/**
 * The page's policy follows the server (issue 41, item 7): after a first visit installs the service
 * worker, the server restarts with another CONNECT_ORIGINS; the next reload brings the new policy
 * (a navigation goes to the network whenever the server answers), and the precached page is served
 * only offline.
 */
describe("the installed page takes the server's current policy", () => {
  let browser: Browser;
  let context: BrowserContext;
  let page: Page;
  let server: AppServer | undefined;
  let port = 0;
  const start = async (connectOrigins: string[]) => {
    server = await startAppServer({ root: inject('appDist'), port, pageHeaders: pageSecurityHeaders({ connectOrigins }) });
  };

  beforeAll(async () => {
    port = await freePort();
    browser = await launchChromium({ webgpu: false });
    context = await browser.newContext();
    page = await context.newPage();
  }, TIMEOUTS.browserHook);
  afterAll(async () => {
    await browser?.close();
    await server?.close();
  });

  it(
    'reloads into a changed CONNECT_ORIGINS once the server restarts with it, and still opens offline',
    async () => {
      await start(['http://127.0.0.1:1111']);
      const url = `http://127.0.0.1:${port}/`;
      const first = await page.goto(url);
      expect(first?.headers()['content-security-policy']).toContain('http://127.0.0.1:1111');
      await page.evaluate(async () => {
        await navigator.serviceWorker.ready;
      });
      // Controlled from here on: the next navigation goes through the service worker.
      await page.reload();
      expect(await page.evaluate(() => Boolean(navigator.serviceWorker.controller))).toBe(true);

      await server?.close();
      await start(['http://127.0.0.1:2222']);
      const second = await page.reload();
      const policy = second?.headers()['content-security-policy'] ?? '';
      expect(policy).toContain('http://127.0.0.1:2222');
      expect(policy).not.toContain('http://127.0.0.1:1111');

      // Offline, the precached page still opens.
      await context.setOffline(true);
      await page.reload();
      await expect.poll(() => page.locator('nexus-app').count(), { timeout: TIMEOUTS.reacts }).toBe(1);
      await context.setOffline(false);
    },
    TIMEOUTS.browserTest,
  );
});
