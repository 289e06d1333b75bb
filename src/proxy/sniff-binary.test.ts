import { gzipSync } from 'node:zlib';
import { describe, expect, it } from 'vitest';
import { sniffBinary } from './sniff-binary.ts';

const bytes = (text: string) => new TextEncoder().encode(text);

describe('sniffBinary', () => {
  it('names compressed data, archives, images and documents sent as text', () => {
    expect(sniffBinary(gzipSync('<html><body>hello</body></html>'))).toBe('gzip-compressed data');
    expect(sniffBinary(bytes('%PDF-1.7\n'))).toBe('a PDF document');
    expect(sniffBinary(Uint8Array.from([0x50, 0x4b, 0x03, 0x04, 1, 2]))).toBe('a zip archive');
    expect(sniffBinary(Uint8Array.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a]))).toBe('a PNG image');
    expect(sniffBinary(Uint8Array.from([0x3c, 0x70, 0x3e, 0x00, 0x01]))).toBe('binary data');
  });

  it('lets text through: HTML, UTF-8, tabs and form feeds, and UTF-16 with its byte-order mark', () => {
    expect(sniffBinary(bytes('<!doctype html><p>Grüße, 東京\tand\r\n\f</p>'))).toBeUndefined();
    expect(sniffBinary(Uint8Array.from([0xff, 0xfe, 0x3c, 0x00, 0x70, 0x00]))).toBeUndefined();
    expect(sniffBinary(new Uint8Array())).toBeUndefined();
  });
});
