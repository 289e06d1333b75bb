import { describe, expect, it } from 'vitest';
import { memoEntry, memoLookup } from './memo.ts';
import type { SiteContext } from './site.ts';

describe('site memo', () => {
  it('creates an entry once and finds it again', () => {
    const context: SiteContext = { final: false, names: undefined, lineStart: true, prevChar: -1, memo: new Map() };
    expect(memoLookup(context, 'k')).toBeUndefined();
    const first = memoEntry(context, 'k', () => ({ n: 1 }));
    const second = memoEntry(context, 'k', () => ({ n: 2 }));
    expect(second).toBe(first);
    expect(memoLookup<{ n: number }>(context, 'k')?.n).toBe(1);
  });
});
