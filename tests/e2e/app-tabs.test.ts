import type { Browser, BrowserContext, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { launchChromium } from './chromium.ts';
import { startHarness, type Harness } from './app/harness-server.ts';
import { lastAnswer, readStored, sendMessage, waitIdle } from './app/page-helpers.ts';
import { QUESTIONS } from './app/questions.ts';
import { TIMEOUTS } from '../timeouts.ts';

/**
 * The chat page open in two tabs of one browser (issue 30, P1): one IndexedDB, one
 * BroadcastChannel, Web Locks. The real page over the scripted harness model, in real Chromium.
 */
describe('the chat page in two tabs', () => {
  let harness: Harness;
  let browser: Browser;
  let context: BrowserContext;
  let a: Page;
  let b: Page;
  const pageErrors: string[] = [];

  const ready = (page: Page) =>
    page
      .getByTestId('model-status')
      .filter({ hasText: /^Ready/ })
      .waitFor({ timeout: TIMEOUTS.works });
  const userTexts = (page: Page) => page.locator('.turn[data-role="user"]').allTextContents();

  beforeAll(async () => {
    [harness, browser] = await Promise.all([startHarness(), launchChromium({ webgpu: false })]);
    context = await browser.newContext({ viewport: { width: 1280, height: 860 } });
    a = await context.newPage();
    b = await context.newPage();
    for (const page of [a, b]) page.on('pageerror', (error) => pageErrors.push(error.message));
    await a.goto(harness.url);
    await b.goto(harness.url);
    await Promise.all([ready(a), ready(b)]);
  });
  afterAll(async () => {
    await browser?.close();
    await harness?.close();
  });

  it('shows a conversation started in one tab in the other’s list, without a reload', async () => {
    await sendMessage(a, QUESTIONS.weather);
    await waitIdle(a);
    const list = b.getByTestId('conversation-list').locator('li');
    await expect.poll(() => list.count(), { timeout: TIMEOUTS.reacts }).toBe(1);
    await list.first().locator('button.open').click();
    await expect.poll(() => userTexts(b)).toEqual([expect.stringContaining(QUESTIONS.weather)]);
  });

  it('answers in one conversation one tab at a time: the second message waits, says so, and both turns are kept', async () => {
    // Tab A's answer stops at the approval dialog, holding the conversation.
    await sendMessage(a, QUESTIONS.email);
    await a.getByTestId('approve').waitFor({ timeout: TIMEOUTS.reacts });
    await sendMessage(b, QUESTIONS.paris);
    const waiting = b.getByTestId('waiting-for-tab');
    await waiting.waitFor({ timeout: TIMEOUTS.reacts });
    expect(await waiting.textContent()).toMatch(/another tab/i);
    await a.getByTestId('approve').click();
    await waitIdle(a);
    await waiting.waitFor({ state: 'detached', timeout: TIMEOUTS.reacts });
    await waitIdle(b);
    const expected = [QUESTIONS.weather, QUESTIONS.email, QUESTIONS.paris].map((q) => expect.stringContaining(q));
    // B added its message after A's answer, and A shows B's exchange as it is saved.
    await expect.poll(() => userTexts(b)).toEqual(expected);
    expect(await lastAnswer(b).locator('.markdown').textContent()).toContain('Paris');
    await expect.poll(() => userTexts(a), { timeout: TIMEOUTS.reacts }).toEqual(expected);
    // After a reload of both, every turn is there, each once, and each answer finished.
    await Promise.all([a.reload(), b.reload()]);
    await Promise.all([ready(a), ready(b)]);
    for (const page of [a, b]) {
      await expect.poll(() => userTexts(page)).toEqual(expected);
      expect(await page.locator('.turn[data-role="assistant"]').evaluateAll((turns) => turns.map((t) => t.getAttribute('data-state')))).toEqual([
        'done',
        'done',
        'done',
      ]);
    }
  });

  it('keeps a setting changed in each tab: the temperature from one, the theme from the other', async () => {
    await a.getByTestId('open-settings').click();
    await a.getByTestId('temperature').fill('0.3');
    await a.getByTestId('temperature').dispatchEvent('change');
    await b.getByTestId('open-settings').click();
    await b.getByTestId('theme').selectOption('dark');
    await expect
      .poll(async () => (await readStored(a, 'settings', 'nexus-harness')) as { temperature?: number; theme?: string } | undefined)
      .toMatchObject({ temperature: 0.3, theme: 'dark' });
    // Each tab shows the other's change.
    await expect.poll(() => b.getByTestId('temperature').inputValue()).toBe('0.3');
    await expect.poll(() => a.getByTestId('theme').inputValue()).toBe('dark');
    await Promise.all([a.reload(), b.reload()]);
    await Promise.all([ready(a), ready(b)]);
    await b.getByTestId('open-settings').click();
    expect(await b.getByTestId('temperature').inputValue()).toBe('0.3');
    expect(await b.getByTestId('theme').inputValue()).toBe('dark');
    expect(pageErrors).toEqual([]);
  });

  it('will not delete a conversation another tab is answering in, and says why (issue 44)', async () => {
    await b.keyboard.press('Escape');
    // Tab A's answer stops at the approval dialog, holding the conversation.
    await sendMessage(a, QUESTIONS.email);
    await a.getByTestId('approve').waitFor({ timeout: TIMEOUTS.reacts });
    const list = b.getByTestId('conversation-list').locator('li');
    await list.first().getByTestId('delete').click();
    await expect.poll(() => b.getByTestId('list-note').textContent()).toContain('is being answered in another tab');
    expect(await b.getByTestId('undo-delete').count()).toBe(0);
    expect(await list.count()).toBe(1);
    await a.getByTestId('approve').click();
    await waitIdle(a);
    // Once that answer is done, it can be deleted (and Undo brings it back). Tab B hears that the answer ended a
    // moment after tab A is idle: a delete refused in that moment is tried again, as a user would.
    await expect
      .poll(
        async () => {
          if ((await list.count()) > 0) await list.first().getByTestId('delete').click();
          return list.count();
        },
        { timeout: TIMEOUTS.reacts },
      )
      .toBe(0);
    await b.getByTestId('undo').click();
    await expect.poll(() => list.count()).toBe(1);
    await expect.poll(() => a.getByTestId('conversation-list').locator('li').count(), { timeout: TIMEOUTS.reacts }).toBe(1);
  });
});
