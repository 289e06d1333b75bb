import type { Plugin, PreviewServer, ViteDevServer } from 'vite';
import { assertSafeBind } from './bind-guard.ts';
import { proxyOptionsFromEnv } from './env-options.ts';
import { mountProxy } from './mount.ts';
import { createProxy, type ProxyOptions } from './server.ts';

/**
 * A Vite plugin that serves the companion proxy's `/api/*` from the dev server (`npm run dev`) and
 * the preview server, on the page's own origin. Options default to the environment
 * ({@link proxyOptionsFromEnv}: `SEARXNG_URL`, `PROXY_TOKEN`, `PROXY_ORIGINS`, …).
 *
 * @param options - proxy options; when omitted, read from the environment at server start.
 */
export function proxyVitePlugin(options?: ProxyOptions): Plugin {
  const attach = (server: ViteDevServer | PreviewServer): void => {
    const proxyOptions = options ?? proxyOptionsFromEnv();
    const config = (server as { config?: { server?: { host?: string | boolean }; preview?: { host?: string | boolean } } }).config;
    const host = 'ws' in server ? config?.server?.host : (config?.preview?.host ?? config?.server?.host);
    assertSafeBind(host, proxyOptions.token);
    const app = createProxy(proxyOptions);
    const handle = mountProxy(app);
    server.middlewares.use((req, res, next) => {
      handle(req, res).then(
        (handled) => {
          if (!handled) next();
        },
        (error: unknown) => next(error),
      );
    });
    server.httpServer?.once('close', () => void app.close());
  };
  return {
    name: 'nexus-companion-proxy',
    configureServer(server) {
      attach(server);
    },
    configurePreviewServer(server) {
      attach(server);
    },
  };
}
