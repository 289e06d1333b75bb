import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createMcpRelay } from '../../src/server/mcp-relay.ts';
import { startMcpServer, type TestMcpServer } from '../tools/start-mcp-server.ts';
import { startAppsServer, type AppsServer } from '../tools/mcp-apps-server.ts';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { startHarness, type Harness } from './app/harness-server.ts';
import { lastAnswer, screenshot, sendMessage, waitIdle } from './app/page-helpers.ts';
import { QUESTIONS } from './app/questions.ts';
import { launchChromium } from './chromium.ts';
import { TIMEOUTS } from '../timeouts.ts';

/**
 * Tools from MCP servers on the chat page (issue 27), over the scripted model of the harness: the
 * official SDK's server in child processes on loopback, reached by the page directly (its CORS
 * allows the page) and through the app server's relay (it does not, and it wants a token the page
 * never sees). The tests run in order on one page.
 */
describe('MCP servers on the chat page', () => {
  let harness: Harness;
  let browser: Browser;
  let page: Page;
  /** Needs a token, sends no CORS headers: only the relay can reach it. */
  let relayed: TestMcpServer;
  /** Allows the page's origin: reached directly. */
  let direct: TestMcpServer;
  /** Allowed by the page's connect policy but sends no CORS headers, and not relayed. */
  let refused: TestMcpServer;
  /** Asks things of the client (issue 42): a form, a completion, progress, log lines; offers a resource and a prompt. */
  let features: TestMcpServer;
  /** Wants an OAuth token of the authorization server it starts beside it (issue 42). */
  let guarded: TestMcpServer;
  const relayBodies: string[] = [];
  const pageErrors: string[] = [];
  /** Has a tool with an MCP Apps view, which tries every escape (issue 69, item 3). */
  let apps: AppsServer;
  /** Loopback servers the view may reach (declared) and may not (undeclared): what reached each. */
  const reached = { declared: [] as string[], undeclared: [] as string[] };
  const watchers: Server[] = [];
  const consoleLines: string[] = [];

  beforeAll(async () => {
    [harness, browser] = await Promise.all([startHarness(), launchChromium({ webgpu: false })]);
    const origin = new URL(harness.origin).origin;
    [relayed, direct, refused, features] = await Promise.all([
      startMcpServer({ REQUIRE_TOKEN: 'relay-secret' }),
      startMcpServer({ CORS_ORIGIN: origin, SERVER_NAME: 'direct', TOOL_PREFIX: 'direct_' }),
      startMcpServer({ SERVER_NAME: 'nocors', TOOL_PREFIX: 'nocors_' }),
      startMcpServer({ CORS_ORIGIN: origin, SERVER_NAME: 'features', TOOL_PREFIX: 'features_', CLIENT_FEATURES: '1' }),
    ]);
    guarded = await startMcpServer({ CORS_ORIGIN: origin, SERVER_NAME: 'private', TOOL_PREFIX: 'private_', OAUTH: '1' });
    const [declaredOrigin, undeclaredOrigin] = await Promise.all(
      (['declared', 'undeclared'] as const).map(async (kind) => {
        const watcher = createServer((req, res) => {
          reached[kind].push(req.url ?? '');
          res.writeHead(200, { 'access-control-allow-origin': '*', 'content-type': 'text/plain' });
          res.end(`${kind} ok`);
        });
        watchers.push(watcher);
        await new Promise<void>((resolve) => watcher.listen(0, '127.0.0.1', resolve));
        return `http://127.0.0.1:${(watcher.address() as AddressInfo).port}`;
      }),
    );
    apps = await startAppsServer({ declaredOrigin: declaredOrigin!, undeclaredOrigin: undeclaredOrigin!, pageOrigin: origin });
    const authServer = /AUTH_SERVER (\S+)/.exec(guarded.output())?.[1] ?? '';
    harness.route(createMcpRelay({ servers: [{ name: 'notes', url: relayed.url, headers: { Authorization: 'Bearer relay-secret' }, label: 'Team notes' }] }));
    harness.allowConnect([
      `http://127.0.0.1:${direct.port}`,
      `http://127.0.0.1:${refused.port}`,
      `http://127.0.0.1:${features.port}`,
      `http://127.0.0.1:${guarded.port}`,
      authServer,
      new URL(apps.url).origin,
    ]);
    page = await browser.newPage({ viewport: { width: 1280, height: 860 } });
    page.on('pageerror', (error) => pageErrors.push(error.message));
    page.on('console', (message) => consoleLines.push(message.text()));
    page.on('response', async (response) => {
      if (response.url().includes('/mcp-relay/')) relayBodies.push(await response.text().catch(() => ''));
    });
    await page.goto(harness.url);
    await page.getByText('Ready: scripted on WASM q4').waitFor({ timeout: TIMEOUTS.works });
  }, TIMEOUTS.browserHook);

  afterAll(async () => {
    await browser?.close();
    await harness?.close();
    await Promise.all([relayed?.kill(), direct?.kill(), refused?.kill(), features?.kill(), guarded?.kill(), apps?.close()]);
    for (const watcher of watchers) watcher.close();
  });

  const serverRow = (url: string) => page.locator(`[data-testid="mcp-server"][data-url="${url}"]`);

  it('connects on load to the servers the app server relays, and lists their tools with the server they come from', async () => {
    await page.getByTestId('open-tools').click();
    const relayUrl = new URL('/mcp-relay/notes', harness.origin).href;
    await expect.poll(() => serverRow(relayUrl).getAttribute('data-phase'), { timeout: TIMEOUTS.works }).toBe('connected');
    expect(await serverRow(relayUrl).textContent()).toMatch(/Team notes\s*connected · 7 tools\s*relayed by the app server/);
    const tools = page.getByTestId('tools');
    expect(await tools.textContent()).toContain('from Team notes');
    // Every tool of a server the user did not trust asks first, like a confirm tool of tools.js,
    // whatever the server says of it (issue 41): read-only is the server's claim.
    const deleteNote = tools.locator('li', { hasText: 'Delete a note by id.' });
    expect(await deleteNote.textContent()).toContain('asks before running');
    const addNumbers = tools.locator('li', { hasText: 'Add two numbers.' }).first();
    expect(await addNumbers.textContent()).toContain('asks before running');
    expect(await addNumbers.textContent()).not.toContain('read-only');
    // Many tools get a filter (issue 30, P3): by name in words, description or server.
    const filter = page.getByTestId('tools-filter');
    await filter.fill('delete note');
    expect(await tools.locator(':scope > li .name code').allTextContents()).toEqual(['delete_note']);
    await filter.fill('no such tool anywhere');
    expect(await page.getByTestId('tools-none').textContent()).toContain('No tool matches');
    await filter.fill('');
    expect(await tools.locator(':scope > li').count()).toBeGreaterThan(6);
  });

  it('adds a server whose CORS allows the page, directly; one that refuses is shown down with what to do', async () => {
    await page.getByTestId('mcp-url').fill(direct.url);
    await page.getByTestId('mcp-add').click();
    await expect.poll(() => serverRow(direct.url).getAttribute('data-phase'), { timeout: TIMEOUTS.works }).toBe('connected');
    expect(await serverRow(direct.url).textContent()).toContain('added here');

    await page.getByTestId('mcp-url').fill(refused.url);
    await page.getByTestId('mcp-add').click();
    await expect.poll(() => serverRow(refused.url).getAttribute('data-phase'), { timeout: TIMEOUTS.works }).toBe('down');
    const why = await serverRow(refused.url).getByTestId('mcp-error').textContent();
    expect(why).toContain('Its tools are not offered');
    expect(why).toContain('CORS');
    expect(why).toContain('MCP_SERVERS');
    expect(await page.getByTestId('tools').textContent()).not.toContain('nocors_add_numbers');
    // Which CORS header a server lacks is said by name, with the relay as the way round it (issue 69, item 5).
    expect(why).toContain(`answers, but not to this page: its responses need Access-Control-Allow-Origin: ${new URL(harness.origin).origin}`);
    const cases = [
      {
        url: `${direct.url}?cors=no-headers`,
        says: 'does not allow the headers an MCP client sends: it needs Access-Control-Allow-Headers: Content-Type, Accept',
      },
      {
        url: `${direct.url}?cors=no-expose`,
        says: 'does not expose its session id to this page: its responses need Access-Control-Expose-Headers: Mcp-Session-Id',
      },
    ];
    for (const { url, says } of cases) {
      await page.getByTestId('mcp-url').fill(url);
      await page.getByTestId('mcp-add').click();
      await expect.poll(() => serverRow(url).getAttribute('data-phase'), { timeout: TIMEOUTS.works }).toBe('down');
      const words = (await serverRow(url).getByTestId('mcp-error').textContent()) ?? '';
      expect(words).toContain(says);
      expect(words).toContain(`MCP_SERVERS=${url}`);
      await serverRow(url).getByTestId('mcp-remove').click();
      await expect.poll(() => serverRow(url).count()).toBe(0);
    }
    // An address the page's own policy does not allow (issue 44): said so, with the two ways to allow it,
    // and not tried again and again by itself (the policy will not change until the page reloads).
    const blocked = 'http://127.0.0.1:9/mcp';
    await page.getByTestId('mcp-url').fill(blocked);
    await page.getByTestId('mcp-add').click();
    await expect.poll(() => serverRow(blocked).getAttribute('data-phase'), { timeout: TIMEOUTS.works }).toBe('down');
    const policy = (await serverRow(blocked).getByTestId('mcp-error').textContent()) ?? '';
    expect(policy).toContain("This page's connect policy does not allow http://127.0.0.1:9");
    expect(policy).toContain('MCP_SERVERS=http://127.0.0.1:9/mcp');
    expect(policy).not.toContain('maybe');
    expect(await serverRow(blocked).textContent()).not.toContain('trying again');
    await serverRow(blocked).getByTestId('mcp-remove').click();
    await expect.poll(() => serverRow(blocked).count()).toBe(0);
    // Two servers with one name are told apart by where they are (issue 44).
    const twin = `${direct.url}?copy=2`;
    await page.getByTestId('mcp-url').fill(twin);
    await page.getByTestId('mcp-add').click();
    await expect.poll(() => serverRow(twin).getAttribute('data-phase'), { timeout: TIMEOUTS.works }).toBe('connected');
    const names = [await serverRow(direct.url).getByTestId('mcp-name').textContent(), await serverRow(twin).getByTestId('mcp-name').textContent()];
    expect(names[0]).not.toBe(names[1]);
    expect(names[1]).toContain('?copy=2)');
    await serverRow(twin).getByTestId('mcp-remove').click();
    await expect.poll(() => serverRow(twin).count()).toBe(0);
    await page.getByTestId('mcp-url').fill('not an address');
    await page.getByTestId('mcp-add').click();
    // The browser's own check of a url field stops it; nothing was added.
    expect(await page.getByTestId('mcp-server').count()).toBe(3);
    await screenshot(page, 'tools-panel-mcp');
    await page.getByTestId('close-drawer').click();
  });

  it('answers with a relayed tool and with a direct one, each asked first, naming its server (its read-only hint decides nothing)', async () => {
    await sendMessage(page, QUESTIONS.mcpSum);
    await page.getByTestId('approval-dialog').waitFor({ timeout: TIMEOUTS.reacts });
    expect(await page.getByTestId('approval-server').textContent()).toContain('Team notes');
    await page.getByTestId('approve-always').click();
    await waitIdle(page);
    let answer = lastAnswer(page);
    expect(await answer.getByTestId('tool-row').getAttribute('data-status')).toBe('ok');
    expect(await answer.locator('.markdown').textContent()).toContain('The notes server says 4002.');

    await sendMessage(page, QUESTIONS.mcpDirect);
    await page.getByTestId('approval-dialog').waitFor({ timeout: TIMEOUTS.reacts });
    await page.getByTestId('approve').click();
    await waitIdle(page);
    answer = lastAnswer(page);
    expect(await answer.getByTestId('tool-row').getAttribute('data-status')).toBe('ok');
    expect(await answer.locator('.markdown').textContent()).toContain('The direct server says 1234.');
  });

  it('asks before a tool not marked read-only, and runs it once approved', async () => {
    await sendMessage(page, QUESTIONS.mcpDelete);
    await page.getByTestId('approval-dialog').waitFor({ timeout: TIMEOUTS.reacts });
    expect(await page.getByTestId('approval-dialog').textContent()).toContain('delete_note');
    await page.getByTestId('approve').click();
    await waitIdle(page);
    expect(await lastAnswer(page).locator('.markdown').textContent()).toContain('Note 7 is gone.');
  });

  it('Stop cancels the call on the server', async () => {
    await sendMessage(page, QUESTIONS.mcpSlow);
    await page.getByTestId('approval-dialog').waitFor({ timeout: TIMEOUTS.reacts });
    await page.getByTestId('approve').click();
    await page.getByTestId('stop').waitFor({ timeout: TIMEOUTS.reacts });
    await expect.poll(() => relayed.output(), { timeout: TIMEOUTS.reacts }).toContain('CALLED slow_echo');
    await page.getByTestId('stop').click();
    await waitIdle(page);
    await expect.poll(() => relayed.output(), { timeout: TIMEOUTS.reacts }).toContain('CANCELLED slow_echo');
    expect(await lastAnswer(page).getAttribute('data-state')).toBe('stopped');
  });

  it('the relay refuses a server that was not listed; the server’s token never reached the page', async () => {
    const refusedByRelay = await page.evaluate(async (port) => {
      const response = await fetch(`/mcp-relay/${encodeURIComponent(`http://127.0.0.1:${port}/mcp`)}`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', accept: 'application/json, text/event-stream' },
        body: '{}',
      });
      return { status: response.status, body: await response.json() };
    }, refused.port);
    expect(refusedByRelay.status).toBe(404);
    expect(refusedByRelay.body).toMatchObject({ error: 'unknown_server', message: expect.stringContaining('listed: notes') });
    expect(refused.output()).not.toContain('CANCELLED');
    expect(relayBodies.length).toBeGreaterThan(3);
    expect(relayBodies.join('\n')).not.toContain('relay-secret');
  });

  it('remembers the servers the user added across a reload, and reconnects them', async () => {
    await page.reload();
    await expect.poll(() => page.getByTestId('model-status').textContent(), { timeout: TIMEOUTS.works }).toBe('Ready: scripted on WASM q4');
    await page.getByTestId('open-tools').click();
    await expect.poll(() => serverRow(direct.url).getAttribute('data-phase'), { timeout: TIMEOUTS.works }).toBe('connected');
    // Removed, it goes with its tools.
    await serverRow(direct.url).getByTestId('mcp-remove').click();
    await expect.poll(() => serverRow(direct.url).count()).toBe(0);
    expect(await page.getByTestId('tools').textContent()).not.toContain('direct_add_numbers');
    expect(pageErrors).toEqual([]);
  });

  // Issue 42: what a server asks of the client, answered on the page by the user.
  it('a server that asks for a form gets what the user filled in (its defaults shown); the tool row shows its progress', async () => {
    await page.getByTestId('mcp-url').fill(features.url);
    await page.getByTestId('mcp-add').click();
    await expect.poll(() => serverRow(features.url).getAttribute('data-phase'), { timeout: TIMEOUTS.works }).toBe('connected');
    await page.getByTestId('close-drawer').click();

    await sendMessage(page, QUESTIONS.mcpAskName);
    await page.getByTestId('approval-dialog').waitFor({ timeout: TIMEOUTS.reacts });
    await page.getByTestId('approve').click();
    const form = page.getByTestId('mcp-request');
    await form.getByTestId('mcp-form').waitFor({ timeout: TIMEOUTS.reacts });
    expect(await form.getByTestId('mcp-request-server').textContent()).toBe('features');
    // Issue 52: the name is the server's claim; the address says which server it is.
    const { origin, pathname } = new URL(features.url);
    expect(await form.getByTestId('mcp-request-address').textContent()).toBe(`${origin}${pathname}`);
    expect(await form.getByTestId('mcp-request-message').textContent()).toBe('Who are you?');
    expect(await form.locator('input[name="name"]').inputValue()).toBe('Ada');
    expect(await form.locator('input[name="age"]').inputValue()).toBe('36');
    await form.locator('input[name="name"]').fill('Grace');
    await form.getByTestId('mcp-accept').click();
    await waitIdle(page);
    let answer = lastAnswer(page);
    expect(await answer.getByTestId('tool-row').locator('pre').textContent()).toContain('hello Grace (36)');
    expect(await answer.locator('.markdown').textContent()).toContain('Nice to meet you.');

    // A declined form: the server hears "decline", nothing the user did not send.
    await sendMessage(page, QUESTIONS.mcpAskName);
    await page.getByTestId('approval-dialog').waitFor({ timeout: TIMEOUTS.reacts });
    await page.getByTestId('approve').click();
    await page.getByTestId('mcp-form').waitFor({ timeout: TIMEOUTS.reacts });
    await page.getByTestId('mcp-decline').click();
    await waitIdle(page);
    expect(await lastAnswer(page).getByTestId('tool-row').locator('pre').textContent()).toContain('decline');
    expect(await lastAnswer(page).locator('.markdown').textContent()).toContain('You chose not to say');

    // Progress: the running tool's row says what the server last reported.
    await sendMessage(page, QUESTIONS.mcpCount);
    await page.getByTestId('approval-dialog').waitFor({ timeout: TIMEOUTS.reacts });
    await page.getByTestId('approve').click();
    await expect
      .poll(
        () =>
          lastAnswer(page)
            .getByTestId('tool-progress')
            .textContent()
            .catch(() => ''),
        { timeout: TIMEOUTS.reacts, interval: 50 },
      )
      .toMatch(/^[123] of 3: step [123]$/);
    await waitIdle(page);
    answer = lastAnswer(page);
    expect(await answer.locator('[data-status="running"]').count()).toBe(0);
    expect(await answer.locator('.markdown').textContent()).toContain('Counted to three.');
    // The server's log line, at the level asked (warning), is in the answer's diagnostics; its info lines are not.
    await answer.getByTestId('diagnostics-toggle').click();
    // (The log travels apart from the result: it may land just after the answer.)
    await expect
      .poll(() => answer.getByTestId('diagnostic-log').allTextContents())
      // The server is named with its address (issue 52): a name is the server's own claim.
      .toEqual([expect.stringMatching(/Log of features \(http:\/\/127\.0\.0\.1:\d+\/mcp\)\s*warning\s*counter: counted 3/)]);

    // A part the server meant for the user only is on the row, and the model never read it.
    await sendMessage(page, QUESTIONS.mcpOslo);
    await page.getByTestId('approval-dialog').waitFor({ timeout: TIMEOUTS.reacts });
    await page.getByTestId('approve').click();
    await waitIdle(page);
    answer = lastAnswer(page);
    expect(await answer.getByTestId('tool-shown').textContent()).toBe('Shown to the user only.');
    expect(await answer.getByTestId('tool-row').locator('pre').textContent()).not.toContain('Shown to the user only.');
    expect(await answer.locator('.markdown').textContent()).toContain('It is 4 °C in Oslo.');

    // URL mode: the page to open is shown in full and opens only on the user's click (here the server's own, on loopback).
    await sendMessage(page, QUESTIONS.mcpPay);
    await page.getByTestId('approval-dialog').waitFor({ timeout: TIMEOUTS.reacts });
    await page.getByTestId('approve').click();
    await page.getByTestId('mcp-request-url').waitFor({ timeout: TIMEOUTS.reacts });
    expect(await page.getByTestId('mcp-request-url').textContent()).toBe(`http://127.0.0.1:${features.port}/pay?bill=7`);
    expect(await page.getByTestId('mcp-request-host').textContent()).toBe(`127.0.0.1:${features.port}`);
    expect(await page.getByTestId('mcp-request-message').textContent()).toBe("Pay the bill on the bank's page.");
    const opened = page.context().waitForEvent('page');
    await page.getByTestId('mcp-open').click();
    const bank = await opened;
    await expect.poll(() => bank.url()).toContain(`127.0.0.1:${features.port}/pay?bill=7`);
    await bank.close();
    await waitIdle(page);
    answer = lastAnswer(page);
    expect(await answer.getByTestId('tool-row').locator('pre').textContent()).toContain('payment: accept');
    expect(await answer.locator('.markdown').textContent()).toContain('The bill is paid.');
  });

  it('a server that asks the model for a completion: the user sees the messages and allows it; the model in the tab answers', async () => {
    await sendMessage(page, QUESTIONS.mcpSummarize);
    await page.getByTestId('approval-dialog').waitFor({ timeout: TIMEOUTS.reacts });
    await page.getByTestId('approve').click();
    const dialog = page.getByTestId('mcp-request');
    await dialog.getByTestId('mcp-sample-messages').waitFor({ timeout: TIMEOUTS.reacts });
    expect(await dialog.getByTestId('mcp-sample-messages').textContent()).toContain('Summarize: a long day');
    expect(await dialog.textContent()).toContain('up to 40 tokens');
    await screenshot(page, 'mcp-sampling-dialog');
    await dialog.getByTestId('mcp-allow').click();
    await waitIdle(page);
    const answer = lastAnswer(page);
    expect(await answer.getByTestId('tool-row').locator('pre').textContent()).toContain('summary: A long day at work. (by scripted-qwen3, endTurn)');
    expect(await answer.locator('.markdown').textContent()).toContain('The server summed it up.');
  });

  it('the server’s log lines at the level chosen, its resource attached to a message as fenced data, and its prompt as a starter', async () => {
    await page.getByTestId('open-tools').click();
    const row = serverRow(features.url);
    // count_up logged "counted 1..3" at info, info, warning: the page asked for warning and above.
    await row.getByTestId('mcp-log').locator('summary').click();
    expect(await row.getByTestId('mcp-log').textContent()).toMatch(/warning\s*counter: counted 3/);
    expect(await row.getByTestId('mcp-log').textContent()).not.toContain('counted 1');
    await row.getByTestId('mcp-resources').locator('summary').click();
    await row.getByTestId('mcp-attach').click();
    await page.getByTestId('close-drawer').click();
    await expect.poll(() => page.getByTestId('attachment').textContent()).toContain('note');

    // The prompt as a starter: its argument asked in a form, its text put in the box, not sent.
    expect(await page.getByTestId('prompt-starters').textContent()).toContain('greet');
    await page.getByTestId('prompt-starter').click();
    await page.getByTestId('mcp-form').waitFor({ timeout: TIMEOUTS.reacts });
    await page.getByTestId('mcp-request').locator('input[name="name"]').fill('Bob');
    await page.getByTestId('mcp-accept').click();
    await expect.poll(() => page.getByTestId('prompt').inputValue()).toBe('Say hello to Bob.');

    await page.getByTestId('prompt').fill(QUESTIONS.mcpAttached);
    await page.getByTestId('send').click();
    await waitIdle(page);
    expect(await lastAnswer(page).locator('.markdown').textContent()).toContain('The note says to buy milk and eggs.');
    const chip = page.getByTestId('message-attachments').last();
    expect(await chip.textContent()).toContain('note');
    // What the model was given is what the message shows: the attachment's text opens from its chip.
    await chip.locator('summary').click();
    expect(await chip.getByTestId('attachment-text').textContent()).toContain('Buy milk and eggs.');
    expect(await page.getByTestId('attachments').count()).toBe(0);
    expect(pageErrors).toEqual([]);
  });

  it('a server that wants OAuth: the row asks the user to sign in, a sign-in window does it, and the server connects; a reload stays signed in', async () => {
    await page.getByTestId('open-tools').click();
    await page.getByTestId('mcp-url').fill(guarded.url);
    await page.getByTestId('mcp-add').click();
    const row = serverRow(guarded.url);
    await row.getByTestId('mcp-sign-in-needed').waitFor({ timeout: TIMEOUTS.works });
    expect(await row.getByTestId('mcp-sign-in-needed').textContent()).toContain('asks you to sign in');
    // The window opens from the click (no popup blocker), goes to the authorization server, and comes back to the callback page.
    const signInWindow = page.context().waitForEvent('page');
    await row.getByTestId('mcp-sign-in').click();
    const opened = await signInWindow;
    await expect.poll(() => serverRow(guarded.url).getAttribute('data-phase'), { timeout: TIMEOUTS.works }).toBe('connected');
    expect(await serverRow(guarded.url).textContent()).toMatch(/private\s*connected · 7 tools/);
    expect(await page.getByTestId('tools').textContent()).toContain('private_add_numbers');
    await opened.waitForEvent('close', { timeout: TIMEOUTS.reacts }).catch(() => undefined);
    // The code is spent: the callback page took it out of its address.
    expect(opened.isClosed() || !opened.url().includes('code=')).toBe(true);

    await page.reload();
    await expect.poll(() => page.getByTestId('model-status').textContent(), { timeout: TIMEOUTS.works }).toBe('Ready: scripted on WASM q4');
    await page.getByTestId('open-tools').click();
    await expect.poll(() => serverRow(guarded.url).getAttribute('data-phase'), { timeout: TIMEOUTS.works }).toBe('connected');
    expect(await serverRow(guarded.url).getByTestId('mcp-sign-in-needed').count()).toBe(0);
    expect(pageErrors).toEqual([]);
  });

  it('shows a tool’s MCP Apps view in a sandbox: fed its call, its own calls asked first, every escape blocked, and back after a reload', async () => {
    if (!(await page.getByTestId('mcp-url').isVisible())) await page.getByTestId('open-tools').click();
    await page.getByTestId('mcp-url').fill(apps.url);
    await page.getByTestId('mcp-add').click();
    await expect.poll(() => serverRow(apps.url).getAttribute('data-phase'), { timeout: TIMEOUTS.works }).toBe('connected');
    // The tool for the view only is never the model's.
    expect(await page.getByTestId('tools').textContent()).toContain('show_color');
    expect(await page.getByTestId('tools').textContent()).not.toContain('record_choice');
    await page.getByTestId('close-drawer').click();

    await sendMessage(page, QUESTIONS.mcpApp);
    await page.getByTestId('approval-dialog').waitFor({ timeout: TIMEOUTS.reacts });
    await page.getByTestId('approve').click();
    await waitIdle(page);
    expect(await lastAnswer(page).locator('.markdown').textContent()).toContain('The picker shows teal.');
    const frame = lastAnswer(page).getByTestId('mcp-app');
    expect(await frame.getAttribute('sandbox')).toBe('allow-scripts allow-forms');
    const view = lastAnswer(page).frameLocator('[data-testid="mcp-app"]').frameLocator('iframe');
    await expect.poll(() => view.locator('#connected').textContent(), { timeout: TIMEOUTS.works }).toBe('yes');
    await expect.poll(() => view.locator('#input').textContent(), { timeout: TIMEOUTS.works }).toBe('teal');
    await expect.poll(() => view.locator('#result').textContent(), { timeout: TIMEOUTS.works }).toBe('teal');

    // Every escape a hostile view tries, from inside the sandbox.
    await expect.poll(() => view.locator('#escapes').textContent(), { timeout: TIMEOUTS.works }).not.toBe('');
    const escapes = JSON.parse((await view.locator('#escapes').textContent()) ?? '{}') as Record<string, string>;
    for (const name of ['parentDocument', 'topDocument', 'storage', 'cookie', 'popup', 'undeclaredFetch']) expect(escapes[name], name).toMatch(/^blocked/);
    expect(escapes.declaredFetch).toBe('declared ok');
    expect(page.url()).toBe(harness.url);
    expect(reached.undeclared).toEqual([]);
    expect(reached.declared).toEqual(['/fetch']);

    // The view's own call of its view-only tool: asked of the user first, naming the server; the forged one never ran.
    await view.locator('#choose').click();
    await page.getByTestId('approval-dialog').waitFor({ timeout: TIMEOUTS.reacts });
    expect(await page.getByTestId('approval-dialog').textContent()).toContain('record_choice');
    expect(await page.getByTestId('approval-server').textContent()).toContain('colours');
    await page.getByTestId('approve').click();
    await expect.poll(() => view.locator('#chosen').textContent(), { timeout: TIMEOUTS.works }).toBe('recorded blue');
    expect(apps.choices).toEqual(['blue']);

    // Its message for the chat goes into the box, not sent.
    await view.locator('#tell').click();
    await expect.poll(() => page.getByTestId('prompt').inputValue()).toBe('I chose blue in the picker.');
    await page.getByTestId('prompt').fill('');

    // A link it asks to open is shown in the page's link dialog first, saying who asks; nothing opens by itself.
    const windows = page.context().pages().length;
    await view.locator('#link').click();
    const dialog = lastAnswer(page).getByTestId('link-dialog');
    await dialog.waitFor({ timeout: TIMEOUTS.reacts });
    expect(await dialog.textContent()).toContain('An app shown in this answer asks to open this link.');
    expect(await dialog.getByTestId('link-href').textContent()).toContain('/docs?colour=teal');
    await dialog.getByTestId('link-cancel').click();
    expect(page.context().pages()).toHaveLength(windows);

    // Navigating its own frame away (outside the sandbox page's policy) is refused too.
    await view.locator('#leave').click();
    await expect.poll(() => consoleLines.some((line) => line.includes("frame-src 'none'")), { timeout: TIMEOUTS.works }).toBe(true);
    expect(reached.undeclared).toEqual([]);

    await page.reload();
    await expect.poll(() => page.getByTestId('model-status').textContent(), { timeout: TIMEOUTS.works }).toBe('Ready: scripted on WASM q4');
    const again = lastAnswer(page).frameLocator('[data-testid="mcp-app"]').frameLocator('iframe');
    await expect.poll(() => again.locator('#result').textContent(), { timeout: TIMEOUTS.works }).toBe('teal');
    expect(apps.choices).toEqual(['blue']);
    expect(pageErrors).toEqual([]);
    // As the OAuth test left it: the tools drawer open, where the next test reads a server's row.
    await page.getByTestId('open-tools').click();
  });

  it(
    "a relayed server that goes down is said to be out of the relay's reach, not a wrong address (issue 44)",
    async () => {
      await relayed.kill();
      const row = page.locator('[data-testid="mcp-server"][data-url$="/mcp-relay/notes"]');
      // The heartbeat notices within its period; the reconnect then fails at the relay.
      const shown = async () =>
        (await row
          .getByTestId('mcp-error')
          .textContent()
          .catch(() => '')) ?? '';
      await expect.poll(shown, { timeout: TIMEOUTS.answers, interval: 500 }).toContain('cannot be reached from the app server');
      expect(await row.getByTestId('mcp-error').textContent()).not.toContain('often ending in /mcp');
      // Tried again, it says what the relay said, and where the fault is.
      await expect.poll(shown, { timeout: TIMEOUTS.answers, interval: 500 }).toContain('The app server relays to it and could not reach it');
      const why = (await row.getByTestId('mcp-error').textContent()) ?? '';
      expect(why).toContain('cannot be reached from the app server');
      expect(why).not.toContain('often ending in /mcp');
      expect(pageErrors).toEqual([]);
    },
    TIMEOUTS.browserTest,
  );
});
