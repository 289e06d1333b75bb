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

/**
 * Compressed bodies of the files served, made once per file version and encoding and kept: the build's files
 * are few and never change under a hashed name. Brotli at its best for small files, at a quality that takes
 * about a second for ONNX Runtime's 27 MB build (quality 11 would take a minute on the first visit).
 */
export class CompressedFiles {
  private readonly cache = new Map<string, Promise<Buffer>>();

  /** The body of `bytes` in `encoding`; `key` names the file's version (its path, size and modification time). */
  body(key: string, encoding: Encoding, bytes: () => Promise<Buffer>): Promise<Buffer> {
    const id = `${encoding}\u0000${key}`;
    let made = this.cache.get(id);
    if (!made) {
      made = bytes().then((raw) =>
        encoding === 'br'
          ? brotli(raw, { params: { [constants.BROTLI_PARAM_QUALITY]: raw.length < 1024 * 1024 ? 11 : 5, [constants.BROTLI_PARAM_SIZE_HINT]: raw.length } })
          : gzipAsync(raw, { level: 9 }),
      );
      // A failed read is not kept: the next request tries again.
      made.catch(() => this.cache.delete(id));
      this.cache.set(id, made);
    }
    return made;
  }
}
