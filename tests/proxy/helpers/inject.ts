import type { FastifyInstance } from 'fastify';
import { expect } from 'vitest';

/** The JSON body of a proxy response, with the fields the tests read. */
export type ProxyBody = Record<string, unknown> & { ok: boolean; code?: string; reason?: string; budgetLine?: string };

/**
 * POSTs JSON to the proxy in-process, as the page on 127.0.0.1:4173 would (override `host` and
 * friends in `headers`, or the peer with `remoteAddress`).
 */
export async function post(app: FastifyInstance, url: string, payload: unknown, headers: Record<string, string> = {}, remoteAddress?: string) {
  const response = await app.inject({
    method: 'POST',
    url,
    payload: payload as Record<string, unknown>,
    headers: { host: '127.0.0.1:4173', ...headers },
    ...(remoteAddress ? { remoteAddress } : {}),
  });
  return { status: response.statusCode, body: response.json() as ProxyBody };
}

/** Starts an answer for `message` and returns its id. */
export async function newAnswer(app: FastifyInstance, message = 'hello'): Promise<string> {
  const { status, body } = await post(app, '/api/answers', { message });
  expect(status).toBe(201);
  return body.answer as string;
}
