/** What {@link boundedFetch} wraps: the fetch the MCP SDK is given. */
export type FetchFunction = (input: string | URL | Request, init?: RequestInit) => Promise<Response>;

/**
 * Most bytes of one message an MCP server may send: a JSON body, or one event of a stream. A tool
 * listing of a few hundred tools is well under a megabyte; a result of megabytes is cut by the loop
 * anyway. A server past it is refused while it sends, before anything is parsed: 300,000 tools in
 * one listing would otherwise be hundreds of megabytes of objects before any bound on tools applies.
 */
export const MAX_MESSAGE_BYTES = 8 * 1024 * 1024;

/** Thrown into the response body when a message passes the bound; the SDK reports it as the request's failure. */
export class MessageTooLargeError extends Error {
  override readonly name = 'MessageTooLargeError';
}

/**
 * `fetch` whose responses stop at `maxBytes` per message: a JSON body in all, a server-sent event
 * stream per event (a long-lived stream may carry any number of events, each bounded). A
 * `Content-Length` past the bound is refused before the body is read.
 *
 * @param fetchImpl - the fetch to wrap (default the global one).
 * @param maxBytes - the bound (default {@link MAX_MESSAGE_BYTES}).
 */
export function boundedFetch(fetchImpl: FetchFunction = (input, init) => fetch(input, init), maxBytes = MAX_MESSAGE_BYTES): FetchFunction {
  const tooLarge = () =>
    new MessageTooLargeError(`the server sent one message larger than ${(maxBytes / 1024 / 1024).toLocaleString('en-US')} MB, which this client does not read`);
  return async (input, init) => {
    const response = await fetchImpl(input, init);
    if (!response.body) return response;
    const declared = Number(response.headers.get('content-length') ?? Number.NaN);
    if (declared > maxBytes) {
      await response.body.cancel().catch(() => undefined);
      throw tooLarge();
    }
    const events = (response.headers.get('content-type') ?? '').includes('text/event-stream');
    let size = 0;
    let lineEmpty = true;
    const counter = new TransformStream<Uint8Array, Uint8Array>({
      transform(chunk, controller) {
        if (events) {
          // An event ends at an empty line: a line feed right after another (carriage returns aside).
          for (const byte of chunk) {
            if (byte === 13) continue;
            if (byte === 10) {
              if (lineEmpty) size = 0;
              lineEmpty = true;
            } else lineEmpty = false;
            if (++size > maxBytes) {
              controller.error(tooLarge());
              return;
            }
          }
        } else {
          size += chunk.byteLength;
          if (size > maxBytes) {
            controller.error(tooLarge());
            return;
          }
        }
        controller.enqueue(chunk);
      },
    });
    const bounded = new Response(response.body.pipeThrough(counter), { status: response.status, statusText: response.statusText, headers: response.headers });
    // What the SDK reads of the original besides its body (a redirect's final address).
    Object.defineProperty(bounded, 'url', { value: response.url });
    return bounded;
  };
}
