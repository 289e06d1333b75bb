/**
 * Turns a fetched body into text: the charset from the `Content-Type` header, else (for HTML) a
 * `<meta charset>` / `<meta http-equiv>` declaration in the first 1024 bytes, else UTF-8. Unknown
 * labels fall back to UTF-8; invalid bytes become U+FFFD rather than failing the read.
 *
 * @param body - the raw bytes (already capped by the fetcher).
 * @param charset - the header's charset parameter, if any.
 * @param mediaType - the media type, to know whether to look for a meta declaration.
 */
export function decodeBody(body: Uint8Array, charset: string | undefined, mediaType: string): string {
  const label = charset ?? (mediaType === 'text/html' ? sniffMetaCharset(body) : undefined) ?? 'utf-8';
  let decoder: TextDecoder;
  try {
    decoder = new TextDecoder(label, { fatal: false });
  } catch {
    decoder = new TextDecoder('utf-8', { fatal: false });
  }
  return decoder.decode(body);
}

function sniffMetaCharset(body: Uint8Array): string | undefined {
  const head = Buffer.from(body.subarray(0, 1024)).toString('latin1');
  const match = /<meta[^>]+charset\s*=\s*["']?\s*([a-z0-9_:.-]+)/i.exec(head);
  return match?.[1]?.toLowerCase();
}
