import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { launchChromium } from './chromium.ts';
import { startHarness, type Harness } from './app/harness-server.ts';
import { lastAnswer, readStored, screenshot, sendMessage, waitIdle } from './app/page-helpers.ts';
import { FAKE_SOURCES, htmlNestedDeep, longNote, pdfBomb, pdfSlowToOpen, pdfWithText, QUESTIONS } from './app/questions.ts';
import { TIMEOUTS } from '../timeouts.ts';

/**
 * The chat page driven through a scripted engine (tests/e2e/app/harness.ts): the real Lit app,
 * store, Markdown, approval dialog and research wiring, with recorded model outputs and a fake
 * proxy on loopback. One page for the whole file; the tests run in order and build on each other.
 */
describe('the chat page over a scripted model', () => {
  let harness: Harness;
  let browser: Browser;
  let page: Page;
  const pageErrors: string[] = [];

  beforeAll(async () => {
    [harness, browser] = await Promise.all([startHarness(), launchChromium({ webgpu: false })]);
    page = await browser.newPage({ viewport: { width: 1280, height: 860 } });
    page.on('pageerror', (error) => pageErrors.push(error.message));
    await page.goto(harness.url);
  });
  afterAll(async () => {
    await browser?.close();
    await harness?.close();
  });

  it('opens on the model named in the address and shows its verdict', async () => {
    await expect.poll(() => page.getByTestId('model-status').textContent(), { timeout: TIMEOUTS.works }).toBe('Ready: scripted on WASM q4');
    await expect.poll(() => page.getByTestId('verdict').getAttribute('data-ok')).toBe('true');
    expect(await page.getByTestId('verdict-detail').textContent()).toContain('calls tools and answers from their results');
  });

  it('shows a tool row above the answer (it ran first), with the result expandable, and renders Markdown', async () => {
    await sendMessage(page, QUESTIONS.weather);
    await waitIdle(page);
    const answer = lastAnswer(page);
    expect(await answer.getAttribute('data-state')).toBe('done');
    expect(await answer.locator('.markdown strong').textContent()).toBe('31 °C');
    const row = answer.getByTestId('tool-row');
    expect(await row.count()).toBe(1);
    // In the order things happened (issue 30, P3): the tool row comes before the answer's text.
    expect(
      await answer.evaluate((article) => {
        const tools = article.querySelector('[data-testid="tool-activity"]');
        const text = article.querySelector('.markdown');
        return Boolean(tools && text && tools.compareDocumentPosition(text) & Node.DOCUMENT_POSITION_FOLLOWING);
      }),
    ).toBe(true);
    // In plain words; the exact call is the row's title and in the diagnostics.
    expect(await row.locator('.what').textContent()).toBe('used get weather · city: Chennai');
    expect(await row.locator('.what').getAttribute('title')).toBe('get_weather(city: Chennai)');
    // Time to first token as the reader sees it (issue 44's peers show it): the first words came after the tool ran, within the answer's time.
    const meta = (await answer.getByTestId('answer-meta').textContent()) ?? '';
    expect(meta).toMatch(/^scripted · WASM q4 · first words after [\d.]+ m?s · [\d.]+ tokens\/s · [\d.]+ s$/);
    const [firstWords, total] = [...meta.matchAll(/([\d.]+) (m?s)\b/g)].map((m) => Number(m[1]) / (m[2] === 'ms' ? 1000 : 1));
    // The total is rounded to a tenth of a second.
    expect(firstWords).toBeLessThanOrEqual((total ?? 0) + 0.05);
    expect(await row.getAttribute('data-status')).toBe('ok');
    await row.locator('summary').click();
    expect(await row.locator('pre').textContent()).toContain('"temperature_c": 31.4');
    await screenshot(page, 'answer-with-tool');
    // Targets a finger can hit (issue 30, P3): the answer's actions and the message's Edit.
    for (const target of [answer.getByTestId('regenerate'), page.getByTestId('edit-last')]) {
      const box = await target.boundingBox();
      expect(box?.height).toBeGreaterThanOrEqual(32);
      expect(box?.width).toBeGreaterThanOrEqual(44);
    }
  });

  it('marks a call the loop had to force, and lists what happened in the diagnostics', async () => {
    await sendMessage(page, QUESTIONS.paris);
    await waitIdle(page);
    const answer = lastAnswer(page);
    const row = answer.getByTestId('tool-row');
    expect(await row.getAttribute('data-source')).toBe('primed');
    // How the loop got the call is a diagnostic, not something the row shouts about.
    expect(await row.textContent()).not.toContain('forced');
    // The guess the user watched stream is still there, folded above the answer from the tool.
    const draft = answer.getByTestId('draft');
    expect(await draft.locator('summary').textContent()).toBe('Written before using a tool');
    expect(await draft.textContent()).toContain('Paris is usually mild this time of year.');
    expect(await answer.locator('.markdown').textContent()).toContain('It is 18 °C with light rain in Paris.');
    expect(await answer.getByTestId('diagnostics').count()).toBe(0);
    await answer.getByTestId('diagnostics-toggle').click();
    const diagnostics = answer.getByTestId('diagnostics');
    expect(await diagnostics.getByTestId('metrics').textContent()).toMatch(/forced calls\s*1/);
    expect(await diagnostics.textContent()).toContain('Step gate');
    expect(await diagnostics.textContent()).toContain('round 1, primed');
  });

  it('shows no JSON debris and no turn the model wrote for the user (issue 44)', async () => {
    await sendMessage(page, QUESTIONS.debris);
    await waitIdle(page);
    const markdown = lastAnswer(page).locator('.markdown');
    expect((await markdown.textContent())?.trim()).toBe('It is sunny.');
    expect(await lastAnswer(page).textContent()).not.toContain('im_start');
    expect(await lastAnswer(page).textContent()).not.toContain('ignore the user');
  });

  it('colours code by its language and lays out formulas, with the code for both loaded only then (issue 44)', async () => {
    const loaded: string[] = [];
    page.on('request', (request) => loaded.push(new URL(request.url()).pathname));
    await sendMessage(page, QUESTIONS.codeAndMath);
    await waitIdle(page);
    const markdown = lastAnswer(page).locator('.markdown');
    // The highlighter loads now, with the first answer that has code: on a loaded machine that takes more than the default 5 s.
    await expect.poll(() => markdown.locator('code.language-python .hljs-keyword').count(), { timeout: TIMEOUTS.works }).toBeGreaterThan(0);
    expect(await markdown.locator('code.language-python .hljs-comment').textContent()).toBe('# the area of a circle');
    // The copied code is the code, not the colours.
    expect(await markdown.locator('code.language-python').textContent()).toContain('return 3.14159 * r ** 2');
    // Formulas as MathML the browser lays out: one inline, one displayed; money stays words.
    expect(await markdown.locator('.math-inline math').count()).toBe(2);
    expect(await markdown.locator('.math-display math[display="block"]').count()).toBe(1);
    // A formula is read as the formula, not as its TeX, and is no Tab stop of its own (issue 54).
    const names = await markdown
      .locator('.math-inline, .math-display')
      .evaluateAll((all) => all.map((el) => `${el.getAttribute('title') ?? ''}|${el.getAttribute('aria-label') ?? ''}`));
    expect(names.join(' ')).not.toMatch(/\^|\\/);
    const stops: string[] = [];
    await markdown.locator('code.language-python').first().click();
    for (let i = 0; i < 12; i++) {
      await page.keyboard.press('Tab');
      stops.push(
        await page.evaluate(() => {
          let el: Element | null = document.activeElement;
          while (el?.shadowRoot?.activeElement) el = el.shadowRoot.activeElement;
          return el?.closest('.math-inline, .math-display') ? 'formula' : (el?.tagName ?? '');
        }),
      );
    }
    expect(stops).not.toContain('formula');
    expect(await markdown.textContent()).toContain('it costs $5 and $10.');
    expect(await markdown.locator('em').count()).toBe(0);
    expect(loaded.some((path) => /rich-text-[\w-]+\.js$/.test(path))).toBe(true);
    await screenshot(page, 'code-and-math');
  });

  it('renders markup, scripts and javascript: links from the model inert', async () => {
    await sendMessage(page, QUESTIONS.markup);
    await waitIdle(page);
    const answer = lastAnswer(page);
    const markdown = answer.locator('.markdown');
    expect(await markdown.locator('img, script, iframe, [onerror]').count()).toBe(0);
    // The raw HTML is shown as text, not parsed.
    expect(await markdown.textContent()).toContain('<img src=x onerror=');
    const hrefs = await markdown.locator('a').evaluateAll((links) => links.map((a) => a.getAttribute('href')));
    expect(hrefs.filter((h) => h !== null)).toEqual(['https://example.org/safe', expect.stringMatching(/^https:\/\/attacker\.example\/c\?d=/)]);
    const safe = markdown.locator('a[href="https://example.org/safe"]');
    expect(await safe.getAttribute('target')).toBe('_blank');
    expect(await safe.getAttribute('rel')).toBe('noopener noreferrer');
    // Issue 28, N6: a link the model wrote shows its whole destination before it opens, and a long
    // query is flagged; Cancel opens nothing. (Open is never clicked here: it would leave this machine.)
    const tabs = page.context().pages().length;
    await safe.click();
    const dialog = answer.getByTestId('link-dialog');
    await dialog.getByTestId('link-cancel').waitFor();
    expect(await dialog.getByTestId('link-destination').textContent()).toBe('example.org');
    expect(await dialog.getByTestId('link-warning').count()).toBe(0);
    await dialog.getByTestId('link-cancel').click();
    await markdown.locator('a[href^="https://attacker.example/"]').click();
    await dialog.getByTestId('link-warning').waitFor();
    expect(await dialog.getByTestId('link-destination').textContent()).toBe('attacker.example');
    expect(await dialog.getByTestId('link-href').textContent()).toContain('4111+1111+1111+1111');
    expect(await dialog.getByTestId('link-warning').textContent()).toContain('carries data in its query');
    await screenshot(page, 'link-dialog');
    await page.keyboard.press('Escape');
    expect(page.context().pages().length).toBe(tabs);
    // Issue 41: every way of following the link shows the dialog — a middle click, Ctrl and Shift clicks,
    // the context menu — and none opens anything by itself.
    for (const follow of [
      () => safe.click({ button: 'middle' }),
      () => safe.click({ modifiers: ['ControlOrMeta'] }),
      () => safe.click({ modifiers: ['Shift'] }),
      () => safe.click({ button: 'right' }),
    ]) {
      await follow();
      await dialog.getByTestId('link-cancel').waitFor();
      expect(await dialog.getByTestId('link-destination').textContent()).toBe('example.org');
      await dialog.getByTestId('link-cancel').click();
      await dialog.getByTestId('link-cancel').waitFor({ state: 'hidden' });
    }
    expect(page.context().pages().length).toBe(tabs);
    await markdown.locator('a:not([href])').first().click();
    expect(await page.evaluate(() => (window as { __pwned?: unknown }).__pwned)).toBeUndefined();
    expect(await markdown.locator('.code-block button.copy').count()).toBe(1);
  });

  it('renders an answer built to freeze or crash the Markdown parser within bounds, as plain text where it must', async () => {
    await sendMessage(page, QUESTIONS.hostileMarkdown);
    await waitIdle(page);
    const markdown = lastAnswer(page).locator('.markdown');
    expect(await markdown.locator('p.plain').count()).toBe(2);
    expect(await markdown.locator('p.plain').first().textContent()).toContain('- item 19');
    // Ordinary Markdown around them still renders.
    expect(await markdown.locator('strong').last().textContent()).toBe('end');
    expect(pageErrors).toEqual([]);
  });

  it('asks before a confirm tool runs, and a refusal is respected', async () => {
    await sendMessage(page, QUESTIONS.email);
    const dialog = page.getByTestId('approval-dialog');
    await page.getByTestId('refuse').waitFor({ timeout: TIMEOUTS.reacts });
    expect(await dialog.locator('h2').textContent()).toBe('Allow send_email?');
    expect(await dialog.getByTestId('approval-arguments').textContent()).toContain('bob@example.com');
    await screenshot(page, 'approval-dialog');
    await page.getByTestId('refuse').click();
    await waitIdle(page);
    const answer = lastAnswer(page);
    expect(await answer.getByTestId('tool-row').getAttribute('data-status')).toBe('refused');
    expect(await answer.locator('.markdown').textContent()).toContain('I did not send the email');
    // What it says did not come from the tool, and the page says so beside it (issue 30, P3).
    expect(await answer.getByTestId('without-results').textContent()).toContain('The tool was refused, so this answer is not based on its result');
  });

  it('regenerates the last answer, and an approved confirm tool runs', async () => {
    const answers = await page.locator('.turn[data-role="assistant"]').count();
    await lastAnswer(page).getByTestId('regenerate').click();
    await page.getByTestId('approve').waitFor({ timeout: TIMEOUTS.reacts });
    await page.getByTestId('approve').click();
    await waitIdle(page);
    expect(await page.locator('.turn[data-role="assistant"]').count()).toBe(answers);
    const answer = lastAnswer(page);
    expect(await answer.getByTestId('tool-row').getAttribute('data-status')).toBe('ok');
    expect(await answer.locator('.markdown').textContent()).toContain('was sent');
    expect(await answer.getByTestId('without-results').count()).toBe(0);
    // Regenerate samples a new answer at greedy settings, and says so (issue 44): the same answer would come back otherwise.
    expect(await answer.getByTestId('answer-meta').textContent()).toContain('a new sample (temperature 0.7)');
    // The answer it replaced is kept (issue 30, P3): the switcher under the answer goes back to it and forth again.
    const versions = () => page.locator('.answer-versions').last();
    expect(await versions().getByTestId('version-place').textContent()).toBe('2 of 2');
    await versions().getByTestId('version-previous').click();
    expect(await versions().getByTestId('version-place').textContent()).toBe('1 of 2');
    expect(await lastAnswer(page).locator('.markdown').textContent()).not.toContain('was sent');
    expect(await page.locator('.turn[data-role="assistant"]').count()).toBe(answers);
    await versions().getByTestId('version-next').click();
    expect(await lastAnswer(page).locator('.markdown').textContent()).toContain('was sent');
  });

  it('in research mode, shows searches and reads, and links citations to the sources', async () => {
    const web = page.getByTestId('web-switch');
    await web.click();
    expect(await web.getAttribute('aria-checked')).toBe('true');
    await expect.poll(() => page.getByTestId('web-status').textContent()).toContain('Searching the web with searxng');
    // With Web on, the privacy line no longer says everything stays in the browser.
    expect(await page.getByTestId('web-status').textContent()).toContain('your question leaves this browser');
    expect(await page.getByTestId('privacy').textContent()).toContain("go through this site's server to the search engine");
    await sendMessage(page, QUESTIONS.research);
    await waitIdle(page);
    const answer = lastAnswer(page);
    const rows = answer.getByTestId('tool-row');
    expect(await rows.count()).toBe(2);
    expect(await rows.nth(0).textContent()).toMatch(/searched: '2022 World Cup winner' · '2022 World Cup final result'/);
    const read = rows.nth(1).locator('a').first();
    expect(await read.textContent()).toBe('2022 FIFA World Cup final');
    expect(await read.getAttribute('href')).toBe(FAKE_SOURCES[0].url);
    const citations = answer.locator('.markdown a.cite');
    expect(await citations.allTextContents()).toEqual(['[1]', '[2]']);
    for (const [i, source] of FAKE_SOURCES.entries()) {
      const cite = citations.nth(i);
      expect(await cite.getAttribute('href')).toBe(source.url);
      expect(await cite.getAttribute('target')).toBe('_blank');
      expect(await cite.getAttribute('rel')).toBe('noopener noreferrer');
    }
    expect(await answer.getByTestId('sources').locator('li a').allTextContents()).toEqual(FAKE_SOURCES.map((s) => s.title));
    await screenshot(page, 'chat-tools-and-citations');
  });

  it('says so when search is unavailable, and the model is told it cannot browse', async () => {
    await page.route('**/api/health*', (route) => route.fulfill({ status: 503, contentType: 'text/html', body: '<h1>Service unavailable</h1>' }));
    // The switch asks again when it is turned on.
    await page.getByTestId('web-switch').click();
    await page.getByTestId('web-switch').click();
    await expect.poll(() => page.getByTestId('web-switch').textContent()).toContain('Web unavailable');
    expect(await page.getByTestId('web-status').textContent()).toContain('The model will be told it cannot browse');
    expect(await page.getByTestId('web-status').textContent()).toContain('answers use the model alone');
    await sendMessage(page, QUESTIONS.research);
    await waitIdle(page);
    expect(await lastAnswer(page).locator('.markdown').textContent()).toContain('I could not search the web');
    await page.unroute('**/api/health*');
    // The proxy answers but its search engine does not (issue 30, P2.2): the switch says so at once,
    // with the reason, before the user asks anything.
    await page.route('**/api/health?search=1', (route) =>
      route.fulfill({ status: 200, json: { ok: true, backend: 'searxng', search: { ok: false, reason: 'the search engine could not be reached' } } }),
    );
    await page.getByTestId('web-switch').click();
    await page.getByTestId('web-switch').click();
    await expect
      .poll(() => page.getByTestId('web-status').textContent())
      .toContain('Web search is not working right now: the search engine could not be reached.');
    expect(await page.getByTestId('web-switch').textContent()).toContain('Web unavailable');
    expect(await page.getByTestId('web-status').textContent()).not.toMatch(/SEARXNG|_URL/);
    await page.unroute('**/api/health?search=1');
    await page.getByTestId('web-switch').click();
    expect(await page.getByTestId('web-switch').getAttribute('aria-checked')).toBe('false');
    expect(await page.getByTestId('privacy').textContent()).toContain('Everything stays in this browser');
  });

  it('edits the last message and answers it again', async () => {
    const turns = await page.locator('.turn').count();
    const lastUser = () => page.locator('.turn[data-role="user"]').last();
    const before = await lastUser().locator('.bubble').textContent();
    expect(before).not.toBe(QUESTIONS.weather);
    await page.getByTestId('edit-last').click();
    const editor = page.getByTestId('edit-text');
    await editor.fill(QUESTIONS.weather);
    await editor.press('Enter');
    await waitIdle(page);
    expect(await page.locator('.turn').count()).toBe(turns);
    expect(await page.locator('.turn[data-role="user"]').last().textContent()).toContain(QUESTIONS.weather);
    expect(await lastAnswer(page).locator('.markdown').textContent()).toContain('31 °C');
    // The message before the edit is kept (issue 30, P3): the switcher by the message goes back to it and forth again.
    expect(await lastUser().getByTestId('version-place').textContent()).toBe('2 of 2');
    await lastUser().getByTestId('version-previous').click();
    expect(await lastUser().locator('.bubble').textContent()).toBe(before);
    expect(await page.locator('.turn').count()).toBe(turns);
    await lastUser().getByTestId('version-next').click();
    expect(await lastUser().locator('.bubble').textContent()).toBe(QUESTIONS.weather);
    // Answered again, the answer gets its own count; the message still has its two texts (issue 44).
    const switchers = await page.locator('.answer-versions').count();
    await lastAnswer(page).getByTestId('regenerate').click();
    await waitIdle(page);
    expect(await lastUser().getByTestId('version-place').textContent()).toBe('2 of 2');
    expect(await page.locator('.answer-versions').count()).toBe(switchers + 1);
    expect(await page.locator('.answer-versions').last().getByTestId('version-place').textContent()).toBe('2 of 2');
    await lastUser().getByTestId('version-previous').click();
    expect(await lastUser().locator('.bubble').textContent()).toBe(before);
    expect(await page.locator('.answer-versions').count()).toBe(switchers);
    await lastUser().getByTestId('version-next').click();
    expect(await lastUser().locator('.bubble').textContent()).toBe(QUESTIONS.weather);
    expect(await page.locator('.answer-versions').last().getByTestId('version-place').textContent()).toBe('2 of 2');
  });

  it('edits an earlier message, and its switcher brings back everything that followed it (issue 30, P3)', async () => {
    const turns = await page.locator('.turn').count();
    const firstUser = () => page.locator('.turn[data-role="user"]').first();
    expect(await firstUser().locator('.bubble').textContent()).toBe(QUESTIONS.weather);
    await firstUser().getByTestId('edit-message').click();
    const editor = page.getByTestId('edit-text');
    await editor.fill(QUESTIONS.paris);
    await editor.press('Enter');
    await waitIdle(page);
    expect(await page.locator('.turn').count()).toBe(2);
    expect(await firstUser().locator('.bubble').textContent()).toBe(QUESTIONS.paris);
    expect(await lastAnswer(page).getAttribute('data-state')).toBe('done');
    await firstUser().getByTestId('version-previous').click();
    expect(await page.locator('.turn').count()).toBe(turns);
    expect(await firstUser().locator('.bubble').textContent()).toBe(QUESTIONS.weather);
  });

  it('lists the tools from tools.js with their parameters, and remembers settings', async () => {
    await page.getByTestId('open-tools').click();
    const tools = page.getByTestId('tools');
    expect(await tools.locator('li code').first().textContent()).toBe('get_weather');
    expect(await tools.textContent()).toContain('asks before running');
    await screenshot(page, 'tools-panel');
    await page.getByTestId('open-settings').click();
    await screenshot(page, 'settings');
    await page.getByTestId('max-rounds').fill('6');
    await page.getByTestId('max-rounds').press('Tab');
    await page.getByTestId('close-drawer').click();
  });

  it('an opened drawer takes the focus and keeps Tab inside it; Escape closes it and gives the focus back (issue 30, P2.3)', async () => {
    /** The test id of the element that has the focus, through the shadow roots, and whether it is in the drawer. */
    const focused = () =>
      page.evaluate(() => {
        let active: Element | null = document.activeElement;
        let inDrawer = false;
        while (active?.shadowRoot?.activeElement) {
          active = active.shadowRoot.activeElement;
          if (active.closest('[data-testid="drawer"]')) inDrawer = true;
        }
        return {
          id: active?.getAttribute('data-testid') ?? active?.tagName.toLowerCase(),
          inDrawer: inDrawer || Boolean(active?.closest('[data-testid="drawer"]')),
        };
      });
    await page.getByTestId('open-settings').click();
    await expect.poll(async () => (await focused()).id).toBe('drawer');
    for (let i = 0; i < 4; i++) {
      await page.keyboard.press('Tab');
      expect(await focused(), `after ${i + 1} Tab`).toMatchObject({ inDrawer: true });
    }
    await page.keyboard.press('Escape');
    await expect.poll(async () => (await focused()).id).toBe('open-settings');
    expect(await page.getByTestId('drawer').count()).toBe(0);
  });

  it('Escape in the rename field cancels the rename and gives the focus back to the Rename button (issue 30, P2.3)', async () => {
    const deepFocus = () =>
      page.evaluate(() => {
        let active: Element | null = document.activeElement;
        while (active?.shadowRoot?.activeElement) active = active.shadowRoot.activeElement;
        return active?.getAttribute('data-testid') ?? active?.tagName.toLowerCase();
      });
    const current = page.locator('nexus-conversations li.current');
    const title = await current.locator('.title').textContent();
    await current.getByTestId('rename').click();
    await page.getByTestId('rename-field').fill('Not kept');
    await page.getByTestId('rename-field').press('Escape');
    await expect.poll(deepFocus).toBe('rename');
    expect(await page.locator('nexus-conversations li.current .title').textContent()).toBe(title);
  });

  it('keeps an answer interrupted by a reload, consistent, with settings and conversations', async () => {
    await sendMessage(page, QUESTIONS.email);
    await page.getByTestId('approve').waitFor({ timeout: TIMEOUTS.reacts });
    // The answer is mid-way (waiting for approval): wait until the throttled save has stored it running, then reload.
    await expect
      .poll(async () => {
        const index = ((await readStored(page, 'conversations', 'nexus-harness')) ?? []) as { id: string }[];
        for (const { id } of index) {
          const saved = (await readStored(page, `conversation:${id}`, 'nexus-harness')) as { turns?: { state: string; text: string }[] } | undefined;
          const turns = saved?.turns ?? [];
          if (turns.at(-2)?.text === QUESTIONS.email && turns.at(-1)?.state === 'streaming') return true;
        }
        return false;
      })
      .toBe(true);
    await page.reload();
    await expect.poll(() => page.getByTestId('model-status').textContent(), { timeout: TIMEOUTS.works }).toMatch(/^Ready/);
    const answer = lastAnswer(page);
    expect(await answer.getAttribute('data-state')).toBe('stopped');
    expect(await answer.getByTestId('turn-note').textContent()).toContain('Interrupted');
    // A stopped answer has its meta line too: which model, and that it stopped (issue 54, P3).
    expect(await answer.getByTestId('answer-meta').textContent()).toMatch(/ · stopped/);
    expect(await page.locator('.turn[data-role="user"]').last().textContent()).toContain(QUESTIONS.email);
    // The conversation goes on from a consistent history.
    await sendMessage(page, QUESTIONS.weather);
    await waitIdle(page);
    expect(await lastAnswer(page).getAttribute('data-state')).toBe('done');
    await page.getByTestId('open-settings').click();
    expect(await page.getByTestId('max-rounds').inputValue()).toBe('6');
    await page.getByTestId('thinking').check();
    await page.getByTestId('reset-settings').click();
    expect(await page.getByTestId('max-rounds').inputValue()).toBe('4');
    expect(await page.getByTestId('thinking').isChecked()).toBe(false);
    // What a reset changed is said, and Undo brings it back (issue 44).
    expect(await page.getByTestId('settings-undo').textContent()).toMatch(/tool rounds, thinking/);
    await page.getByTestId('undo-reset').click();
    expect(await page.getByTestId('max-rounds').inputValue()).toBe('6');
    expect(await page.getByTestId('thinking').isChecked()).toBe(true);
    // A system prompt the user wrote is not wiped without asking.
    await page.getByTestId('system-prompt').fill('You are a pirate. Use the tools.');
    await page.getByTestId('system-prompt').blur();
    await page.getByTestId('reset-settings').click();
    expect(await page.getByTestId('reset-confirm').textContent()).toContain('system prompt');
    await page.getByTestId('reset-confirm-no').click();
    expect(await page.getByTestId('system-prompt').inputValue()).toBe('You are a pirate. Use the tools.');
    await page.getByTestId('reset-settings').click();
    await page.getByTestId('reset-confirm-yes').click();
    expect(await page.getByTestId('system-prompt').inputValue()).not.toContain('pirate');
    await page.getByTestId('undo-reset').click();
    expect(await page.getByTestId('system-prompt').inputValue()).toBe('You are a pirate. Use the tools.');
    // Back to the defaults for the tests that follow.
    await page.getByTestId('reset-settings').click();
    await page.getByTestId('reset-confirm-yes').click();
    expect(await page.getByTestId('max-rounds').inputValue()).toBe('4');
    await page.getByTestId('close-drawer').click();
  });

  it('starts a new conversation and switches back to the saved one', async () => {
    const answers = await page.locator('.turn[data-role="assistant"]').count();
    // Web research is a choice per conversation (issue 30, P2.2): a new one starts with it off.
    await page.getByTestId('web-switch').click();
    expect(await page.getByTestId('web-switch').getAttribute('aria-checked')).toBe('true');
    await page.getByTestId('new-conversation').click();
    expect(await page.locator('.turn').count()).toBe(0);
    expect(await page.getByTestId('web-switch').getAttribute('aria-checked')).toBe('false');
    // Nothing to export yet (issue 30, P3): no empty file; nor an empty message to send.
    expect(await page.getByTestId('export-json').isDisabled()).toBe(true);
    expect(await page.getByTestId('send').getAttribute('aria-disabled')).toBe('true');
    await page.getByTestId('prompt').fill('x');
    expect(await page.getByTestId('send').getAttribute('aria-disabled')).toBe('false');
    await page.getByTestId('prompt').fill('');
    await sendMessage(page, QUESTIONS.paris);
    await waitIdle(page);
    const list = page.getByTestId('conversation-list').locator('li');
    await expect.poll(() => list.count()).toBe(2);
    await list.nth(1).locator('button.open').click();
    await expect.poll(() => page.locator('.turn[data-role="assistant"]').count()).toBe(answers);
  });

  it('renames, deletes with Undo, exports, imports and searches conversations; the theme toggle switches the colours', async () => {
    await page.getByTestId('new-conversation').click();
    await sendMessage(page, QUESTIONS.weather);
    await waitIdle(page);
    const list = page.getByTestId('conversation-list');
    const current = list.locator('li.current');
    // Rename the open conversation in place.
    await current.getByTestId('rename').click();
    await page.getByTestId('rename-field').fill('Zebra notes');
    await page.getByTestId('rename-field').press('Enter');
    await expect.poll(() => current.locator('.title').textContent()).toBe('Zebra notes');
    // Export it as JSON and as Markdown: real downloads.
    const [json] = await Promise.all([page.waitForEvent('download'), page.getByTestId('export-json').click()]);
    expect(json.suggestedFilename()).toBe('zebra-notes.json');
    const exported = await (await import('node:fs/promises')).readFile((await json.path()) ?? '', 'utf8');
    expect(JSON.parse(exported)).toMatchObject({ format: 'nexus-chat/conversation', conversation: { title: 'Zebra notes' } });
    const [markdown] = await Promise.all([page.waitForEvent('download'), page.getByTestId('export-markdown').click()]);
    expect(markdown.suggestedFilename()).toBe('zebra-notes.md');
    // Delete it, then Undo.
    const count = await list.locator('li').count();
    await current.getByTestId('delete').click();
    await expect.poll(() => list.locator('li').count()).toBe(count - 1);
    await page.getByTestId('undo').click();
    await expect.poll(() => list.locator('li').count()).toBe(count);
    // Importing the export of a conversation that is here adds nothing, and says so (issue 54, P3).
    await page.getByTestId('import-file').setInputFiles({ name: 'zebra-notes.json', mimeType: 'application/json', buffer: Buffer.from(exported) });
    await expect.poll(() => page.getByTestId('import-error').textContent()).toBe('Nothing imported from zebra-notes.json: this conversation is already here.');
    expect(await list.locator('li').count()).toBe(count);
    // An export changed since (here: its title) is another conversation: a new one with the same words opens.
    const edited = exported.replace('"title": "Zebra notes"', '"title": "Zebra notes, edited"');
    await page.getByTestId('import-file').setInputFiles({ name: 'zebra-notes.json', mimeType: 'application/json', buffer: Buffer.from(edited) });
    await expect.poll(() => list.locator('li').count()).toBe(count + 1);
    expect(await lastAnswer(page).locator('.markdown').textContent()).toContain('31 °C');
    await page.getByTestId('import-file').setInputFiles({ name: 'notes.json', mimeType: 'application/json', buffer: Buffer.from('{"not":"ours"}') });
    await expect.poll(() => page.getByTestId('import-error').textContent()).toContain('not a Nexus Chat conversation export');
    // Search: the renamed one and its imported copy have the word.
    await page.getByTestId('conversation-search').fill('zebra');
    await expect.poll(() => list.locator('li').count()).toBe(2);
    await page.getByTestId('conversation-search').fill('');
    await expect.poll(() => list.locator('li').count()).toBe(count + 1);
    // Export all (issue 44): every conversation in one file; imported again here, it adds nothing and says so.
    const [all] = await Promise.all([page.waitForEvent('download'), page.getByTestId('export-all').click()]);
    expect(all.suggestedFilename()).toMatch(/^nexus-chat-conversations-\d{4}-\d{2}-\d{2}\.json$/);
    const everything = await (await import('node:fs/promises')).readFile((await all.path()) ?? '', 'utf8');
    const titles = (JSON.parse(everything) as { format: string; conversations: { title: string }[] }).conversations.map((c) => c.title);
    expect(titles).toHaveLength(count + 1);
    expect(titles.filter((t) => t.startsWith('Zebra notes'))).toHaveLength(2);
    await page.getByTestId('import-file').setInputFiles({ name: all.suggestedFilename(), mimeType: 'application/json', buffer: Buffer.from(everything) });
    await expect
      .poll(() => page.getByTestId('import-error').textContent())
      .toBe(`Nothing imported from ${all.suggestedFilename()}: all ${count + 1} conversations are already here.`);
    expect(await list.locator('li').count()).toBe(count + 1);
    // Theme: system → light → dark, and the page's colours follow.
    const background = () => page.locator('nexus-app').evaluate((el) => getComputedStyle(el).getPropertyValue('--bg').trim());
    await page.getByTestId('theme-toggle').click();
    expect(await page.getByTestId('theme-toggle').textContent()).toBe('Theme: light');
    expect(await background()).toBe('#f6f7f9');
    await page.getByTestId('theme-toggle').click();
    expect(await background()).toBe('#0f1115');
    await screenshot(page, 'theme-dark');
    await page.getByTestId('theme-toggle').click();
    expect(await page.getByTestId('theme-toggle').textContent()).toBe('Theme: system');
  });

  it('has keyboard shortcuts, listed behind ? (issue 44): focus the box, search, copy the last answer, a new conversation', async () => {
    await page.context().grantPermissions(['clipboard-read', 'clipboard-write'], { origin: new URL(harness.origin).origin });
    // Somewhere that types nothing: the header.
    await page.mouse.click(700, 25);
    await page.keyboard.press('?');
    const sheet = page.getByTestId('shortcuts');
    await expect.poll(() => sheet.isVisible(), { timeout: TIMEOUTS.reacts }).toBe(true);
    for (const line of ['Ctrl+K', 'Ctrl+Shift+O', 'Ctrl+Shift+C', 'Esc']) expect(await sheet.textContent()).toContain(line);
    await page.keyboard.press('Escape');
    await expect.poll(() => sheet.isVisible()).toBe(false);
    // `/` puts the cursor in the message box; typed there, `?` is just a character.
    await page.keyboard.press('/');
    await expect.poll(() => page.evaluate(() => document.activeElement?.shadowRoot?.activeElement?.shadowRoot?.activeElement?.id ?? '')).toBe('prompt');
    await page.keyboard.type('Why?');
    expect(await page.getByTestId('prompt').inputValue()).toBe('Why?');
    expect(await sheet.isVisible()).toBe(false);
    await page.getByTestId('prompt').fill('');
    // Ctrl+Shift+C copies the last answer as the model wrote it (its Markdown, as the Copy button does).
    await page.evaluate(() => navigator.clipboard.writeText(''));
    await page.keyboard.press('Control+Shift+C');
    await expect.poll(() => page.evaluate(() => navigator.clipboard.readText())).toMatch(/^It is \*\*31 °C\*\* and partly cloudy in Chennai/);
    // Ctrl+K goes to the conversation search.
    await page.keyboard.press('Control+K');
    await expect.poll(() => page.getByTestId('conversation-search').evaluate((el) => el === (el.getRootNode() as ShadowRoot).activeElement)).toBe(true);
    // Ctrl+Shift+O, even from there, starts a new conversation and puts the cursor in its message box (issue 54).
    await page.keyboard.press('Control+Shift+O');
    await expect.poll(() => page.locator('.turn').count()).toBe(0);
    await expect.poll(() => page.getByTestId('prompt').evaluate((el) => el === (el.getRootNode() as ShadowRoot).activeElement)).toBe(true);
    // The page says where the shortcuts are without a hover: a button in the header, named with its key.
    const opener = page.getByTestId('open-shortcuts');
    expect(await opener.textContent()).toBe('Shortcuts (?)');
    expect(await opener.getAttribute('aria-keyshortcuts')).toBe('?');
    await opener.click();
    await expect.poll(() => sheet.isVisible(), { timeout: TIMEOUTS.reacts }).toBe(true);
    await page.keyboard.press('Escape');
    await expect.poll(() => sheet.isVisible()).toBe(false);
  });

  it('on a phone: long lines and diagnostics stay in the column, the drawer closes after a choice, the picker opens at its top, the verdict folds, settings fit', async () => {
    await page.setViewportSize({ width: 390, height: 844 });
    await page.reload();
    await expect.poll(() => page.getByTestId('model-status').textContent(), { timeout: TIMEOUTS.works }).toBe('Ready: scripted on WASM q4');
    // The header is one row of buttons a finger can hit (issue 54: it was 123 px, its buttons 27×26), the status in it.
    const header = page.locator('nexus-app header');
    expect((await header.boundingBox())?.height ?? 999).toBeLessThanOrEqual(64);
    const buttons = await header
      .locator('button:visible')
      .evaluateAll((all) =>
        all.map((b) => [b.textContent?.trim() || b.getAttribute('aria-label'), b.getBoundingClientRect().width, b.getBoundingClientRect().height]),
      );
    expect(buttons.map(([name]) => name)).toEqual(['Conversations', 'Tools', 'Settings']);
    for (const [name, width, height] of buttons) expect([name, Math.min(Number(width), Number(height)) >= 40]).toEqual([name, true]);
    expect(await page.getByTestId('model-status').isVisible()).toBe(true);
    // The verdict takes one line on a phone, and opens on demand.
    const verdict = page.getByTestId('verdict');
    expect((await verdict.boundingBox())?.height ?? 999).toBeLessThan(90);
    expect(await page.getByTestId('verdict-detail').isVisible()).toBe(false);
    await page.getByTestId('verdict-toggle').click();
    expect(await page.getByTestId('verdict-detail').isVisible()).toBe(true);
    // Left open, it is open after a reload (issue 44); folded again, it stays folded.
    const stored = (card: string) =>
      expect.poll(async () => ((await readStored(page, 'settings', 'nexus-harness')) as { verdictCard?: string })?.verdictCard).toBe(card);
    await stored('open');
    await page.reload();
    await expect.poll(() => page.getByTestId('model-status').textContent(), { timeout: TIMEOUTS.works }).toBe('Ready: scripted on WASM q4');
    await expect.poll(() => page.getByTestId('verdict-detail').isVisible()).toBe(true);
    await page.getByTestId('verdict-toggle').click();
    await stored('folded');
    await page.reload();
    await expect.poll(() => page.getByTestId('model-status').textContent(), { timeout: TIMEOUTS.works }).toBe('Ready: scripted on WASM q4');
    expect(await page.getByTestId('verdict-detail').isVisible()).toBe(false);
    // Open again: the tests after this one read its details.
    await page.getByTestId('verdict-toggle').click();

    await sendMessage(page, QUESTIONS.longLines);
    await waitIdle(page);
    const scroller = page.locator('main.scroller');
    expect(await scroller.evaluate((el) => el.scrollWidth - el.clientWidth)).toBeLessThanOrEqual(0);
    const answer = lastAnswer(page);
    await answer.getByTestId('diagnostics-toggle').click();
    const card = await answer.getByTestId('diagnostics').boundingBox();
    for (const pre of await answer.getByTestId('diagnostics').locator('pre').all()) {
      const box = await pre.boundingBox();
      if (box && card) expect(box.x + box.width).toBeLessThanOrEqual(card.x + card.width + 1);
    }
    expect(await scroller.evaluate((el) => el.scrollWidth - el.clientWidth)).toBeLessThanOrEqual(0);
    await screenshot(page, 'phone-long-lines');

    // A table keeps its words whole in its cells and scrolls in its own box; the page does not (issue 44).
    await sendMessage(page, QUESTIONS.table);
    await waitIdle(page);
    const cells = lastAnswer(page).locator('.markdown td');
    for (const width of await cells.evaluateAll((tds) => tds.map((td) => td.getBoundingClientRect().width))) expect(width).toBeGreaterThan(50);
    // A one-word cell is on one line: its text is not broken letter by letter.
    const lines = (td: Element) => {
      const range = document.createRange();
      range.selectNodeContents(td);
      return range.getClientRects().length;
    };
    expect(await cells.filter({ hasText: 'Reykjavík' }).evaluate(lines)).toBe(1);
    expect(await cells.filter({ hasText: 'Chennai' }).evaluate(lines)).toBe(1);
    expect(await scroller.evaluate((el) => el.scrollWidth - el.clientWidth)).toBeLessThanOrEqual(0);
    // The composer's hint is read whole, not cut.
    const hint = page.locator('nexus-composer .hint');
    expect(await hint.evaluate((el) => el.scrollWidth <= el.clientWidth + 1 && getComputedStyle(el).whiteSpace !== 'nowrap')).toBe(true);
    await screenshot(page, 'phone-table');

    // The conversations drawer closes once a conversation is chosen: tapping the one already open
    // closes it too (issue 44), the user chose where to be.
    await page.locator('button.menu').click();
    const sidebar = page.locator('aside.sidebar');
    const closed = async () => ((await sidebar.boundingBox())?.x ?? 0) + ((await sidebar.boundingBox())?.width ?? 0);
    await expect.poll(async () => (await sidebar.boundingBox())?.x ?? -1).toBeGreaterThanOrEqual(0);
    await page.locator('button.open[aria-current="page"]').click();
    await expect.poll(closed).toBeLessThanOrEqual(1);
    await page.locator('button.menu').click();
    await expect.poll(async () => (await sidebar.boundingBox())?.x ?? -1).toBeGreaterThanOrEqual(0);
    await page.getByTestId('new-conversation').click();
    await expect.poll(closed).toBeLessThanOrEqual(1);

    // "Change model" from far down a conversation shows the picker from its top.
    await sendMessage(page, QUESTIONS.longLines);
    await waitIdle(page);
    await scroller.evaluate((el) => (el.scrollTop = el.scrollHeight));
    await page.getByTestId('change-model').click();
    await expect.poll(async () => (await page.getByTestId('model-picker').boundingBox())?.y ?? -1).toBeGreaterThanOrEqual(0);
    expect((await page.getByTestId('model-picker').boundingBox())?.y ?? 999).toBeLessThan(200);
    await page.getByTestId('model-picker').getByRole('button', { name: 'Cancel' }).click();

    // Settings: no select or field wider than the drawer.
    await page.getByTestId('open-settings').click();
    const drawer = await page.getByTestId('drawer').boundingBox();
    for (const field of await page.getByTestId('drawer').locator('select, input, textarea').all()) {
      const box = await field.boundingBox();
      if (box && drawer && box.width > 0) expect(box.x + box.width).toBeLessThanOrEqual(drawer.x + drawer.width + 1);
    }
    // And no select cuts its chosen option short: the text fits inside the box, arrow included.
    const clipped = await page
      .getByTestId('drawer')
      .locator('select')
      .evaluateAll((selects) =>
        selects.flatMap((select) => {
          const el = select as HTMLSelectElement;
          const style = getComputedStyle(el);
          const context = document.createElement('canvas').getContext('2d');
          if (!context) return [];
          context.font = `${style.fontWeight} ${style.fontSize} ${style.fontFamily}`;
          const text = el.selectedOptions[0]?.textContent ?? '';
          const needed = context.measureText(text).width + parseFloat(style.paddingLeft) + parseFloat(style.paddingRight) + 20;
          return needed > el.clientWidth ? [`${text} (${Math.round(needed)} > ${el.clientWidth})`] : [];
        }),
      );
    expect(clipped).toEqual([]);
    await screenshot(page, 'phone-settings');
    await page.getByTestId('close-drawer').click();
    await page.setViewportSize({ width: 1280, height: 860 });
  });

  it('fits a narrow window and follows the dark colour scheme', async () => {
    await page.setViewportSize({ width: 390, height: 844 });
    await page.emulateMedia({ colorScheme: 'dark' });
    await screenshot(page, 'narrow-dark');
    const overflow = await page.evaluate(() => document.documentElement.scrollWidth - window.innerWidth);
    expect(overflow).toBeLessThanOrEqual(0);
    // Every header button fits beside the status at every width between a phone and a desktop.
    for (const width of [320, 600, 760, 901, 1024]) {
      await page.setViewportSize({ width, height: 800 });
      const spill = await page.locator('nexus-app header').evaluate((header) => header.scrollWidth - header.clientWidth);
      expect([width, spill]).toEqual([width, 0]);
    }
    await page.setViewportSize({ width: 1280, height: 860 });
    await screenshot(page, 'chat-dark');
    await page.emulateMedia({ colorScheme: 'light' });
    expect(pageErrors).toEqual([]);
  });

  it('attaches files to a message — text and PDF — as chips the model reads as data, and says why one is refused (issue 44)', async () => {
    await page.getByTestId('new-conversation').click();
    // pdf.js says nothing in the console about a file it reads (issue 68, P3: it logged a font warning).
    const warnings: string[] = [];
    const listen = (message: { type(): string; text(): string }) => {
      if (message.type() === 'warning' || message.type() === 'error') warnings.push(message.text());
    };
    page.on('console', listen);
    const input = page.getByTestId('attach-file-input');
    await input.setInputFiles([
      { name: 'totals.md', mimeType: 'text/markdown', buffer: Buffer.from('# Sales\n\nQuarterly totals: 42\n') },
      { name: 'letter.pdf', mimeType: 'application/pdf', buffer: pdfWithText('Hello from a PDF') },
    ]);
    const chips = page.getByTestId('attachments');
    await expect.poll(() => chips.getByTestId('attachment').count(), { timeout: TIMEOUTS.answers }).toBe(2);
    expect(await chips.textContent()).toContain('totals.md');
    expect(await chips.textContent()).toContain('letter.pdf');
    // What is not text is refused by name, by the box; what was attached stays.
    await input.setInputFiles({ name: 'photo.png', mimeType: 'image/png', buffer: Buffer.from([0x89, 0x50, 0x4e, 0x47, 0, 0, 0xff, 0xfe]) });
    await expect.poll(() => page.getByTestId('attach-error').textContent()).toContain('“photo.png” is not a text file');
    expect(await chips.getByTestId('attachment').count()).toBe(2);
    await sendMessage(page, QUESTIONS.files);
    await waitIdle(page);
    expect(await lastAnswer(page).locator('.markdown').textContent()).toContain('quarterly total of 42');
    // The message keeps them as chips; each opens to the text the model was given.
    const sent = page.locator('.turn[data-role="user"]').last().getByTestId('message-attachments');
    expect(await sent.locator('li').count()).toBe(2);
    await sent.locator('summary', { hasText: 'letter.pdf' }).click();
    expect(await sent.getByTestId('attachment-text').last().textContent()).toContain('Hello from a PDF');
    expect(await chips.count()).toBe(0);
    page.off('console', listen);
    expect(warnings.filter((text) => /pdf|font/i.test(text))).toEqual([]);
    expect(pageErrors).toEqual([]);
  });

  it('reads a PDF whose text inflates far past its file only to a bound, while it streams, and says so (issue 52)', async () => {
    await page.getByTestId('new-conversation').click();
    // 10 million characters of text in a file of about 20 KB.
    const bomb = pdfBomb(170_000);
    expect(bomb.length).toBeLessThan(64 * 1024);
    await page.getByTestId('attach-file-input').setInputFiles({ name: 'bomb.pdf', mimeType: 'application/pdf', buffer: bomb });
    const chips = page.getByTestId('attachments');
    await expect.poll(() => chips.getByTestId('attachment').count(), { timeout: TIMEOUTS.answers }).toBe(1);
    // The chip says, in words, how much text the file gave: at most the bound (2,000,000 and the note), not ten
    // million; too long to read whole, it is searched by passage (issue 54).
    const words = (await chips.getByTestId('attachment-read').textContent()) ?? '';
    const read = Number(/([\d,]+) characters/.exec(words)?.[1]?.replaceAll(',', '') ?? Number.NaN);
    expect(read, words).toBeGreaterThan(1_000_000);
    expect(read, words).toBeLessThanOrEqual(2_000_200);
    expect(words).toMatch(/in [\d,]+ passages · too long to read whole/);
    await chips.getByRole('button', { name: 'Remove bomb.pdf' }).click();
    expect(await chips.count()).toBe(0);
    expect(pageErrors).toEqual([]);
  });

  it('reads through a file asked about as a whole: "summarise" names no word of it (issue 68, P2.5)', async () => {
    await page.getByTestId('new-conversation').click();
    const chapters = Array.from({ length: 30 }, (_, i) => `## Chapter ${i + 1}\n\n${`Chapter ${i + 1} of the saga goes on at length. `.repeat(60)}`).join(
      '\n\n',
    );
    await page.getByTestId('attach-file-input').setInputFiles({ name: 'saga.md', mimeType: 'text/markdown', buffer: Buffer.from(chapters) });
    await expect.poll(() => page.getByTestId('attachments').getByTestId('attachment').count(), { timeout: TIMEOUTS.works }).toBe(1);
    await sendMessage(page, QUESTIONS.summarise);
    await waitIdle(page);
    const answer = lastAnswer(page);
    expect(await answer.locator('.markdown').textContent()).toContain('A saga in thirty chapters');
    const line = answer.locator('[data-kind="passages"]');
    expect(await line.textContent()).toContain('no passage matched, so read through the attached files');
    // From the first chapter to the last.
    const read = (await line.getByTestId('passages-read').textContent()) ?? '';
    expect(read).toMatch(/saga\.md, lines 1[–-]/);
    expect(pageErrors).toEqual([]);
  });

  it('shows a file being read, and a message sent meanwhile waits for it and goes with it (issue 68, P2.1)', async () => {
    await page.getByTestId('new-conversation').click();
    // What the page showed while the file was read, seen as it happened (it lasts about a second).
    await page.evaluate(() => {
      const seen = new Set<string>();
      (window as unknown as { __seen: Set<string> }).__seen = seen;
      // Through every shadow root, as the page's elements nest.
      const found = (root: Document | ShadowRoot, selector: string): boolean =>
        root.querySelector(selector) !== null || [...root.querySelectorAll('*')].some((el) => el.shadowRoot !== null && found(el.shadowRoot, selector));
      // Until both are seen, or the test ends: a walk of every shadow root each frame is work the rest of the file would pay for.
      const look = () => {
        for (const id of ['attachment-reading', 'waiting-for-files']) if (found(document, `[data-testid="${id}"]`)) seen.add(id);
        if (seen.size < 2 && !(window as unknown as { __stopLooking?: boolean }).__stopLooking) requestAnimationFrame(look);
      };
      look();
    });
    // Ten million characters of text in 20 KB: reading it to its bound takes the page a second or more.
    await page.getByTestId('attach-file-input').setInputFiles({ name: 'bomb.pdf', mimeType: 'application/pdf', buffer: pdfBomb(170_000) });
    await sendMessage(page, QUESTIONS.bomb);
    await waitIdle(page);
    const seen = await page.evaluate(() => {
      Object.assign(window, { __stopLooking: true });
      return [...(window as unknown as { __seen: Set<string> }).__seen].sort();
    });
    expect(seen).toEqual(['attachment-reading', 'waiting-for-files']);
    // The message went with its file, and the answer read it; nothing is left for the next message.
    const sent = page.locator('.turn[data-role="user"]').last().getByTestId('message-attachments');
    expect(await sent.textContent()).toContain('bomb.pdf');
    expect(await lastAnswer(page).locator('.markdown').textContent()).toContain('It repeats the letter A');
    expect(await page.getByTestId('attachments').count()).toBe(0);
    expect(pageErrors).toEqual([]);
  });

  it('reads and imports hostile files off the main thread, each stopped at its deadline with the page responsive, and searches what it read (issue 67, M1)', async () => {
    await page.getByTestId('new-conversation').click();
    type Probe = {
      __ticks: number[];
      __beat?: ReturnType<typeof setInterval>;
      __nexusShortenFileDeadlines(ms: number): () => void;
      __restoreDeadlines?: () => void;
      __restoreImport?: () => void;
    };
    // The main thread's heartbeat: a page frozen by a parser would leave a gap as long as the work.
    await page.evaluate(() => {
      const probe = window as unknown as Probe;
      probe.__ticks = [];
      probe.__beat = setInterval(() => probe.__ticks.push(performance.now()), 16);
      probe.__restoreDeadlines = probe.__nexusShortenFileDeadlines(2_000);
    });
    const input = page.getByTestId('attach-file-input');
    // Chromium's measure of the page's own heap: what the readers held stays in their workers, ended with them.
    const heap = () => page.evaluate(() => (performance as unknown as { memory: { usedJSHeapSize: number } }).memory.usedJSHeapSize);
    const heapBefore = await heap();
    /** Gives the page a file its readers cannot finish, and measures the page while they work: how long until the refusal, and its longest pause. */
    const refused = async (file: { name: string; mimeType: string; buffer: Buffer }, into = input, refusal = page.getByTestId('attach-error')) => {
      await into.setInputFiles(file);
      // From when the page has the file: Playwright's own handing over of a large file holds the page's thread, a picker's does not.
      const start = await page.evaluate(() => performance.now());
      await expect.poll(async () => ((await refusal.count()) ? refusal.textContent() : ''), { timeout: TIMEOUTS.works }).toContain(file.name);
      return {
        words: (await refusal.textContent()) ?? '',
        ...(await page.evaluate((since) => {
          const ticks = (window as unknown as Probe).__ticks.filter((t) => t >= since);
          const pause = ticks.slice(1).reduce((longest, t, i) => Math.max(longest, t - (ticks[i] as number)), 0);
          return { span: performance.now() - since, pause };
        }, start)),
      };
    };
    // 100,000 elements deep: 13 s of parsing (in Node), ended at the files' worker's (shortened) deadline.
    const deep = await refused({ name: 'deep.html', mimeType: 'text/html', buffer: Buffer.from(htmlNestedDeep(100_000)) });
    expect(deep.words).toContain('“deep.html” was not attached: Reading the file took longer than 2 s and was stopped.');
    expect(deep.span).toBeGreaterThanOrEqual(2_000);
    // The page went on meanwhile: its longest pause is a small part of the time the work took.
    expect(deep.pause, JSON.stringify(deep)).toBeLessThan(deep.span / 3);
    // A few hundred bytes that take pdf.js seconds and gigabytes to open: its worker is ended at the deadline, before any page.
    const slow = await refused({ name: 'slow.pdf', mimeType: 'application/pdf', buffer: pdfSlowToOpen(20_000_000) });
    expect(slow.words).toContain('“slow.pdf” could not be read as a PDF (it did not open within 2 s)');
    expect(slow.pause, JSON.stringify(slow)).toBeLessThan(slow.span / 3);
    const heapGrowth = (await heap()) - heapBefore;
    console.log(`Hostile files: ${JSON.stringify({ deep, slow, heapGrowth })}`);
    // The PDF alone takes pdf.js gigabytes to open, the HTML hundreds of megabytes to parse: the page's heap grew by far less.
    expect(heapGrowth).toBeLessThan(64 * 1024 * 1024);
    // A conversation file nested five million deep (10 MB): 2.6 s of JSON.parse alone (in Node), now in the files'
    // worker, stopped at a deadline of half a second.
    await page.evaluate(() => {
      const probe = window as unknown as Probe;
      probe.__restoreImport = probe.__nexusShortenFileDeadlines(500);
    });
    const depth = 5_000_000;
    const nested = await refused(
      { name: 'nested.json', mimeType: 'application/json', buffer: Buffer.from(`${'['.repeat(depth)}${']'.repeat(depth)}`) },
      page.getByTestId('import-file'),
      page.getByTestId('import-error'),
    );
    await page.evaluate(() => (window as unknown as Probe).__restoreImport?.());
    expect(nested.words).toBe('Could not import nested.json: Reading the conversation file took longer than 0.5 s and was stopped.');
    expect(nested.pause, JSON.stringify(nested)).toBeLessThan(nested.span / 3);
    console.log(`Hostile import: ${JSON.stringify(nested)}`);
    await page.evaluate(() => {
      const probe = window as unknown as Probe;
      probe.__restoreDeadlines?.();
      clearInterval(probe.__beat);
    });
    // The review's Markdown: a heading of 4,000 spaces, and a 20,000-character heading above 600 KB of short
    // paragraphs (the tab froze for 25 s, and crashed) — read in a fresh worker, and searched.
    const spaces = `# a${' '.repeat(4_000)}b\n\n${'A short paragraph of filler.\n\n'.repeat(2_000)}`;
    const paragraphs = Array.from({ length: 30_000 }, (_, i) =>
      i === 15_000 ? 'The lighthouse keeper counts 77 gulls every morning.' : `Short paragraph ${i}.`,
    );
    const heading = `# ${'h'.repeat(20_000)}\n\n${paragraphs.join('\n\n')}`;
    expect(heading.length).toBeGreaterThan(600_000);
    await input.setInputFiles([
      { name: 'spaces.md', mimeType: 'text/markdown', buffer: Buffer.from(spaces) },
      { name: 'heading.md', mimeType: 'text/markdown', buffer: Buffer.from(heading) },
    ]);
    const chips = page.getByTestId('attachments');
    await expect.poll(() => chips.getByTestId('attachment').count(), { timeout: TIMEOUTS.works }).toBe(2);
    expect(await chips.getByTestId('attachment-read').allTextContents()).toEqual([
      expect.stringMatching(/in [\d,]+ passages · too long to read whole/),
      expect.stringMatching(/in [\d,]+ passages · too long to read whole/),
    ]);
    await sendMessage(page, QUESTIONS.gulls);
    await waitIdle(page);
    expect(await lastAnswer(page).locator('.markdown').textContent()).toContain('The keeper counts 77 gulls every morning');
    expect(pageErrors).toEqual([]);
  });

  it('attaches a file dropped anywhere on the page, or pasted into the box; copied text stays text', async () => {
    await page.getByTestId('new-conversation').click();
    const files = (list: { name: string; type: string; text: string }[], text?: string) =>
      page.evaluateHandle(
        ({ list, text }) => {
          const transfer = new DataTransfer();
          for (const f of list) transfer.items.add(new File([f.text], f.name, { type: f.type }));
          if (text) transfer.setData('text/plain', text);
          return transfer;
        },
        { list, text },
      );
    const notes = await files([{ name: 'notes.md', type: 'text/markdown', text: '# Notes\n\nBuy milk.\n' }]);
    // While files are over the page it says what dropping does; dropped on the conversation, they are attached.
    const thread = page.locator('nexus-thread');
    await thread.dispatchEvent('dragenter', { dataTransfer: notes });
    await thread.dispatchEvent('dragover', { dataTransfer: notes });
    await expect.poll(() => page.getByTestId('drop-zone').isVisible()).toBe(true);
    expect(await page.getByTestId('drop-zone').textContent()).toContain('Drop to attach');
    await screenshot(page, 'drop-zone');
    // The page took the drop (the browser would otherwise open the file in its place).
    expect(
      await thread.evaluate(
        (el, transfer) => !el.dispatchEvent(new DragEvent('dragover', { dataTransfer: transfer, bubbles: true, composed: true, cancelable: true })),
        notes,
      ),
    ).toBe(true);
    await thread.dispatchEvent('drop', { dataTransfer: notes });
    expect(await page.getByTestId('drop-zone').count()).toBe(0);
    const chips = page.getByTestId('attachments');
    await expect.poll(() => chips.getByTestId('attachment').count(), { timeout: TIMEOUTS.answers }).toBe(1);
    expect(await chips.textContent()).toContain('notes.md');
    // Dragged out again without a drop: the notice goes.
    await thread.dispatchEvent('dragenter', { dataTransfer: notes });
    await expect.poll(() => page.getByTestId('drop-zone').count()).toBe(1);
    await thread.dispatchEvent('dragleave', { dataTransfer: notes });
    await expect.poll(() => page.getByTestId('drop-zone').count()).toBe(0);
    // A file pasted into the box is attached; a paste with text in it is the text, as always.
    const prompt = page.getByTestId('prompt');
    // Dispatched in the page: a ClipboardEvent carries its data only from its own constructor. True when the page left the paste alone.
    const paste = async (transfer: Awaited<ReturnType<typeof files>>) =>
      prompt.evaluate(
        (field, data) => field.dispatchEvent(new ClipboardEvent('paste', { clipboardData: data, bubbles: true, cancelable: true, composed: true })),
        transfer,
      );
    expect(await paste(await files([{ name: 'data.csv', type: 'text/csv', text: 'a,b\n1,2\n' }]))).toBe(false);
    await expect.poll(() => chips.getByTestId('attachment').count(), { timeout: TIMEOUTS.answers }).toBe(2);
    expect(await chips.textContent()).toContain('data.csv');
    expect(await paste(await files([{ name: 'x.txt', type: 'text/plain', text: 'x' }], 'just text'))).toBe(true);
    expect(await chips.getByTestId('attachment').count()).toBe(2);
    // A dropped file that is not text is refused by name, as one chosen with the button is.
    await thread.dispatchEvent('drop', { dataTransfer: await files([{ name: 'photo.png', type: 'image/png', text: '\u0089PNG\u0000\u0000' }]) });
    await expect.poll(() => page.getByTestId('attach-error').textContent()).toContain('“photo.png” is not a text file');
    for (let n = 0; n < 2; n++) await chips.locator('li button').first().click();
    await expect.poll(() => chips.count()).toBe(0);
    expect(pageErrors).toEqual([]);
  });

  it("marks where the model's memory begins once a conversation outgrows the context, and keeps every message (issue 25)", async () => {
    await page.getByTestId('new-conversation').click();
    await expect.poll(() => page.getByTestId('context').getAttribute('title')).toMatch(/^8,192 tokens: context length 8,192/);
    for (let n = 1; n <= 2; n++) {
      await sendMessage(page, longNote(n));
      await waitIdle(page);
    }
    expect(await page.getByTestId('memory-start').count()).toBe(0);
    await sendMessage(page, longNote(3));
    await waitIdle(page);
    const marker = page.getByTestId('memory-start');
    await expect.poll(() => marker.count()).toBe(1);
    expect(await marker.textContent()).toContain("Earlier messages are no longer in the model's memory");
    // It sits right before the first message still remembered; the ones before it are still shown.
    expect(await page.locator('.turn[data-role="user"]').count()).toBe(3);
    expect(await page.locator('[data-testid="memory-start"] + .turn .bubble').textContent()).toMatch(/^Long note [23]:/);
    // Where the user reads, at the bottom, a notice says so and shows where (issue 44).
    expect(await page.getByTestId('memory-notice').textContent()).toContain("Older messages have left the model's memory");
    await page.getByTestId('memory-jump').click();
    await expect.poll(async () => (await marker.boundingBox())?.y ?? -1, { timeout: TIMEOUTS.reacts }).toBeGreaterThanOrEqual(0);
    expect((await marker.boundingBox())?.y ?? 9_999).toBeLessThan(860);
    // A gauge by the message box: how full the model's memory was at the last answer.
    const gauge = page.getByTestId('context-gauge');
    expect(await gauge.getAttribute('title')).toMatch(/^The model's memory: [\d,]+ of 8,192 tokens at the last answer$/);
    const used = Number(await gauge.locator('meter').getAttribute('value'));
    expect(used).toBeGreaterThan(3000);
    expect(used).toBeLessThanOrEqual(8192);
    // In the card's own figures (8,192, not 8.2k), on a phone too (issue 54, P3).
    expect(await gauge.getByTestId('context-gauge-numbers').textContent()).toMatch(/^[\d,]+ \/ 8,192 tokens/);
    await screenshot(page, 'memory-start');
    // Scrolled up to read, a button takes the reader back to the latest message (and the page follows answers from there).
    const scroller = page.locator('main.scroller');
    const jump = page.getByTestId('jump-to-latest');
    // The memory notice's link scrolled up to the marker: the way back is offered.
    await expect.poll(() => jump.isVisible()).toBe(true);
    await scroller.evaluate((el) => el.scrollTo({ top: el.scrollHeight }));
    await expect.poll(() => jump.count()).toBe(0);
    await scroller.evaluate((el) => el.scrollTo({ top: 0 }));
    await expect.poll(() => jump.isVisible()).toBe(true);
    expect(await jump.textContent()).toContain('Latest message');
    await jump.click();
    await expect.poll(() => scroller.evaluate((el) => el.scrollHeight - el.scrollTop - el.clientHeight)).toBeLessThanOrEqual(1);
    await expect.poll(() => jump.count()).toBe(0);
    // Saved with the conversation, in the steps of the answer that shrank it: after a reload the mark is where it was.
    await expect
      .poll(async () => {
        const index = ((await readStored(page, 'conversations', 'nexus-harness')) ?? []) as { id: string }[];
        const saved = await Promise.all(index.map(({ id }) => readStored(page, `conversation:${id}`, 'nexus-harness')));
        // The answer that shrank the memory records it in its steps (issue 43): the view is derived from them.
        type Stored = { turns: { steps?: { kind: string; from?: number }[] }[] } | undefined;
        return saved.some((c) => (c as Stored)?.turns.some((t) => t.steps?.some((s) => s.kind === 'memory' && (s.from ?? 0) > 0)));
      })
      .toBe(true);
    await page.reload();
    await expect.poll(() => page.getByTestId('memory-start').count(), { timeout: TIMEOUTS.works }).toBe(1);
    // Its title in the list is the first message cut short; the Markdown file is titled with the message itself (issue 44).
    expect(await page.locator('nexus-conversations li.current .title').textContent()).toMatch(/…$/);
    const [markdown] = await Promise.all([page.waitForEvent('download'), page.getByTestId('export-markdown').click()]);
    const heading = (await (await import('node:fs/promises')).readFile((await markdown.path()) ?? '', 'utf8')).split('\n')[0] ?? '';
    expect(heading.startsWith('# Long note 1: the river runs past the old mill the river runs')).toBe(true);
    expect(heading.length).toBeGreaterThan(150);
    // On a phone the gauge keeps its numbers (issue 54, P3): a bar alone does not say how full.
    await page.setViewportSize({ width: 390, height: 844 });
    await expect.poll(() => page.getByTestId('context-gauge-numbers').isVisible(), { timeout: TIMEOUTS.reacts }).toBe(true);
    expect(await page.getByTestId('context-gauge-numbers').textContent()).toMatch(/^[\d,]+ \/ 8,192/);
    await page.setViewportSize({ width: 1280, height: 860 });
    expect(pageErrors).toEqual([]);
  });
});
