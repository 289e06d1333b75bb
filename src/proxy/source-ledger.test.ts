import { describe, expect, it } from 'vitest';
import { SourceLedger } from './source-ledger.ts';

describe('SourceLedger', () => {
  it('numbers addresses from 1, once each, ignoring fragments', () => {
    const ledger = new SourceLedger();
    expect(ledger.number('https://a.example/1', 'A')).toBe(1);
    expect(ledger.number('https://b.example/2')).toBe(2);
    expect(ledger.number('https://a.example/1#part', 'Other')).toBe(1);
    expect(ledger.lookup('https://b.example/2')).toBe(2);
    expect(ledger.entries()).toEqual([
      { n: 1, url: 'https://a.example/1', title: 'A' },
      { n: 2, url: 'https://b.example/2', title: '' },
    ]);
  });

  it('keeps the first non-empty title', () => {
    const ledger = new SourceLedger();
    ledger.number('https://a.example/');
    ledger.number('https://a.example/', 'Later title');
    expect(ledger.entries()[0]?.title).toBe('Later title');
  });

  it('stops numbering at its capacity', () => {
    const ledger = new SourceLedger(2);
    ledger.number('https://a.example/1');
    ledger.number('https://a.example/2');
    expect(ledger.number('https://a.example/3')).toBeUndefined();
    expect(ledger.number('https://a.example/1')).toBe(1);
    expect(ledger.size).toBe(2);
  });
});
