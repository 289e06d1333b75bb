import type { IncomingMessage, ServerResponse } from 'node:http';
import type { FastifyInstance } from 'fastify';

/**
 * True when a request path belongs to the proxy: `/api` or anything under `/api/`.
 * @param url - the request target (path and query).
 */
export function isProxyPath(url: string | undefined): boolean {
  const path = (url ?? '').split('?')[0] ?? '';
  return path === '/api' || path.startsWith('/api/');
}

/**
 * Adapts the proxy to a plain Node request handler, for the app server's `before` hook: answers
 * `/api/*` requests through Fastify's router (after `ready()`, awaited once) and returns true; returns
 * false for every other path so the caller serves it.
 *
 * @param app - an instance from `createProxy`.
 * @returns `(req, res) => Promise<boolean>`.
 */
export function mountProxy(app: FastifyInstance): (req: IncomingMessage, res: ServerResponse) => Promise<boolean> {
  let ready: PromiseLike<unknown> | undefined;
  return async (req, res) => {
    if (!isProxyPath(req.url)) return false;
    ready ??= app.ready();
    await ready;
    app.routing(req, res);
    return true;
  };
}
