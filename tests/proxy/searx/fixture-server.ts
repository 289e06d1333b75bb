import { createServer, type Server } from 'node:http';

/** The fixed loopback port the json_engine entries of settings.yml read from. */
export const FIXTURE_PORT = 18999;

/** A running fixture server. */
export interface FixtureServer {
  /** Queries received, per path (`/search` or `/flaky`). */
  queries: Array<{ path: string; q: string }>;
  close(): Promise<void>;
}

function slug(q: string): string {
  return encodeURIComponent(q.toLowerCase().replace(/\s+/g, '-'));
}

/**
 * Starts the offline "search engine" that searx's json_engine entries query, on 127.0.0.1:18999:
 * `GET /search?q=` answers two results (site.example, other.example); `GET /flaky?q=` answers one
 * overlapping and one own result. A query containing "outage" makes /flaky answer HTTP 500; one
 * containing "blackout" makes both fail; "nothing-here" gives no results.
 *
 * @throws when the port is taken (a clear message, not a hang).
 */
export async function startSearxFixture(port = FIXTURE_PORT): Promise<FixtureServer> {
  const queries: Array<{ path: string; q: string }> = [];
  const server: Server = createServer((req, res) => {
    const url = new URL(req.url ?? '/', 'http://127.0.0.1');
    const q = url.searchParams.get('q') ?? '';
    queries.push({ path: url.pathname, q });
    const fail = q.includes('blackout') || (url.pathname === '/flaky' && q.includes('outage'));
    if (fail) {
      res.writeHead(500, { 'content-type': 'text/plain' });
      res.end('engine failure');
      return;
    }
    let items: Array<{ link: string; title: string; snippet: string }> = [];
    if (!q.includes('nothing-here')) {
      items =
        url.pathname === '/flaky'
          ? [
              { link: `https://other.example/fx/${slug(q)}`, title: `${q} on other`, snippet: `Other snippet about ${q}` },
              { link: `https://www.site.example/flaky/${slug(q)}`, title: `${q} from flaky`, snippet: `Flaky snippet about ${q}` },
            ]
          : [
              { link: `https://site.example/fx/${slug(q)}`, title: `${q} on site`, snippet: `Site snippet about ${q}` },
              { link: `https://other.example/fx/${slug(q)}`, title: `${q} on other`, snippet: `Other snippet about ${q}` },
            ];
    }
    res.writeHead(200, { 'content-type': 'application/json' });
    res.end(JSON.stringify({ items }));
  });
  await new Promise<void>((done, fail) => {
    server.once('error', (error: NodeJS.ErrnoException) =>
      fail(new Error(error.code === 'EADDRINUSE' ? `searx fixture: 127.0.0.1:${port} is already in use (another test run?)` : error.message)),
    );
    server.listen(port, '127.0.0.1', () => done());
  });
  return {
    queries,
    close: () =>
      new Promise<void>((done) => {
        server.closeAllConnections();
        server.close(() => done());
      }),
  };
}
