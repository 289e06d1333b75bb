import { describe, expect, it } from 'vitest';
import { boundedFetch, MAX_MESSAGE_BYTES, MessageTooLargeError } from './bounded-fetch.ts';

/** A response whose body is `chunks` of `size` bytes each, counting how many were pulled. */
function streamed(chunks: number, size: number, type: string, fill = 120): { response: Response; pulled: () => number } {
  let pulled = 0;
  const body = new ReadableStream<Uint8Array>({
    pull(controller) {
      if (pulled >= chunks) return controller.close();
      pulled++;
      controller.enqueue(new Uint8Array(size).fill(fill));
    },
  });
  return { response: new Response(body, { headers: { 'content-type': type } }), pulled: () => pulled };
}

describe('boundedFetch (issue 52: a listing bounded in bytes before it is parsed)', () => {
  it('stops a JSON body at the bound while it arrives, reading little past it', async () => {
    const big = streamed(10_000, 64 * 1024, 'application/json');
    const fetchOf = boundedFetch(async () => big.response, 1024 * 1024);
    const response = await fetchOf('http://127.0.0.1:1/mcp');
    await expect(response.text()).rejects.toThrow(MessageTooLargeError);
    // 640 MB offered; about 1 MB read.
    expect(big.pulled()).toBeLessThan(40);
  });

  it('refuses a declared Content-Length past the bound before reading, and passes a small body whole', async () => {
    expect(MAX_MESSAGE_BYTES).toBe(8 * 1024 * 1024);
    const fetchOf = boundedFetch(async () => new Response('x', { headers: { 'content-length': String(9 * 1024 * 1024) } }));
    await expect(fetchOf('http://127.0.0.1:1/mcp')).rejects.toThrow(/larger than 8 MB/);
    const small = boundedFetch(async () => Response.json({ ok: 1 }, { status: 202 }), 1024);
    const response = await small('http://127.0.0.1:1/mcp');
    expect(response.status).toBe(202);
    expect(await response.json()).toEqual({ ok: 1 });
  });

  it('bounds a server-sent event stream per event: many small events pass, one large event is cut', async () => {
    const event = 'event: message\r\ndata: {"jsonrpc":"2.0"}\r\n\r\n';
    const many = boundedFetch(async () => new Response(event.repeat(1000), { headers: { 'content-type': 'text/event-stream' } }), 100);
    expect(await (await many('http://127.0.0.1:1/mcp')).text()).toBe(event.repeat(1000));
    const one = streamed(100, 1024, 'text/event-stream');
    const cut = boundedFetch(async () => one.response, 10 * 1024);
    await expect((await cut('http://127.0.0.1:1/mcp')).text()).rejects.toThrow(MessageTooLargeError);
    expect(one.pulled()).toBeLessThan(20);
  });
});
