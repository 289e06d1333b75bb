import { describe, expect, it } from 'vitest';
import { connectOriginsFromEnv, pageSecurityHeaders } from './page-policy.ts';
import { TIMEOUTS } from '../../tests/timeouts.ts';

/** The policy's directives by name. */
function directives(policy: string): Map<string, string[]> {
  return new Map(
    policy
      .split(';')
      .map((part) => part.trim().split(/\s+/))
      .map(([name = '', ...values]) => [name, values]),
  );
}

describe('pageSecurityHeaders', () => {
  it('is strict: own scripts and WebAssembly only, no eval, no inline script, no framing, no base, no forms', () => {
    const headers = pageSecurityHeaders();
    const policy = directives(headers['Content-Security-Policy'] ?? '');
    expect(policy.get('script-src')).toEqual(["'self'", "'wasm-unsafe-eval'"]);
    expect(policy.get('worker-src')).toEqual(["'self'", 'blob:']);
    expect(policy.get('img-src')).toEqual(["'self'", 'data:', 'blob:']);
    expect(policy.get('frame-ancestors')).toEqual(["'none'"]);
    expect(policy.get('base-uri')).toEqual(["'none'"]);
    expect(policy.get('form-action')).toEqual(["'none'"]);
    expect(policy.get('object-src')).toEqual(["'none'"]);
    expect(policy.get('default-src')).toEqual(["'self'"]);
    expect(headers['X-Frame-Options']).toBe('DENY');
    const connect = policy.get('connect-src') ?? [];
    expect(connect[0]).toBe("'self'");
    expect(connect).toContain('https://huggingface.co');
    expect(connect.some((source) => source === '*' || source === 'https:' || source.includes("'unsafe"))).toBe(false);
  });

  it("allows the hub's download hosts and not its other services: no *.huggingface.co or *.hf.co (issue 41)", () => {
    const connect = directives(pageSecurityHeaders()['Content-Security-Policy'] ?? '').get('connect-src') ?? [];
    const allows = (url: string) =>
      connect.some((source) => {
        if (!/^https:\/\//.test(source)) return false;
        const host = new URL(url).hostname;
        const pattern = source.slice('https://'.length);
        return pattern.startsWith('*.') ? host.endsWith(pattern.slice(1)) : host === pattern;
      });
    for (const download of [
      'https://huggingface.co/onnx-community/Qwen3-0.6B-ONNX/resolve/main/config.json',
      'https://cas-bridge.xethub.hf.co/xet-bridge-us/abc',
      'https://transfer.xethub.hf.co/x',
      'https://cdn-lfs.hf.co/repos/ab/cd/file',
      'https://cdn-lfs-us-1.hf.co/repos/ab/cd/file',
      'https://us-east-1.aws.cdn.hf.co/x',
      'https://cdn-lfs.huggingface.co/repos/ab/cd/file',
    ]) {
      expect(allows(download), download).toBe(true);
    }
    for (const service of [
      'https://router.huggingface.co/v1/chat/completions',
      'https://api-inference.huggingface.co/models/x',
      'https://someone.hf.space/',
      'https://datasets-server.huggingface.co/rows',
    ]) {
      expect(allows(service), service).toBe(false);
    }
    expect(connect.filter((source) => /^https:\/\/\*\.(huggingface\.co|hf\.co)$/.test(source))).toEqual([]);
  });

  it('adds the configured origins to connect-src, and refuses an entry that is not an origin, naming it', () => {
    const connect = directives(
      pageSecurityHeaders({ connectOrigins: ['https://models.example.org/', 'http://127.0.0.1:8080'] })['Content-Security-Policy'] ?? '',
    ).get('connect-src');
    expect(connect).toContain('https://models.example.org');
    expect(connect).toContain('http://127.0.0.1:8080');
    for (const bad of ['*', 'https:', "'unsafe-inline'", 'https://x.example/path', 'models.example.org; script-src *']) {
      expect(() => pageSecurityHeaders({ connectOrigins: [bad] }), bad).toThrow(/CONNECT_ORIGINS: .* is not an origin/);
    }
  });

  it('reads CONNECT_ORIGINS separated by commas or spaces', () => {
    expect(connectOriginsFromEnv({ CONNECT_ORIGINS: 'https://a.example, https://b.example  https://c.example' })).toEqual([
      'https://a.example',
      'https://b.example',
      'https://c.example',
    ]);
    expect(connectOriginsFromEnv({})).toEqual([]);
  });
});

describe('npm run dev and vite preview send the same headers as npm start', () => {
  it(
    'the dev server answers the page with the Content-Security-Policy and cross-origin isolation',
    async () => {
      const { createServer } = await import('vite');
      const { fileURLToPath } = await import('node:url');
      const server = await createServer({
        configFile: fileURLToPath(new URL('../../vite.config.ts', import.meta.url)),
        logLevel: 'silent',
        server: { port: 0, host: '127.0.0.1', hmr: false },
      });
      try {
        await server.listen();
        const url = server.resolvedUrls?.local[0] ?? '';
        const response = await fetch(url);
        const expected = pageSecurityHeaders();
        expect(response.headers.get('content-security-policy')).toBe(expected['Content-Security-Policy']);
        expect(response.headers.get('x-frame-options')).toBe('DENY');
        expect(response.headers.get('cross-origin-embedder-policy')).toBe('credentialless');
        expect(server.config.preview.headers).toMatchObject({
          'Content-Security-Policy': expected['Content-Security-Policy'],
          'Cross-Origin-Opener-Policy': 'same-origin',
        });
      } finally {
        await server.close();
      }
    },
    TIMEOUTS.processStart,
  );
});
