import { promisify } from 'node:util';
import { brotliCompress, constants, gzip } from 'node:zlib';

const brotli = promisify(brotliCompress);
const gzipAsync = promisify(gzip);

/** The encodings the app server answers with, best first. */
export type Encoding = 'br' | 'gzip';

/** Types worth compressing: text and WebAssembly (ONNX Runtime's build shrinks from 27 MB to about 5). Images and weights are not. */
const COMPRESSIBLE = /^(?:text\/|application\/(?:javascript|json|manifest\+json|wasm)|image\/svg\+xml)/;

/** Below this a compressed body saves less than its headers cost. */
const MIN_BYTES = 1024;

/** Above this a file is sent as it is: compressing it would hold the process too long and too much memory. */
const MAX_BYTES = 64 * 1024 * 1024;

/**
 * The encoding a request accepts and a response of `type` and `size` should use: brotli, else gzip, else none
 * (`Accept-Encoding` weights of 0 refuse one).
 */
export function encodingFor(acceptEncoding: string | undefined, type: string, size: number): Encoding | undefined {
  if (!acceptEncoding || size < MIN_BYTES || size > MAX_BYTES || !COMPRESSIBLE.test(type)) return undefined;
  const accepted = new Map(
    acceptEncoding.split(',').map((part) => {
      const [name = '', ...params] = part.trim().toLowerCase().split(';');
      const q = params.map((p) => /^\s*q=([\d.]+)/.exec(p)?.[1]).find(Boolean);
      return [name.trim(), q === undefined ? 1 : Number(q)] as const;
    }),
  );
  const allows = (name: string) => (accepted.get(name) ?? accepted.get('*') ?? 0) > 0;
  return allows('br') ? 'br' : allows('gzip') ? 'gzip' : undefined;
}

/** Bytes of compressed bodies kept at most: past it, the least recently used are dropped (and made again if asked for). */
const MAX_CACHED_BYTES = 128 * 1024 * 1024;

/**
 * Compressed bodies of the files served, made once per file version and encoding and kept: the build's files
 * are few and never change under a hashed name. Brotli at its best for small files, at a quality that takes
 * about a second for ONNX Runtime's 27 MB build (quality 11 would take a minute on the first visit). One
 * version per file and encoding is kept (a rewritten file's old body is dropped), and at most
 * {@link MAX_CACHED_BYTES} in all, the least recently used dropped first (issue 67: copies were never evicted).
 */
export class CompressedFiles {
  private readonly cache = new Map<string, { version: string; body: Promise<Buffer>; bytes: number }>();
  private bytes = 0;

  /** @param maxBytes - compressed bytes kept at most (tests give fewer). */
  constructor(private readonly maxBytes = MAX_CACHED_BYTES) {}

  /**
   * The body of `bytes` in `encoding`.
   * @param file - the file's path, and its version: whatever changes when its content may have (size, times, inode).
   */
  body(file: { path: string; version: string }, encoding: Encoding, bytes: () => Promise<Buffer>): Promise<Buffer> {
    const id = `${encoding}\u0000${file.path}`;
    const held = this.cache.get(id);
    if (held?.version === file.version) {
      // Most recently used last: the first entry is the one to drop.
      this.cache.delete(id);
      this.cache.set(id, held);
      return held.body;
    }
    if (held) this.forget(id);
    const body = bytes().then((raw) =>
      encoding === 'br'
        ? brotli(raw, { params: { [constants.BROTLI_PARAM_QUALITY]: raw.length < 1024 * 1024 ? 11 : 5, [constants.BROTLI_PARAM_SIZE_HINT]: raw.length } })
        : gzipAsync(raw, { level: 9 }),
    );
    const entry = { version: file.version, body, bytes: 0 };
    this.cache.set(id, entry);
    body.then(
      (made) => {
        if (this.cache.get(id) !== entry) return;
        entry.bytes = made.length;
        this.bytes += made.length;
        for (const [oldest] of this.cache) {
          if (this.bytes <= this.maxBytes || oldest === id) break;
          this.forget(oldest);
        }
      },
      // A failed read is not kept: the next request tries again.
      () => {
        if (this.cache.get(id) === entry) this.forget(id);
      },
    );
    return body;
  }

  /** How many compressed bytes are kept now. */
  get keptBytes(): number {
    return this.bytes;
  }

  private forget(id: string): void {
    const entry = this.cache.get(id);
    if (!entry) return;
    this.bytes -= entry.bytes;
    this.cache.delete(id);
  }
}
