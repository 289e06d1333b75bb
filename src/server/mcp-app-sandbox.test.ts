import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startAppServer, type AppServer } from './app-server.ts';
import { MCP_APP_SANDBOX_PATH, mcpAppSandboxPolicy } from './mcp-app-sandbox.ts';
import { TIMEOUTS } from '../../tests/timeouts.ts';

/** One directive of a policy, by name. */
const directive = (policy: string, name: string) => policy.split('; ').find((part) => part.startsWith(`${name} `));

describe('the MCP app sandbox page’s policy', () => {
  it('without declarations: inline script only, nothing fetched, framed or based, an opaque origin, framed by the page only', () => {
    const policy = mcpAppSandboxPolicy();
    expect(directive(policy, 'sandbox')).toBe('sandbox allow-scripts allow-forms');
    expect(directive(policy, 'default-src')).toBe("default-src 'none'");
    expect(directive(policy, 'script-src')).toBe("script-src 'unsafe-inline'");
    expect(directive(policy, 'connect-src')).toBe("connect-src 'none'");
    expect(directive(policy, 'frame-src')).toBe("frame-src 'none'");
    expect(directive(policy, 'base-uri')).toBe("base-uri 'none'");
    expect(directive(policy, 'object-src')).toBe("object-src 'none'");
    expect(directive(policy, 'form-action')).toBe("form-action 'none'");
    expect(directive(policy, 'frame-ancestors')).toBe("frame-ancestors 'self'");
    // Never the tokens that would give the view the page's origin, the top window or new windows.
    expect(policy).not.toMatch(/allow-same-origin|allow-top-navigation|allow-popups|unsafe-eval/);
  });

  it('opens exactly the declared origins, and drops an entry that is not one (a directive smuggled in a domain)', () => {
    const policy = mcpAppSandboxPolicy({
      connectDomains: ['https://api.example.org', 'https://a.test; script-src *'],
      resourceDomains: ['https://cdn.example.org/', "'unsafe-eval'"],
      frameDomains: ['https://maps.example.org'],
      baseUriDomains: 'https://base.example.org',
    });
    expect(directive(policy, 'connect-src')).toBe('connect-src https://api.example.org');
    expect(directive(policy, 'script-src')).toBe("script-src 'unsafe-inline' https://cdn.example.org");
    expect(directive(policy, 'img-src')).toBe('img-src data: blob: https://cdn.example.org');
    expect(directive(policy, 'frame-src')).toBe('frame-src https://maps.example.org');
    expect(directive(policy, 'base-uri')).toBe("base-uri 'none'");
    expect(policy).not.toContain('a.test');
    expect(policy).not.toContain('unsafe-eval');
    expect(policy.split('; ').filter((part) => part.startsWith('script-src'))).toHaveLength(1);
  });
});

describe('the app server serves the sandbox page', () => {
  let dir: string;
  let app: AppServer;

  beforeAll(async () => {
    dir = await mkdtemp(join(tmpdir(), 'nexus-sandbox-'));
    await writeFile(join(dir, 'index.html'), '<!doctype html><title>t</title>');
    app = await startAppServer({ root: dir });
  }, TIMEOUTS.processStart);

  afterAll(async () => {
    await app?.close();
    await rm(dir, { recursive: true, force: true });
  });

  it('with its own policy for the declared origins, not the page’s; the page keeps its own', async () => {
    const csp = encodeURIComponent(JSON.stringify({ connectDomains: ['http://127.0.0.1:9'] }));
    const response = await fetch(new URL(`${MCP_APP_SANDBOX_PATH}?csp=${csp}`, app.url));
    expect(response.status).toBe(200);
    const policy = response.headers.get('content-security-policy') ?? '';
    expect(policy).toBe(mcpAppSandboxPolicy({ connectDomains: ['http://127.0.0.1:9'] }));
    expect(response.headers.get('x-frame-options')).toBe('SAMEORIGIN');
    expect(response.headers.get('cross-origin-embedder-policy')).toBe('credentialless');
    const body = await response.text();
    expect(body).toContain('ui/notifications/sandbox-');
    expect(body).toContain("setAttribute('sandbox', 'allow-scripts allow-forms')");
    const page = await fetch(app.url);
    expect(page.headers.get('content-security-policy')).toContain("frame-ancestors 'none'");
    expect(page.headers.get('x-frame-options')).toBe('DENY');
  });

  it('with no declarations where the address carries none or not JSON', async () => {
    for (const query of ['', '?csp=not-json', `?csp=${encodeURIComponent('["https://a.test"]')}`]) {
      const response = await fetch(new URL(`${MCP_APP_SANDBOX_PATH}${query}`, app.url));
      expect(response.headers.get('content-security-policy')).toBe(mcpAppSandboxPolicy());
    }
  });
});
