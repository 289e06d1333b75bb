import { describe, expect, it } from 'vitest';
import { decodeBody } from './decode-body.ts';

describe('decodeBody', () => {
  it('uses the header charset, then a meta declaration, then UTF-8', () => {
    const latin1 = Buffer.from([0x63, 0x61, 0x66, 0xe9]);
    expect(decodeBody(latin1, 'iso-8859-1', 'text/plain')).toBe('café');
    expect(decodeBody(Buffer.concat([Buffer.from('<meta charset="windows-1252">'), latin1]), undefined, 'text/html')).toContain('café');
    expect(decodeBody(Buffer.from('café'), undefined, 'text/html')).toBe('café');
  });

  it('falls back to UTF-8 for an unknown label and never throws on bad bytes', () => {
    expect(decodeBody(Buffer.from('ok'), 'x-no-such-charset', 'text/plain')).toBe('ok');
    expect(decodeBody(Buffer.from([0xff, 0xfe, 0x41]), 'utf-8', 'text/plain')).toContain('A');
  });
});
