/** Signatures of binary formats a server may send with a text content type. */
const SIGNATURES: ReadonlyArray<{ bytes: readonly number[]; what: string }> = [
  { bytes: [0x1f, 0x8b], what: 'gzip-compressed data' },
  { bytes: [0x28, 0xb5, 0x2f, 0xfd], what: 'zstd-compressed data' },
  { bytes: [0x42, 0x5a, 0x68], what: 'bzip2-compressed data' },
  { bytes: [0xfd, 0x37, 0x7a, 0x58, 0x5a, 0x00], what: 'xz-compressed data' },
  { bytes: [0x50, 0x4b, 0x03, 0x04], what: 'a zip archive' },
  { bytes: [0x25, 0x50, 0x44, 0x46, 0x2d], what: 'a PDF document' },
  { bytes: [0x89, 0x50, 0x4e, 0x47], what: 'a PNG image' },
  { bytes: [0xff, 0xd8, 0xff], what: 'a JPEG image' },
  { bytes: [0x47, 0x49, 0x46, 0x38], what: 'a GIF image' },
  { bytes: [0x00, 0x61, 0x73, 0x6d], what: 'a WebAssembly module' },
];

/** How much of a body is looked at, as the WHATWG MIME sniffing standard does. */
const SNIFF_BYTES = 1445;

/**
 * Whether a body sent as text is really binary: a known binary signature at its start, or (outside a
 * UTF-16 byte-order mark) one of the bytes the WHATWG MIME sniffing standard calls binary data bytes
 * (0x00–0x08, 0x0B, 0x0E–0x1A, 0x1C–0x1F) in its first 1,445 bytes.
 *
 * @param body - the raw bytes.
 * @returns what it looks like ("gzip-compressed data", "binary data"), or undefined for text.
 *
 * @remarks Security: rule 5 (text types only) for bodies that lie about their type. Threat: a page
 * that sends compressed or binary bytes as `text/html` filling the model's context with noise inside
 * the fence, or hiding content from the converter.
 */
export function sniffBinary(body: Uint8Array): string | undefined {
  for (const { bytes, what } of SIGNATURES) {
    if (body.length >= bytes.length && bytes.every((byte, i) => body[i] === byte)) return what;
  }
  // UTF-16 text is full of zero bytes; its byte-order mark says so.
  if ((body[0] === 0xfe && body[1] === 0xff) || (body[0] === 0xff && body[1] === 0xfe)) return undefined;
  const end = Math.min(body.length, SNIFF_BYTES);
  for (let i = 0; i < end; i++) {
    const byte = body[i] ?? 0;
    if (byte <= 0x08 || byte === 0x0b || (byte >= 0x0e && byte <= 0x1a) || (byte >= 0x1c && byte <= 0x1f)) return 'binary data';
  }
  return undefined;
}
