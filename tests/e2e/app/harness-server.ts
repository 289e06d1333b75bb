import { existsSync } from 'node:fs';
import { mkdir, mkdtemp, readFile } from 'node:fs/promises';
import type { IncomingMessage, ServerResponse } from 'node:http';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { build } from 'vite';
import { inject } from 'vitest';
import { startAppServer } from '../../../src/server/app-server.ts';
import { pageSecurityHeaders } from '../../../src/server/page-policy.ts';
import { publishFolder } from '../../publish-folder.ts';
import { FAKE_SOURCES } from './questions.ts';

const here = fileURLToPath(new URL('.', import.meta.url));
const repoRoot = fileURLToPath(new URL('../../../', import.meta.url));

/** A running harness: the scripted chat page and a fake proxy, on one loopback port. */
export interface Harness {
  /** The harness page's address. */
  url: string;
  /** The app server's own address (for the real page's error screenshot, say). */
  origin: string;
  /** Adds a handler tried before the harness's own (the MCP relay, say). */
  route(handler: (req: IncomingMessage, res: ServerResponse) => Promise<boolean> | boolean): void;
  /** Lets the page fetch from more origins (its Content-Security-Policy's connect-src). */
  allowConnect(origins: readonly string[]): void;
  close(): Promise<void>;
}

const BUDGET = { searches: { used: 1, limit: 16 }, pages: { used: 1, limit: 12 } };

/**
 * tests/e2e/app/harness.html built with Vite (the production pipeline, like global-setup), once per run: in the
 * run's build cache (global-setup's `buildCache`), where every browser file that starts a harness finds it. Five
 * files each built it (about 6 CPU-s a build, issue 70). Built apart and moved into place, so two runs starting
 * together both end with one whole build.
 */
async function harnessBuild(): Promise<string> {
  const cache = inject('buildCache');
  const target = join(cache, 'scripted-harness');
  if (existsSync(target)) return target;
  await mkdir(cache, { recursive: true });
  const outDir = await mkdtemp(join(cache, 'building-harness-'));
  await build({
    configFile: false,
    root: repoRoot,
    logLevel: 'warn',
    worker: { format: 'es' },
    build: { outDir, emptyOutDir: true, target: 'es2022', rollupOptions: { input: join(here, 'harness.html') } },
  });
  publishFolder(outDir, target);
  return target;
}

/**
 * Serves the scripted harness page ({@link harnessBuild}) with the app server, answering `/api/*` the way the
 * companion proxy would for one research question. Loopback only; nothing leaves the machine.
 */
export async function startHarness(): Promise<Harness> {
  const outDir = await harnessBuild();
  const tools = await readFile(join(here, 'harness-tools.js'), 'utf8');
  const routes: ((req: IncomingMessage, res: ServerResponse) => Promise<boolean> | boolean)[] = [];
  // Read per response by the app server, so allowConnect() applies to the next page load.
  const pageHeaders: Record<string, string> = pageSecurityHeaders();
  const app = await startAppServer({
    root: outDir,
    port: 0,
    pageHeaders,
    before: async (req, res) => {
      for (const route of routes) if (await route(req, res)) return true;
      const path = new URL(req.url ?? '/', 'http://x').pathname;
      if (path === '/harness/tools.js') {
        res.writeHead(200, { 'Content-Type': 'text/javascript; charset=utf-8', 'Cache-Control': 'no-cache' });
        res.end(tools);
        return true;
      }
      if (path.startsWith('/api/')) {
        await fakeProxy(path, req, res);
        return true;
      }
      return false;
    },
  });
  return {
    url: `${app.url}tests/e2e/app/harness.html?model=scripted`,
    origin: app.url,
    route: (handler) => void routes.push(handler),
    allowConnect: (origins) => void Object.assign(pageHeaders, pageSecurityHeaders({ connectOrigins: origins })),
    // The build stays: it is the run's, and global-setup's teardown (or `npm test`) removes the cache.
    close: () => app.close(),
  };
}

async function fakeProxy(path: string, req: IncomingMessage, res: ServerResponse): Promise<void> {
  for await (const _chunk of req) {
    // The bodies are not needed; reading them keeps the connection healthy.
  }
  const send = (status: number, body: unknown) => {
    res.writeHead(status, { 'Content-Type': 'application/json; charset=utf-8' });
    res.end(JSON.stringify(body));
  };
  if (path === '/api/health') return send(200, { ok: true, backend: 'searxng', budgets: { searches: 16, pages: 12 } });
  if (path === '/api/answers' && req.method === 'POST')
    return send(201, { ok: true, answer: 'answer-1', budget: BUDGET, budgetLine: 'Searches used 0 of 16; pages read 0 of 12' });
  if (path === '/api/answers/answer-1') return send(200, { ok: true, answer: 'answer-1', sources: FAKE_SOURCES, budget: BUDGET });
  if (path === '/api/search') {
    return send(200, {
      ok: true,
      text: 'FAKE-SEARCH\n[1] 2022 FIFA World Cup final (2022-12-18) https://example.org/final\nArgentina beat France on penalties.\n\nSearches used 1 of 16; pages read 0 of 12',
      results: FAKE_SOURCES.map((s) => ({ n: s.n, url: s.url, title: s.title })),
      budget: BUDGET,
    });
  }
  if (path === '/api/read') {
    return send(200, {
      ok: true,
      text: 'FAKE-PAGE\nArgentina and France drew 3–3; Argentina won the shoot-out 4–2.\n\nSearches used 1 of 16; pages read 1 of 12',
      pages: FAKE_SOURCES.map((s) => ({ url: s.url, title: s.title })),
      budget: BUDGET,
    });
  }
  return send(404, { ok: false, code: 'not_found', reason: `No fake for ${path}` });
}
