import axe from 'axe-core';
import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { launchChromium } from './chromium.ts';
import { startHarness, type Harness } from './app/harness-server.ts';
import { sendMessage, waitIdle } from './app/page-helpers.ts';
import { QUESTIONS } from './app/questions.ts';
import { TIMEOUTS } from '../timeouts.ts';

/** One axe-core finding, as much as a reader needs to fix it. */
interface Finding {
  id: string;
  impact: string | null;
  help: string;
  targets: string[];
}

/**
 * axe-core (the real engine, injected into the page) on the chat page in the states a user sees
 * (issue 30, item 4): no violation of serious or critical impact, in light and dark, with the
 * drawers and the approval dialog open. axe walks open shadow roots, so the Lit elements are in.
 */
describe('the chat page for keyboard and screen-reader users (axe-core)', () => {
  let harness: Harness;
  let browser: Browser;
  let page: Page;
  let axeSource: string;

  /** Serious and critical violations on the page as it is now. */
  async function violations(): Promise<Finding[]> {
    // Evaluated through the DevTools protocol: the page's CSP (rightly) refuses an inline script tag.
    if (!(await page.evaluate(() => 'axe' in window))) await page.evaluate(axeSource);
    // Colours are measured as they end up, not midway through a transition (a theme switch fades).
    await page.evaluate(async () => {
      const frames = () => new Promise((resolve) => requestAnimationFrame(() => requestAnimationFrame(resolve)));
      await frames();
      const running: Animation[] = [];
      const walk = (root: Document | ShadowRoot) => {
        for (const element of root.querySelectorAll('*')) {
          // Transitions only: a busy indicator pulses for ever.
          running.push(...element.getAnimations().filter((animation) => animation instanceof CSSTransition));
          if (element.shadowRoot) walk(element.shadowRoot);
        }
      };
      walk(document);
      await Promise.all(running.map((animation) => animation.finished.catch(() => undefined)));
      await frames();
    });
    const found = await page.evaluate(async () => {
      const axe = (
        window as unknown as { axe: { run(context: Document, options: object): Promise<{ violations: Finding[] & { nodes: { target: string[] }[] }[] }> } }
      ).axe;
      const result = await axe.run(document, { resultTypes: ['violations'] });
      return result.violations.map((v) => ({
        id: v.id,
        impact: v.impact,
        help: v.help,
        targets: (v as unknown as { nodes: { target: unknown[]; failureSummary?: string }[] }).nodes.map(
          (n) => `${JSON.stringify(n.target)}: ${n.failureSummary ?? ''}`,
        ),
      }));
    });
    return found.filter((v) => v.impact === 'serious' || v.impact === 'critical');
  }

  beforeAll(async () => {
    // The engine's own source, as axe-core ships it for injection into a page.
    axeSource = axe.source;
    [harness, browser] = await Promise.all([startHarness(), launchChromium({ webgpu: false })]);
    page = await browser.newPage({ viewport: { width: 1280, height: 860 } });
    await page.goto(harness.url);
    await page
      .getByTestId('model-status')
      .filter({ hasText: /^Ready/ })
      .waitFor({ timeout: TIMEOUTS.works });
  });
  afterAll(async () => {
    await browser?.close();
    await harness?.close();
  });

  it('has none on a conversation with an answer, a tool row and its diagnostics', async () => {
    await sendMessage(page, QUESTIONS.weather);
    await waitIdle(page);
    await page.getByTestId('diagnostics-toggle').last().click();
    expect(await violations()).toEqual([]);
    // Each side of the conversation is named for a screen reader: the user's words as the answers are (issue 54, P3).
    expect(await page.getByRole('article', { name: 'Your message' }).count()).toBeGreaterThan(0);
    expect(await page.getByRole('article', { name: 'Answer' }).count()).toBeGreaterThan(0);
  });

  it('has none with the settings drawer open, nor with the tools drawer open', async () => {
    await page.getByTestId('open-settings').click();
    expect(await violations()).toEqual([]);
    await page.keyboard.press('Escape');
    await page.getByTestId('open-tools').click();
    expect(await violations()).toEqual([]);
    await page.keyboard.press('Escape');
  });

  it('has none with the approval dialog open', async () => {
    await sendMessage(page, QUESTIONS.email);
    await page.getByTestId('approve').waitFor({ timeout: TIMEOUTS.reacts });
    expect(await violations()).toEqual([]);
    await page.getByTestId('refuse').click();
    await waitIdle(page);
  });

  it('has none in the dark colour scheme, nor on a phone', async () => {
    await page.emulateMedia({ colorScheme: 'dark' });
    expect(await violations()).toEqual([]);
    await page.setViewportSize({ width: 390, height: 844 });
    expect(await violations()).toEqual([]);
  });
});
